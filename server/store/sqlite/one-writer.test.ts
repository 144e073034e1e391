/**
 * One writer per SQLite file: a second server started on the file of a running one refuses to
 * start (one line, exit code 2) instead of serving beside it from a memory of its own; the keys
 * command still works on the file while the server runs; and a server killed with SIGKILL leaves
 * no lock behind (the lock is the operating system's, held by the process). Real server processes,
 * as `npm start` runs them; SQLite only (on PostgreSQL several instances share a database).
 */
import { existsSync, linkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { freePort, listening, printedKey, startBuiltServer, startKeys, useChildProcesses, within, type Running } from '../../test-support/processes.js';
import { writerLockPath } from './writer-lock.js';

const folder = useChildProcesses('pix-one-writer-');

async function exitOf(running: Running, what: string) {
  return within(running.exited, what);
}

/** `npm run keys -- <args>` on the file, as an operator runs it beside the server. */
async function keys(databasePath: string, args: string[]) {
  const running = startKeys(args, { DATABASE_PATH: databasePath });
  const exit = await exitOf(running, `keys ${args.join(' ')} to exit`);
  return { code: exit.code, stdout: running.stdout(), stderr: running.stderr() };
}

const clients = async (port: number, apiKey: string) => fetch(`http://127.0.0.1:${port}/client`, { headers: { 'X-API-KEY': apiKey } });

describe('one server per SQLite file', () => {
  test('a second server on the same file refuses to start with one line and exit 2; the first serves on; the keys command works beside it', async () => {
    const databasePath = join(folder(), 'two-servers', 'payments.db');
    const firstPort = await freePort();
    const first = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(firstPort) });
    await listening(first);
    const apiKey = printedKey(first);
    expect(existsSync(writerLockPath(databasePath))).toBe(true);

    const second = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(await freePort()) });
    const exit = await exitOf(second, 'the second server to exit');
    expect(exit.code).toBe(2);
    expect(second.stderr()).toBe(
      `Could not start: another server is already running on the SQLite file ${databasePath} (it holds ${databasePath}-lock). ` +
        'Two servers on one file would each answer from what they keep in memory and drift apart: stop the other one, ' +
        'give this one a DATABASE_PATH of its own, or run several instances on one PostgreSQL database (DATABASE_URL).\n',
    );
    expect(second.stdout()).not.toMatch(/sk_[a-z0-9]{24}_/);
    expect((await clients(firstPort, apiKey)).status).toBe(200);

    // Beside the running server: a new key for its company, which it accepts at once.
    const listed = JSON.parse((await keys(databasePath, ['list', '--json'])).stdout) as Array<{ companyId: string }>;
    expect(listed).toHaveLength(1);
    const issued = await keys(databasePath, ['issue', '--company', listed[0]!.companyId, '--json']);
    expect(issued.code, issued.stderr).toBe(0);
    const { apiKey: newKey } = JSON.parse(issued.stdout) as { apiKey: string };
    expect((await clients(firstPort, newKey)).status).toBe(200);

    // A reset behind the server's back would not be seen by its memory: refused, pointing at the request.
    const created = await fetch(`http://127.0.0.1:${firstPort}/product`, {
      method: 'POST',
      headers: { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Café', description: 'Torrado', price: 39.9, sku: 'CAFE', displayId: 'cafe' }),
    });
    expect(created.status).toBe(201);
    const reset = await keys(databasePath, ['reset', '--company', listed[0]!.companyId]);
    expect(reset.code).toBe(1);
    expect(reset.stderr).toContain(`A server is running on ${databasePath}`);
    expect(reset.stderr).toContain('/sandbox/reset');
    expect(reset.stderr).toContain('Nothing was deleted.');
    const product = (await created.json()) as { id: string };
    expect((await fetch(`http://127.0.0.1:${firstPort}/product/${product.id}`, { headers: { 'X-API-KEY': apiKey } })).status).toBe(200);
  });

  test('a symbolic link to the file, or a hard link, starts no second server (the lock goes by the file)', async () => {
    const databasePath = join(folder(), 'linked', 'payments.db');
    const firstPort = await freePort();
    const first = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(firstPort) });
    await listening(first);
    const apiKey = printedKey(first);

    const symlinked = join(folder(), 'linked', 'symlinked.db');
    symlinkSync(databasePath, symlinked);
    const bySymlink = startBuiltServer({ DATABASE_PATH: symlinked, PORT: String(await freePort()) });
    expect((await exitOf(bySymlink, 'the server on the symbolic link to exit')).code).toBe(2);
    expect(bySymlink.stderr()).toContain(`another server is already running on the SQLite file ${symlinked} (it holds ${databasePath}-lock)`);

    const hardLinked = join(folder(), 'linked', 'hard-linked.db');
    linkSync(databasePath, hardLinked);
    const byHardLink = startBuiltServer({ DATABASE_PATH: hardLinked, PORT: String(await freePort()) });
    expect((await exitOf(byHardLink, 'the server on the hard link to exit')).code).toBe(2);
    expect(byHardLink.stderr()).toMatch(/^Could not start: The SQLite file .*hard-linked\.db has 2 names \(hard links\)/);
    // It saw no "empty database": no development company was made, no key printed.
    expect(byHardLink.stdout()).not.toMatch(/sk_[a-z0-9]{24}_/);
    expect((await clients(firstPort, apiKey)).status).toBe(200);
  });

  test('a server killed with SIGKILL leaves no lock: the next start on the file serves its data', async () => {
    const databasePath = join(folder(), 'killed', 'payments.db');
    const port = await freePort();
    const first = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(port) });
    await listening(first);
    const apiKey = printedKey(first);
    // The compiled server runs as the child itself (no wrapper), so this kills the lock's holder.
    process.kill(first.child.pid!, 'SIGKILL');
    expect((await exitOf(first, 'the killed server to exit')).signal).toBe('SIGKILL');

    const next = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(port) });
    await listening(next);
    expect(next.stdout()).not.toContain('Empty database');
    expect((await clients(port, apiKey)).status).toBe(200);
  });
});

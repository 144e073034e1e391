/**
 * The reference server as a process: `tsx server/main.ts` on a temporary SQLite file and a
 * free port. Start, development key, a write, SIGTERM, restart on the same file; secrets in
 * the output; configuration errors. Every child is killed (its whole process group) after
 * each test, whatever happened.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ConfigVariable } from './config.js';
import { freePort, listening, startTsx, useChildProcesses, WAIT_MS, within, type ChildVars, type Running } from './test-support/processes.js';

/** Starts `tsx server/main.ts` with the given configuration. */
function startServer(vars: ChildVars): Running {
  return startTsx('server/main.ts', [], vars);
}

async function call(port: number, path: string, init: RequestInit & { apiKey?: string } = {}): Promise<Response> {
  const { apiKey, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (apiKey !== undefined) headers.set('X-API-KEY', apiKey);
  return fetch(`http://127.0.0.1:${port}${path}`, { ...rest, headers, signal: AbortSignal.timeout(WAIT_MS) });
}

const KEY_PATTERN = /sk_([a-z0-9]{24})_([A-Za-z0-9_-]{43})/;

const folder = useChildProcesses('pix-main-test-');

describe('npm start on a database file', () => {
  test('prints a development key once, keeps what it acknowledged across SIGTERM and a restart, never logs the key', async () => {
    const databasePath = join(folder(), 'restart', 'payments.db');
    const port = await freePort();
    const vars = { DATABASE_PATH: databasePath, PORT: String(port), LOG_LEVEL: 'trace' };

    // First start: empty database → a development company and its key on stdout.
    const first = startServer(vars);
    await listening(first);
    const match = KEY_PATTERN.exec(first.stdout());
    expect(match, `no API key in the first start's output:\n${first.stdout()}`).not.toBeNull();
    const apiKey = match![0];
    const secret = match![2]!;
    expect(first.stdout().split('\n')).toContain(`  ${apiKey}`);

    const empty = await call(port, '/client', { apiKey });
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual([]);

    const wrongKey = await call(port, '/client', { apiKey: `${apiKey.slice(0, -1)}${apiKey.endsWith('A') ? 'B' : 'A'}` });
    expect(wrongKey.status).toBe(401);

    const created = await call(port, '/client', {
      method: 'POST',
      apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Maria Silva Souza', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'maria@example.com', phone: '11987654321' }),
    });
    expect(created.status).toBe(201);
    const client = (await created.json()) as { id: string; name: string };
    expect(client.id).toMatch(/^clnt_[a-z0-9]{24}$/);

    // SIGTERM right after the acknowledgement: a clean exit.
    first.child.kill('SIGTERM');
    expect(await within(first.exited, 'the first server to exit on SIGTERM')).toEqual({ code: 0, signal: null });

    // The key appears only in the banner (plain text before the first log line), never in a log line or on stderr.
    const firstLines = first.stdout().split('\n');
    const firstLog = firstLines.findIndex((line) => line.startsWith('{'));
    expect(firstLog).toBeGreaterThan(0);
    const banner = firstLines.slice(0, firstLog);
    expect(banner.filter((line) => line.includes(secret)).length).toBeGreaterThanOrEqual(1);
    expect(firstLines.slice(firstLog).filter((line) => line.includes(secret))).toEqual([]);
    expect(first.stderr()).not.toContain(secret);
    expect(firstLines.slice(firstLog).filter((line) => line.trim() !== '' && !line.startsWith('{'))).toEqual([]);

    // Second start on the same file: no new company, no key printed, the client is still there.
    const second = startServer(vars);
    await listening(second);
    expect(second.stdout()).not.toMatch(/sk_[a-z0-9]{24}_/);
    expect(second.stdout()).not.toContain('Empty database');

    const listed = await call(port, '/client', { apiKey });
    expect(listed.status).toBe(200);
    const clients = (await listed.json()) as Array<{ id: string; name: string }>;
    expect(clients.map((c) => [c.id, c.name])).toEqual([[client.id, 'Maria Silva Souza']]);

    second.child.kill('SIGTERM');
    expect(await within(second.exited, 'the second server to exit on SIGTERM')).toEqual({ code: 0, signal: null });
    for (const output of [second.stdout(), second.stderr()]) {
      expect(output).not.toContain(secret);
      expect(output).not.toContain(apiKey);
    }
    expect(second.stdout()).toContain('"msg":"shutting down"');
  });
});

describe('a bad configuration stops the server before it starts', () => {
  test.each<[string, { given: ChildVars; want: { variable: ConfigVariable } }]>([
    ['PORT is not a number', { given: { PORT: 'abc' }, want: { variable: 'PORT' } }],
    ['PORT is above 65535', { given: { PORT: '70000' }, want: { variable: 'PORT' } }],
    ['NODE_ENV is not a known mode', { given: { NODE_ENV: 'staging' }, want: { variable: 'NODE_ENV' } }],
    ['PUBLIC_URL is not http(s)', { given: { PUBLIC_URL: 'ftp://x' }, want: { variable: 'PUBLIC_URL' } }],
    ['IDEMPOTENCY_TTL_SECONDS is negative', { given: { IDEMPOTENCY_TTL_SECONDS: '-1' }, want: { variable: 'IDEMPOTENCY_TTL_SECONDS' } }],
    ['DATABASE_URL is not a PostgreSQL URL', { given: { DATABASE_URL: 'mysql://pix:hunter2@db.internal/payments' }, want: { variable: 'DATABASE_URL' } }],
    ['DATABASE_URL is not a URL', { given: { DATABASE_URL: 'pix:hunter2@db.internal' }, want: { variable: 'DATABASE_URL' } }],
    ['DATABASE_POOL_SIZE is 0', { given: { DATABASE_POOL_SIZE: '0' }, want: { variable: 'DATABASE_POOL_SIZE' } }],
  ])('%s → exit 2, one line on stderr naming it', async (_name, { given, want }) => {
    const databasePath = join(folder(), 'bad-config', `${want.variable}.db`);
    const running = startServer({ DATABASE_PATH: databasePath, PORT: String(await freePort()), ...given });
    const exit = await within(running.exited, 'the misconfigured server to exit');

    expect(exit).toEqual({ code: 2, signal: null });
    const lines = running.stderr().split('\n').filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(want.variable);
    expect(running.stderr()).not.toContain('    at ');
    // A database password is never repeated.
    expect(running.stderr()).not.toContain('hunter2');
    expect(running.stdout()).not.toMatch(/sk_[a-z0-9]{24}_/);
  });
});

/**
 * The reference server as a process: `tsx server/main.ts` (or the compiled server `npm start`
 * runs) on a temporary SQLite file and a free port. Start, development key, a write, SIGTERM,
 * restart on the same file; secrets in the output; configuration errors; what a person meets at
 * start-up (a port in use, the lines on a terminal, `/`). Every child is killed (its whole process group) after
 * each test, whatever happened.
 */
// long-running: about 40 s (the compiled server as a process, started again and again); test/support/sequencer.ts starts it early
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { ConfigVariable } from './config.js';
import { testEngine } from './test-support/engines.js';
import {
  createCompanyKey,
  freePort,
  haveTerminal,
  listening,
  startBuiltServer,
  startBuiltServerOnTerminal,
  startKeys,
  useChildProcesses,
  WAIT_MS,
  within,
  type ChildVars,
  type Running,
} from './test-support/processes.js';

/**
 * The server as `npm start` runs it: the compiled dist/server/main.mjs, with no tsx in between
 * (tsx relays a SIGTERM to its child and could report 143 when the child exited at once).
 */
function startServer(vars: ChildVars): Running {
  return startBuiltServer(vars);
}

async function call(port: number, path: string, init: RequestInit & { apiKey?: string } = {}): Promise<Response> {
  const { apiKey, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (apiKey !== undefined) headers.set('X-API-KEY', apiKey);
  return fetch(`http://127.0.0.1:${port}${path}`, { ...rest, headers, signal: AbortSignal.timeout(WAIT_MS) });
}

/** The first JSON log line with this `msg`, parsed. */
function logLine(running: Running, msg: string): Record<string, unknown> | undefined {
  const line = running
    .stdout()
    .split('\n')
    .find((l) => l.startsWith('{') && l.includes(`"msg":"${msg}"`));
  return line === undefined ? undefined : (JSON.parse(line) as Record<string, unknown>);
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
    // Not a terminal: no plain line of where to click, but the JSON line says it.
    expect(first.stdout()).not.toContain('Pix sandbox listening');
    expect(logLine(first, 'listening')).toMatchObject({ port, url: `http://localhost:${port}`, docs: `http://localhost:${port}/docs/` });
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
    expect(await within(first.exited, 'the first server to exit on SIGTERM'), first.stderr() + first.stdout().slice(-1500)).toEqual({ code: 0, signal: null });

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

describe('the compiled server', () => {
  test('compiles no request validator at run time: its build made every one it uses', async () => {
    const port = await freePort();
    const running = startServer({ DATABASE_PATH: join(folder(), 'validators', 'payments.db'), PORT: String(port), LOG_LEVEL: 'debug' });
    await listening(running);
    const apiKey = KEY_PATTERN.exec(running.stdout())![0];
    // A body refused, with the field errors of the validators made ahead.
    const refused = await call(port, '/client', {
      method: 'POST',
      apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Maria Silva Souza', status: 'ACTIVE', cpfCnpj: '52998224726', email: 'maria@example.com' }),
    });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Array<{ pointer?: string }> }).errors.map((e) => e.pointer)).toEqual(['/phone', '/cpfCnpj']);
    // The line comes once every validator of the catalog has been asked for, after listening.
    let ready: Record<string, unknown> | undefined;
    for (let waited = 0; ready === undefined && waited < WAIT_MS; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      ready = logLine(running, 'request validators ready');
    }
    expect(ready, running.stdout().slice(-1500)).toMatchObject({ compiledAtRunTime: 0 });
  });
});

describe('the first start on an empty database, by mode (stdout a pipe, as a log collector reads it)', () => {
  test('production makes no company and prints no key: one log line says how to make one, requests get 401 until a key exists', async () => {
    const databasePath = join(folder(), 'production-empty', 'payments.db');
    const port = await freePort();
    const running = startBuiltServer({ NODE_ENV: 'production', DATABASE_PATH: databasePath, PORT: String(port) });
    await listening(running);

    for (const output of [running.stdout(), running.stderr()]) {
      expect(output).not.toMatch(/sk_[a-z0-9]{24}_/);
      expect(output).not.toContain('Empty database');
    }
    const hints = linesOf(running.stdout()).filter((line) => line.includes('No company yet'));
    expect(hints, running.stdout()).toHaveLength(1);
    const command =
      testEngine === 'sqlite'
        ? `DATABASE_PATH=${databasePath} npm run keys -- create --company "Name"`
        : 'npm run keys -- create --company "Name"  (with the same DATABASE_URL)';
    expect(JSON.parse(hints[0]!)).toMatchObject({
      level: 40,
      msg: `No company yet: every request is answered 401 until one is made. Make a company and its API key with: ${command}`,
    });
    expect((await call(port, '/client')).status).toBe(401);
    expect((await call(port, '/client', { apiKey: `sk_${'a'.repeat(24)}_${'A'.repeat(43)}` })).status).toBe(401);

    // The operator makes the first company with the keys command; the running server accepts its key.
    const { apiKey } = await createCompanyKey({ DATABASE_PATH: databasePath }, 'Minha Loja');
    expect((await call(port, '/client', { apiKey })).status).toBe(200);
    expect(running.stdout()).not.toContain(apiKey);
  });

  test('development makes the development company and prints its key once', async () => {
    const running = startBuiltServer({ DATABASE_PATH: join(folder(), 'development-empty', 'payments.db'), PORT: String(await freePort()) });
    await listening(running);
    expect(linesOf(running.stdout()).filter((line) => /^\s+sk_[a-z0-9]{24}_/.test(line))).toHaveLength(1);
    expect(running.stdout()).toContain('Empty database: created the development company');
    expect(running.stdout()).not.toContain('No company yet');
  });
});

/**
 * D51 (issue 34): the database knows it is a production one. `npm run keys -- reset` without
 * NODE_ENV, pointed at a production database, exited 0 and deleted a company's records. On the
 * PostgreSQL run every DATABASE_PATH here names a PostgreSQL schema (test-support/processes).
 */
describe('the deployment mode recorded in the database', () => {
  async function keysCommand(databasePath: string, args: string[], vars: ChildVars = {}) {
    const running = startKeys(args, { DATABASE_PATH: databasePath, ...vars });
    const exit = await within(running.exited, `keys ${args.join(' ')} to exit`);
    return { code: exit.code, stdout: running.stdout(), stderr: running.stderr() };
  }

  test('a production database: keys reset without NODE_ENV refuses and deletes nothing; a development start refuses; only mode --change changes it', async () => {
    const databasePath = join(folder(), 'recorded-production', 'payments.db');
    const port = await freePort();
    const production = startBuiltServer({ NODE_ENV: 'production', DATABASE_PATH: databasePath, PORT: String(port) });
    await listening(production);
    expect((await keysCommand(databasePath, ['mode'])).stdout).toBe('production\n');
    const { companyId, apiKey } = await createCompanyKey({ DATABASE_PATH: databasePath }, 'Loja em Produção');
    const created = await call(port, '/product', {
      method: 'POST',
      apiKey,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Café', description: 'Torrado', price: 39.9, sku: 'CAFE', displayId: 'cafe' }),
    });
    expect(created.status).toBe(201);
    const product = (await created.json()) as { id: string };
    production.child.kill('SIGTERM');
    await within(production.exited, 'the production server to stop');

    // The reset the issue made: no NODE_ENV, the servers stopped. Refused, exit 1, nothing deleted.
    const reset = await keysCommand(databasePath, ['reset', '--company', companyId]);
    expect(reset.code).toBe(1);
    expect(reset.stderr).toMatch(
      /^This database is recorded as a production deployment's, .* Nothing was deleted\. .*npm run keys -- mode development --change\n$/,
    );

    // A development start on it refuses, saying how to start it and how to change the mode on purpose.
    const development = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(await freePort()) });
    expect((await within(development.exited, 'the development server to exit')).code).toBe(2);
    expect(development.stderr()).toBe(
      "Could not start: this database is recorded as a production deployment's, and this server would run in development (NODE_ENV is not production). " +
        "Start it with NODE_ENV=production. To change the database's recorded mode on purpose, stop every server on it and run: npm run keys -- mode development --change\n",
    );
    expect(development.stdout()).not.toMatch(/sk_[a-z0-9]{24}_/);

    // Recording another mode without --change is refused; nothing changes.
    const noChange = await keysCommand(databasePath, ['mode', 'development']);
    expect(noChange.code).toBe(1);
    expect((await keysCommand(databasePath, ['mode'])).stdout).toBe('production\n');

    // The product is still there, served by production again.
    const again = startBuiltServer({ NODE_ENV: 'production', DATABASE_PATH: databasePath, PORT: String(port) });
    await listening(again);
    expect((await call(port, `/product/${product.id}`, { apiKey })).status).toBe(200);
    again.child.kill('SIGTERM');
    await within(again.exited, 'the production server to stop');

    // Changed on purpose: a development server starts, and the reset works.
    const changed = await keysCommand(databasePath, ['mode', 'development', '--change']);
    expect(changed.code, changed.stderr).toBe(0);
    expect(changed.stdout).toMatch(/^Changed: this database is now a development deployment's \(it was production's\)/);
    const resetNow = await keysCommand(databasePath, ['reset', '--company', companyId]);
    expect(resetNow.code, resetNow.stderr).toBe(0);
    expect(resetNow.stdout).toContain('deleted 0 charges, 0 clients, 1 products');
  });

  test('a database no server has recorded: keys reset refuses; keys mode development records it, then it resets', async () => {
    const databasePath = join(folder(), 'unrecorded', 'payments.db');
    const { companyId } = await createCompanyKey({ DATABASE_PATH: databasePath }, 'Loja Nova');
    expect((await keysCommand(databasePath, ['mode'])).stdout).toMatch(/^No deployment mode is recorded in this database yet/);
    const refused = await keysCommand(databasePath, ['reset', '--company', companyId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^This database has no deployment mode recorded yet .* Nothing was deleted\. .*npm run keys -- mode development\n$/);
    const recorded = await keysCommand(databasePath, ['mode', 'development']);
    expect(recorded.stdout).toBe("Recorded: this database is a development deployment's.\n");
    expect((await keysCommand(databasePath, ['reset', '--company', companyId])).code).toBe(0);
    // A production start on the development database refuses.
    const production = startBuiltServer({ NODE_ENV: 'production', DATABASE_PATH: databasePath, PORT: String(await freePort()) });
    expect((await within(production.exited, 'the production server to exit')).code).toBe(2);
    expect(production.stderr()).toMatch(/^Could not start: this database is recorded as a development deployment's, and this server would run in production/);
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
    const lines = running
      .stderr()
      .split('\n')
      .filter((line) => line.trim() !== '');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(want.variable);
    expect(running.stderr()).not.toContain('    at ');
    // A database password is never repeated.
    expect(running.stderr()).not.toContain('hunter2');
    expect(running.stdout()).not.toMatch(/sk_[a-z0-9]{24}_/);
  });
});

/** A plain TCP server holding a port, as another program would. */
async function occupy(port: number): Promise<Server> {
  const holder = createServer();
  await new Promise<void>((resolve, reject) => holder.once('error', reject).listen(port, '127.0.0.1', resolve));
  return holder;
}

/** The non-empty lines of an output. */
const linesOf = (output: string) => output.split('\n').filter((line) => line.trim() !== '');

/** The one line on stderr of a start that found its port taken, and nothing else anywhere. */
async function expectPortInUse(running: Running, port: number): Promise<void> {
  expect(await within(running.exited, 'the server on a port in use to exit')).toEqual({ code: 2, signal: null });
  expect(linesOf(running.stderr())).toEqual([`Could not start: port ${port} on 127.0.0.1 is already in use (set PORT to another port).`]);
  expect(running.stdout()).toBe('');
}

describe('npm start on a port in use', () => {
  test('on an empty database: one line, exit 2, and the database is not created', async () => {
    const databasePath = join(folder(), 'port-in-use', 'payments.db');
    const port = await freePort();
    const holder = await occupy(port);
    try {
      await expectPortInUse(startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(port) }), port);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    // Not even opened: no file, no folder (on PostgreSQL the schema stands in for the file).
    if (testEngine === 'sqlite') expect(existsSync(join(folder(), 'port-in-use'))).toBe(false);

    // Nothing was written: the first start that gets the port finds the database empty.
    const next = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(port) });
    await listening(next);
    expect(next.stdout()).toContain('Empty database: created the development company');
    expect(next.stdout()).toMatch(KEY_PATTERN);
  });

  test('a second npm start beside a running one: one line, exit 2, the first keeps serving its key', async () => {
    const vars = { DATABASE_PATH: join(folder(), 'second-start', 'payments.db'), PORT: String(await freePort()) };
    const first = startBuiltServer(vars);
    await listening(first);
    const apiKey = KEY_PATTERN.exec(first.stdout())![0];

    await expectPortInUse(startBuiltServer(vars), Number(vars.PORT));

    const listed = await call(Number(vars.PORT), '/client', { apiKey });
    expect(listed.status).toBe(200);
    expect(linesOf(first.stdout()).filter((line) => KEY_PATTERN.test(line) && !line.startsWith('Try:'))).toEqual([`  ${apiKey}`]);
  });
});

describe.skipIf(!haveTerminal('the start-up terminal tests'))('npm start on a terminal', () => {
  test('plain lines with the URL and the docs URL; on a database with companies, how to make a key', async () => {
    const databasePath = join(folder(), 'terminal', 'payments.db');
    const port = await freePort();
    const vars = { DATABASE_PATH: databasePath, PORT: String(port) };
    const where = `Pix sandbox listening on http://localhost:${port}  (docs: http://localhost:${port}/docs/)`;

    // Empty database: the key banner, then where to click; no hint (the key is right there).
    const first = startBuiltServerOnTerminal(vars);
    await listening(first);
    const firstLines = first.stdout().split('\n');
    expect(firstLines).toContain(where);
    expect(firstLines.findIndex((line) => KEY_PATTERN.test(line))).toBeLessThan(firstLines.indexOf(where));
    expect(first.stdout()).not.toContain('npm run keys');
    // The JSON line stays, for whoever parses it.
    expect(logLine(first, 'listening')).toMatchObject({ url: `http://localhost:${port}` });
    first.child.kill('SIGTERM');
    expect(await within(first.exited, 'the first server to exit on SIGTERM'), first.stderr() + first.stdout().slice(-1500)).toEqual({ code: 0, signal: null });

    // The database already has a company: no key, but the command that makes one, for this database.
    const second = startBuiltServerOnTerminal(vars);
    await listening(second);
    expect(second.stdout()).not.toMatch(KEY_PATTERN);
    const lines = second.stdout().split('\n');
    expect(lines).toContain(where);
    const hint = lines.find((line) => line.includes('npm run keys -- create --company "Name"'));
    expect(hint, second.stdout()).toContain('already has companies');
    expect(hint).toContain(testEngine === 'sqlite' ? `DATABASE_PATH=${databasePath} npm run keys` : 'with the same DATABASE_URL');
  });

  test('a port in use is the same one line on a terminal', async () => {
    const port = await freePort();
    const holder = await occupy(port);
    try {
      const running = startBuiltServerOnTerminal({ DATABASE_PATH: join(folder(), 'terminal-in-use', 'payments.db'), PORT: String(port) });
      expect(await within(running.exited, 'the server on a port in use to exit')).toEqual({ code: 2, signal: null });
      // On a terminal, stderr and stdout are one stream.
      expect(linesOf(running.stdout())).toEqual([`Could not start: port ${port} on 127.0.0.1 is already in use (set PORT to another port).`]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});

describe('GET / of a running server', () => {
  test('redirects to the docs, without a key, for fetch and curl alike', async () => {
    const port = await freePort();
    const running = startBuiltServer({ DATABASE_PATH: join(folder(), 'root', 'payments.db'), PORT: String(port) });
    await listening(running);

    for (const method of ['GET', 'HEAD']) {
      const response = await call(port, '/', { method, redirect: 'manual' });
      expect(response.status, method).toBe(302);
      expect(response.headers.get('location'), method).toBe('/docs/');
    }
    const followed = await call(port, '/');
    expect(followed.url).toBe(`http://127.0.0.1:${port}/docs/`);
    expect(followed.status).toBe(200);
    expect(followed.headers.get('content-type')).toMatch(/^text\/html/);

    if (spawnSync('curl', ['--version'], { stdio: 'ignore' }).status !== 0) return;
    const head = execFileSync('curl', ['-sI', `http://127.0.0.1:${port}/`], { encoding: 'utf8' });
    expect(head).toMatch(/^HTTP\/1\.1 302 /);
    expect(head).toMatch(/^location: \/docs\/\r$/im);
    const landed = execFileSync('curl', ['-sL', '-o', '/dev/null', '-w', '%{http_code} %{url_effective}', `http://127.0.0.1:${port}/`], { encoding: 'utf8' });
    expect(landed).toBe(`200 http://127.0.0.1:${port}/docs/`);
  });
});

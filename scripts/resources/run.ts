/**
 * `npm run -s resources -- <figure> [options]`: the figures of issue 34, measured as an attacker
 * would, against the compiled server in production mode (dist/server/main.mjs, built first when
 * it is missing) on a temporary database on 127.0.0.1, its companies made with the keys command.
 * Prints each figure's numbers and PASS or FAIL, exits 1 on a FAIL, and removes what it made.
 *
 *   list       20 connections send `GET /client` for a company of 20,000 clients whose long text
 *              fields are at their bounds and never read the answer: the server's RSS growth
 *              (< 256 MB) and another company's small GET meanwhile (< 1 s each).
 *   half-open  1,000 connections send `GET / HTTP/1.1\r\nHost: x\r\nX-A: ` and stop, keeping their
 *              side open: the server's descriptors are back within HEADERS_TIMEOUT_MS + 5 s, and
 *              another client's GET succeeds meanwhile.
 *   deep       a 1 MB body nested 500,000 deep and 1 MB of unknown fields: each answered within
 *              50 ms median; while four connections send them for 5 s, another company's GETs
 *              stay at p50 < 50 ms and max < 250 ms.
 *   all        the three, one after the other.
 *
 * Options: `--postgres <url>` runs the server on a fresh schema of that PostgreSQL database
 * (dropped at the end) instead of a SQLite file; `--server <path>` runs another build of the
 * server's main.mjs (say, an older commit's, for a before figure). Linux only (RSS and
 * descriptors are read from /proc).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPeakRss } from '../bench/rss.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = join(root, 'node_modules', '.bin', 'tsx');

interface Options {
  figures: string[];
  postgres: string | undefined;
  server: string;
}

function options(argv: string[]): Options {
  const figures: string[] = [];
  let postgres: string | undefined;
  let server = join(root, 'dist', 'server', 'main.mjs');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--postgres') postgres = argv[++i];
    else if (arg === '--server') server = argv[++i] ?? server;
    else if (['list', 'half-open', 'deep'].includes(arg)) figures.push(arg);
    else if (arg === 'all') figures.push('list', 'half-open', 'deep');
    else {
      console.error(`Unknown argument ${arg}. Usage: npm run -s resources -- list|half-open|deep|all [--postgres <url>] [--server <main.mjs>]`);
      process.exit(2);
    }
  }
  if (figures.length === 0) figures.push('list', 'half-open', 'deep');
  return { figures, postgres, server };
}

/** A free port on the loopback. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

interface Database {
  vars: Record<string, string>;
  drop(): void;
}

/** A SQLite file in a temporary folder, or a fresh schema of the PostgreSQL database. */
function database(postgres: string | undefined, folder: string): Database {
  if (postgres === undefined) return { vars: { DATABASE_PATH: join(folder, 'payments.db') }, drop: () => {} };
  const schema = `resources_${process.pid}_${Date.now()}`;
  const psql = (sql: string) => execFileSync('psql', [postgres, '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql], { stdio: 'pipe' });
  psql(`CREATE SCHEMA ${schema}`);
  const url = new URL(postgres);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { vars: { DATABASE_URL: url.toString() }, drop: () => psql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`) };
}

interface Server {
  child: ChildProcess;
  base: string;
  port: number;
  stop(): Promise<void>;
}

/** The compiled server in production mode on a free loopback port; resolves once it answers. */
async function startServer(path: string, vars: Record<string, string>): Promise<Server> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    LOG_LEVEL: 'warn',
    ...vars,
  };
  const child = spawn(process.execPath, [path], { cwd: root, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`the server exited (${child.exitCode}):\n${stderr}`);
    try {
      await fetch(`${base}/`, { redirect: 'manual' });
      break;
    } catch {
      if (i > 300) throw new Error(`the server did not answer within 30 s:\n${stderr}`);
      await sleep(100);
    }
  }
  return {
    child,
    base,
    port,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
      }),
  };
}

/** A company and its key, made with the keys command on the server's database. */
function makeCompany(vars: Record<string, string>, name: string): string {
  const out = execFileSync(tsx, ['server/cli/keys.ts', 'create', '--company', name, '--json'], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...vars },
    encoding: 'utf8',
  });
  return (JSON.parse(out) as { apiKey: string }).apiKey;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const ms = (value: number) => `${value.toFixed(1)} ms`;

function rssMb(pid: number): number {
  const match = /^VmRSS:\s*(\d+)\s*kB/m.exec(readProc(pid, 'status'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

function readProc(pid: number, file: string): string {
  return execFileSync('cat', [`/proc/${pid}/${file}`], { encoding: 'utf8' });
}

function descriptors(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** One GET's time to its whole answer, and its status. */
async function timedGet(url: string, apiKey: string): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url, { headers: { 'X-API-KEY': apiKey } });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

interface Result {
  figure: string;
  lines: string[];
  pass: boolean;
}

/** A client with every long text field at its bound (the contract's maxLength, 255), in 4-byte characters. */
function clientAtBounds(i: number): Record<string, string> {
  const long = (prefix: string) => `${prefix}${i} ${'😀'.repeat(240)}`;
  return {
    name: long('Cliente '),
    status: 'ACTIVE',
    cpfCnpj: '52998224725',
    email: `c${i}@example.com`,
    phone: '11987654321',
    postalCode: '01310100',
    address: long('Rua '),
    district: long('Bairro '),
    number: '1000',
    line1: long('Apto '),
  };
}

async function figureList(opts: Options, folder: string): Promise<Result> {
  const db = database(opts.postgres, folder);
  // Seeding 20,000 clients over HTTP needs no quota; the figure is memory, not the rate limit. An
  // idle timeout of 10 s, so that the figure sees the readers' connections dropped.
  const idleMs = 10_000;
  const vars = { ...db.vars, RATE_LIMIT_REQUESTS: '0' };
  const big = makeCompany(vars, 'Resources big list');
  const small = makeCompany(vars, 'Resources small');
  const server = await startServer(opts.server, { ...vars, IDLE_TIMEOUT_MS: String(idleMs) });
  try {
    const clients = 20_000;
    let next = 0;
    let refused = '';
    const seed = async () => {
      for (let i = next++; i < clients; i = next++) {
        const response = await fetch(`${server.base}/client`, {
          method: 'POST',
          headers: { 'X-API-KEY': big, 'Content-Type': 'application/json' },
          body: JSON.stringify(clientAtBounds(i)),
        });
        if (response.status !== 201) refused = `${response.status} ${await response.text()}`;
        else await response.arrayBuffer();
        if (refused) return;
      }
    };
    const seeding = performance.now();
    await Promise.all(Array.from({ length: 8 }, seed));
    if (refused) throw new Error(`seeding a client was refused: ${refused.slice(0, 400)}`);
    await fetch(`${server.base}/client`, {
      method: 'POST',
      headers: { 'X-API-KEY': small, 'Content-Type': 'application/json' },
      body: JSON.stringify(clientAtBounds(0)),
    });
    const one = await (await fetch(`${server.base}/client?limit=1`, { headers: { 'X-API-KEY': big } })).text();
    const seeded = `seeded ${clients} clients in ${((performance.now() - seeding) / 1000).toFixed(1)} s, ~${(Buffer.byteLength(one) / 1024).toFixed(1)} KB each as listed`;
    // The seeding's kept-alive connections close (KEEP_ALIVE_TIMEOUT_MS, 5 s) before the counts start.
    await sleep(6_000);
    const before = rssMb(server.child.pid!);
    const peak = startPeakRss(server.child.pid!);
    // 20 readers that take the status line and stop reading.
    const heads: string[] = [];
    const sockets: Socket[] = [];
    const opened = performance.now();
    const descriptorsBefore = descriptors(server.child.pid!);
    for (let i = 0; i < 20; i++) {
      const socket = connect({ port: server.port, host: '127.0.0.1' });
      socket.on('error', () => {});
      socket.once('data', (chunk: Buffer) => {
        heads.push(chunk.toString('latin1').slice(0, 12));
        socket.pause();
      });
      socket.write(`GET /client HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${big}\r\n\r\n`);
      sockets.push(socket);
    }
    const latencies: number[] = [];
    const statuses = new Set<number>();
    const until = performance.now() + 10_000;
    while (performance.now() < until) {
      const { ms: took, status } = await timedGet(`${server.base}/client`, small);
      latencies.push(took);
      statuses.add(status);
      await sleep(200);
    }
    const after = rssMb(server.child.pid!);
    const peakMb = peak.stop();
    // The readers that got a list hold it until the idle timeout drops their connections (seen on
    // the server's side: a paused client does not notice).
    const held = descriptors(server.child.pid!) - descriptorsBefore;
    let left = held;
    // Nothing moves on them once the kernel's buffers stop growing, some seconds after they asked.
    while (left > 1 && performance.now() - opened < idleMs + 15_000) {
      await sleep(200);
      left = descriptors(server.child.pid!) - descriptorsBefore;
    }
    const droppedAt = (performance.now() - opened) / 1000;
    const afterIdle = rssMb(server.child.pid!);
    for (const socket of sockets) socket.destroy();
    const growth = peakMb - before;
    const maxOther = Math.max(...latencies);
    const answered = heads.reduce<Record<string, number>>((counts, head) => {
      const status = head.slice(9, 12);
      counts[status] = (counts[status] ?? 0) + 1;
      return counts;
    }, {});
    const pass = growth < 256 && maxOther < 1_000 && [...statuses].every((s) => s === 200) && left <= 1;
    return {
      figure: `list (${opts.postgres ? 'PostgreSQL' : 'SQLite'})`,
      pass,
      lines: [
        seeded,
        `20 non-reading GET /client answered: ${JSON.stringify(answered)}`,
        `server RSS before ${before.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB, after 10 s ${after.toFixed(0)} MB: growth ${growth.toFixed(0)} MB (must be < 256 MB)`,
        `the readers' connections still open on the server after 10 s: ${held}; ${left <= 1 ? `all closed by ${droppedAt.toFixed(1)} s` : `${left} still open at ${droppedAt.toFixed(1)} s`} (IDLE_TIMEOUT_MS ${idleMs / 1000} s of nothing moving; must be within it + 15 s of asking); RSS then ${afterIdle.toFixed(0)} MB`,
        `another company's GET /client meanwhile: ${latencies.length} requests, p50 ${ms(percentile(latencies, 50))}, max ${ms(maxOther)} (must be < 1000 ms), statuses ${[...statuses].join(',')}`,
      ],
    };
  } finally {
    await server.stop();
    db.drop();
  }
}

async function figureHalfOpen(opts: Options, folder: string): Promise<Result> {
  const db = database(opts.postgres, folder);
  const key = makeCompany(db.vars, 'Resources other client');
  const headersTimeoutMs = 10_000;
  const server = await startServer(opts.server, { ...db.vars, HEADERS_TIMEOUT_MS: String(headersTimeoutMs) });
  const pid = server.child.pid!;
  try {
    await timedGet(`${server.base}/client`, key);
    const before = descriptors(pid);
    const sockets: Socket[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from(
        { length: 1_000 },
        () =>
          new Promise<void>((resolve) => {
            const socket = connect({ port: server.port, host: '127.0.0.1', allowHalfOpen: true });
            socket.on('error', () => {});
            socket.on('data', () => {});
            socket.once('connect', () => {
              socket.write('GET / HTTP/1.1\r\nHost: x\r\nX-A: ');
              resolve();
            });
            sockets.push(socket);
          }),
      ),
    );
    let peak = descriptors(pid);
    let releasedAt: number | undefined;
    const others: number[] = [];
    const deadline = started + headersTimeoutMs + 15_000;
    let lastOther = 0;
    let afterThree: number | undefined;
    while (performance.now() < deadline) {
      const now = descriptors(pid);
      peak = Math.max(peak, now);
      if (afterThree === undefined && performance.now() - started >= 3_000) afterThree = now;
      if (now <= before + 5) {
        releasedAt = performance.now() - started;
        break;
      }
      if (performance.now() - lastOther > 2_000) {
        lastOther = performance.now();
        // Another client, from another loopback address.
        others.push(await otherGet(server.port, key));
      }
      await sleep(100);
    }
    others.push(await otherGet(server.port, key));
    const held = sockets.filter((s) => !s.destroyed).length;
    for (const socket of sockets) socket.destroy();
    const bound = headersTimeoutMs + 5_000;
    const pass = releasedAt !== undefined && releasedAt <= bound && others.every((status) => status === 200);
    return {
      figure: `half-open (${opts.postgres ? 'PostgreSQL' : 'SQLite'})`,
      pass,
      lines: [
        `server descriptors before ${before}, peak ${peak} with 1,000 half-open connections, ${afterThree ?? 'n/a'} after 3 s (the client kept ${held} of its sockets open)`,
        releasedAt === undefined
          ? `not released within ${((headersTimeoutMs + 15_000) / 1000).toFixed(0)} s (must be within ${bound / 1000} s)`
          : `released (back to ≤ ${before + 5}) after ${(releasedAt / 1000).toFixed(1)} s (must be within ${bound / 1000} s)`,
        `another client's GET /client meanwhile: ${others.join(', ')}`,
      ],
    };
  } finally {
    await server.stop();
    db.drop();
  }
}

/** A GET /client from 127.0.0.2, over a connection of its own: its status (0 if it failed). */
function otherGet(port: number, key: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.2' });
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(0);
    }, 5_000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
    });
    socket.on('error', () => {
      clearTimeout(timer);
      resolve(0);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Number(text.slice(9, 12)) || 0);
    });
    socket.write(`GET /client HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${key}\r\nConnection: close\r\n\r\n`);
  });
}

async function figureDeep(opts: Options, folder: string): Promise<Result> {
  const db = database(opts.postgres, folder);
  // The attacker is not slowed by its quota (it could hold many keys): the figure is CPU per body.
  const vars = { ...db.vars, RATE_LIMIT_REQUESTS: '0' };
  const attacker = makeCompany(vars, 'Resources attacker');
  const other = makeCompany(vars, 'Resources other company');
  const server = await startServer(opts.server, vars);
  try {
    const deep = `{"url":"https://a.invalid/","name":"n","events":${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
    const wideFields: string[] = [];
    let wideLength = 60;
    for (let i = 0; wideLength < 1_000_000; i++) {
      const field = `"unknown_field_${i}":1`;
      wideFields.push(field);
      wideLength += field.length + 1;
    }
    const wide = `{"url":"https://a.invalid/","name":"n","events":["charge.paid"],${wideFields.join(',')}}`;
    const send = async (body: Uint8Array) => {
      const started = performance.now();
      const response = await fetch(`${server.base}/webhook`, {
        method: 'POST',
        headers: { 'X-API-KEY': attacker, 'Content-Type': 'application/json' },
        body,
      });
      await response.arrayBuffer();
      return { ms: performance.now() - started, status: response.status };
    };
    const lines: string[] = [];
    let pass = true;
    // Encoded once: the figure is the server's time, not the client's encoding of a megabyte.
    for (const [name, body] of [
      ['1 MB nested 500,000 deep', Buffer.from(deep)],
      ['1 MB of unknown fields', Buffer.from(wide)],
    ] as const) {
      const times: number[] = [];
      const statuses = new Set<number>();
      for (let i = 0; i < 20; i++) {
        const { ms: took, status } = await send(body);
        times.push(took);
        statuses.add(status);
      }
      const median = percentile(times, 50);
      pass &&= median < 50;
      lines.push(
        `${name} (${(Buffer.byteLength(body) / 1e6).toFixed(2)} MB): answered ${[...statuses].join(',')} in median ${ms(median)} (must be < 50 ms), max ${ms(Math.max(...times))}`,
      );
      // Four connections sending it for 5 s; another company's GET every 20 ms meanwhile.
      const until = performance.now() + 5_000;
      let sent = 0;
      const attack = async () => {
        while (performance.now() < until) {
          await send(body);
          sent++;
        }
      };
      const attacking = Promise.all(Array.from({ length: 4 }, attack));
      const latencies: number[] = [];
      while (performance.now() < until) {
        latencies.push((await timedGet(`${server.base}/client?limit=1`, other)).ms);
        await sleep(20);
      }
      await attacking;
      const p50 = percentile(latencies, 50);
      const max = Math.max(...latencies);
      pass &&= p50 < 50 && max < 250;
      lines.push(
        `  while 4 connections sent it for 5 s (${sent} bodies): another company's GET p50 ${ms(p50)} (must be < 50 ms), max ${ms(max)} (must be < 250 ms), ${latencies.length} requests`,
      );
    }
    return { figure: `deep (${opts.postgres ? 'PostgreSQL' : 'SQLite'})`, pass, lines };
  } finally {
    await server.stop();
    db.drop();
  }
}

async function main(): Promise<void> {
  const opts = options(process.argv.slice(2));
  if (!existsSync(opts.server)) {
    console.log('Building the server (npm run build:server)…');
    execFileSync(process.execPath, [join(root, 'scripts', 'build-server.mjs')], { cwd: root, stdio: 'inherit' });
  }
  const folder = mkdtempSync(join(tmpdir(), 'pix-resources-'));
  const figures = { list: figureList, 'half-open': figureHalfOpen, deep: figureDeep } as const;
  let failed = false;
  try {
    for (const name of opts.figures) {
      const result = await figures[name as keyof typeof figures](opts, folder);
      console.log(`${result.pass ? 'PASS' : 'FAIL'} ${result.figure}`);
      for (const line of result.lines) console.log(`  ${line}`);
      failed ||= !result.pass;
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error: unknown) => {
  console.error(`resources: ${(error as Error).message}`);
  process.exit(2);
});

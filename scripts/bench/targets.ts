/**
 * The processes under test: the reference server (on SQLite, and on PostgreSQL when the bench is
 * given one), the bare Hono limit and the Prism mock. Each is
 * spawned with `node` directly (never through npm), so the pid we hold is the server's own and
 * /proc/<pid> describes it. Their output goes straight to a log file in a temporary folder: piping
 * it through the bench process would make the process that runs autocannon spend CPU on it.
 * Every child and folder is registered, and so is anything made elsewhere (a PostgreSQL schema),
 * so `cleanUpEverything` can end or undo them whatever happened.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configVariables } from '../../server/config.js';
import { startArguments } from '../../server/start-command.js';
import { HarnessError } from './harness-error.js';
import { freePort } from '../../lib/net/free-port.js';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** How long a target may take to answer its first request before the run gives up. */
export const READY_TIMEOUT_MS = 20_000;

export type TargetName = 'reference' | 'referencePostgres' | 'bare' | 'prism' | 'mockFront';

export const targetLabels: Record<TargetName, string> = {
  reference: 'reference server',
  referencePostgres: 'reference server on PostgreSQL',
  bare: 'bare Hono (limit)',
  prism: 'Prism mock',
  mockFront: 'mock through its front (npm run mock)',
};

export interface Target {
  name: TargetName;
  child: ChildProcess;
  pid: number;
  baseUrl: string;
  /** The child's stdout and stderr. */
  logPath: string;
  /** Set once the child has exited. */
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  exited: Promise<void>;
}

/** Where a reference server keeps its data: a SQLite file, or a PostgreSQL URL (which may name a schema). */
export type ReferenceDatabase = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

const liveTargets = new Set<Target>();
const tempDirs = new Set<string>();
/** What was made outside this machine's processes and folders, each with its synchronous undoing. */
const madeElsewhere = new Map<string, () => void>();

/**
 * Registers something made outside the processes and folders (a PostgreSQL schema) for
 * `cleanUpEverything` to undo; `undo` must be synchronous, as in an exit handler. Returns the
 * function that forgets it again, once it has been undone in the normal course of the run.
 */
export function registerMadeElsewhere(what: string, undo: () => void): () => void {
  madeElsewhere.set(what, undo);
  return () => madeElsewhere.delete(what);
}

export function makeTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  tempDirs.delete(dir);
}

/** Compiles dist/server/main.mjs, as `npm start` does before it runs the server. */
export function buildReference(): void {
  try {
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build-server.mjs')], { cwd: repoRoot, stdio: 'pipe' });
  } catch (error) {
    const output = error as { stdout?: Buffer; stderr?: Buffer; message: string };
    throw new HarnessError(`could not build the reference server:\n${output.stderr?.toString() ?? ''}${output.stdout?.toString() ?? ''}${output.message}`);
  }
}

function spawnTarget(name: TargetName, args: string[], env: NodeJS.ProcessEnv, port: number, logPath: string): Target {
  const log = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    // detached: its own process group, so a Ctrl+C on the terminal reaches only us, and we end
    // the whole group (Prism included, whatever it spawns) on the way out.
    child = spawn(process.execPath, args, { cwd: repoRoot, env, detached: true, stdio: ['ignore', log, log] });
  } finally {
    closeSync(log);
  }
  if (child.pid === undefined) throw new HarnessError(`could not start the ${targetLabels[name]} (${args.join(' ')})`);
  const target: Target = { name, child, pid: child.pid, baseUrl: `http://127.0.0.1:${port}`, logPath, exit: undefined, exited: Promise.resolve() };
  target.exited = new Promise((resolve) => {
    child.once('error', () => resolve());
    child.once('exit', (code, signal) => {
      target.exit = { code, signal };
      liveTargets.delete(target);
      resolve();
    });
  });
  liveTargets.add(target);
  return target;
}

/** The variables that point the server, or the keys CLI, at `database`. */
function databaseVariables(database: ReferenceDatabase): { DATABASE_PATH: string } | { DATABASE_URL: string } {
  return database.kind === 'sqlite' ? { DATABASE_PATH: database.path } : { DATABASE_URL: database.url };
}

/**
 * The reference server as `npm start` runs it, in production mode and with the log at its normal
 * level, on a fresh database (by default a SQLite file in `dir`; its log goes in `dir` too). None
 * of our own configuration variables leak into it; the per-key rate limit is off, or the load
 * would be answered with 429.
 */
export async function spawnReference(dir: string, database: ReferenceDatabase = { kind: 'sqlite', path: join(dir, 'bench.db') }): Promise<Target> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of configVariables) delete env[name];
  Object.assign(env, {
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    RATE_LIMIT_REQUESTS: '0',
    PORT: String(port),
    HOST: '127.0.0.1',
    ...databaseVariables(database),
  });
  const [name, log] = database.kind === 'sqlite' ? (['reference', 'reference.log'] as const) : (['referencePostgres', 'reference-postgres.log'] as const);
  return spawnTarget(name, startArguments(), env, port, join(dir, log));
}

/**
 * What the reference answered to one scenario: bare-hono.mjs sends it from memory at
 * `/same/<index>`, and for a write also once the request is on disk at `/durable/<index>`.
 */
export interface CapturedAnswer {
  method: string;
  /** The scenario writes (`Scenario.write`): bare Hono reads its body and serves it at `/durable/<index>` too. */
  write: boolean;
  status: number;
  contentType: string;
  bodyBase64: string;
}

/** Bare Hono with the captured answers; its database for the durable writes goes in `dir`. */
export async function spawnBareHono(dir: string, answersPath: string): Promise<Target> {
  const port = await freePort();
  const env = { ...process.env, PORT: String(port), BENCH_ANSWERS: answersPath, BENCH_DURABLE_DB: join(dir, 'bare-durable.db') };
  return spawnTarget('bare', [join(repoRoot, 'scripts', 'bench', 'bare-hono.mjs')], env, port, join(dir, 'bare-hono.log'));
}

/** Prism's CLI entry, resolved as scripts/mock.mjs resolves it. */
function prismBin(): string {
  const require = createRequire(import.meta.url);
  const packagePath = require.resolve('@stoplight/prism-cli/package.json');
  const { bin } = JSON.parse(readFileSync(packagePath, 'utf8')) as { bin: string | Record<string, string> };
  const relative = typeof bin === 'string' ? bin : bin.prism;
  if (relative === undefined) throw new HarnessError(`no "prism" bin in ${packagePath}`);
  return join(dirname(packagePath), relative);
}

/** Prism as `npm run mock` starts it (same arguments), without the wrapper script in between. */
export async function spawnPrism(dir: string): Promise<Target> {
  const spec = join(repoRoot, 'generated', 'openapi.yaml');
  if (!existsSync(spec)) throw new HarnessError(`${spec} not found - run \`npm run bundle\` first`);
  const port = await freePort();
  const args = [prismBin(), 'mock', spec, '--host', '127.0.0.1', '--port', String(port), '--errors'];
  return spawnTarget('prism', args, { ...process.env }, port, join(dir, 'prism.log'));
}

/**
 * The mock as integrators run it (`npm run mock`: scripts/mock.mjs, which runs Prism with the same
 * arguments as `spawnPrism`'s and the front inside Prism's process), on a free port. Its pid is the
 * script's process; Prism is its child, in its process group, and ends with it.
 */
export async function spawnMockFront(dir: string): Promise<Target> {
  const port = await freePort();
  const env = { ...process.env, MOCK_HOST: '127.0.0.1', MOCK_PORT: String(port), MOCK_SPEC: '' };
  return spawnTarget('mockFront', [join(repoRoot, 'scripts', 'mock.mjs')], env, port, join(dir, 'mock-front.log'));
}

/** The end of a target's log, for error messages. */
export function logTail(target: Target, chars = 2_000): string {
  try {
    const text = readFileSync(target.logPath, 'utf8');
    return text.length > chars ? `...${text.slice(-chars)}` : text;
  } catch {
    return '(no log)';
  }
}

function exitedError(target: Target, waitingFor: string): HarnessError {
  const how = target.exit?.signal ?? `exit code ${target.exit?.code ?? '?'}`;
  return new HarnessError(`the ${targetLabels[target.name]} exited (${how}) while we waited for ${waitingFor}; its log:\n${logTail(target)}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Polls `attempt` every `pollMs` until it returns a value; `undefined` or a thrown error (a refused
 * connection while the target starts) mean "not yet". Fails once the target exits or
 * `READY_TIMEOUT_MS` have passed.
 */
export async function pollUntil<T>(target: Target, waitingFor: string, pollMs: number, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  let lastProblem = 'nothing yet';
  for (;;) {
    if (target.exit) throw exitedError(target, waitingFor);
    try {
      const value = await attempt();
      if (value !== undefined) return value;
      lastProblem = 'not the answer expected yet';
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause;
      lastProblem = cause?.code ?? (error as Error).message;
    }
    if (performance.now() > deadline) {
      throw new HarnessError(
        `the ${targetLabels[target.name]} did not provide ${waitingFor} within ${READY_TIMEOUT_MS / 1000} s (last: ${lastProblem}); its log:\n${logTail(target)}`,
      );
    }
    await sleep(pollMs);
  }
}

/** Resolves once the target answers any HTTP request at all. */
export async function waitUntilAnswering(target: Target): Promise<void> {
  await pollUntil(target, 'a first answer', 20, async () => {
    const response = await fetch(`${target.baseUrl}/`);
    await response.arrayBuffer();
    return true;
  });
}

/** A new company in the server's database, made as an operator makes one, and its key. */
export function createCompany(database: ReferenceDatabase, name: string): string {
  const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
  let output: string;
  try {
    output = execFileSync(tsx, [join(repoRoot, 'server', 'cli', 'keys.ts'), 'create', '--company', name, '--json'], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_PATH: '', DATABASE_URL: '', ...databaseVariables(database) },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    throw new HarnessError(`the keys CLI failed: ${(error as { stderr?: string }).stderr ?? (error as Error).message}`);
  }
  const apiKey = /sk_[A-Za-z0-9_-]+/.exec(output)?.[0];
  if (!apiKey) throw new HarnessError(`the keys CLI printed no key: ${output.slice(0, 500)}`);
  return apiKey;
}

function signalGroup(target: Target, signal: NodeJS.Signals): void {
  try {
    process.kill(-target.pid, signal);
  } catch {
    // The group is gone. The pid alone is signalled only while the child has not exited: after
    // that the number may belong to someone else.
    if (target.exit) return;
    try {
      process.kill(target.pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** SIGTERM (the servers finish what is in progress), then SIGKILL if it takes more than 3 s. */
export async function stopTarget(target: Target): Promise<void> {
  if (target.exit) return;
  signalGroup(target, 'SIGTERM');
  const timer = setTimeout(() => signalGroup(target, 'SIGKILL'), 3_000);
  await target.exited;
  clearTimeout(timer);
  // The group may hold more than the leader (Prism's helpers): make sure none is left.
  signalGroup(target, 'SIGKILL');
}

export async function stopAllTargets(): Promise<void> {
  await Promise.all([...liveTargets].map(stopTarget));
}

/** The last resort (an error, SIGINT, `exit`): synchronous, so it also works in an exit handler. */
export function cleanUpEverything(): void {
  for (const target of liveTargets) signalGroup(target, 'SIGKILL');
  liveTargets.clear();
  // After the processes, which may be using it.
  for (const [what, undo] of madeElsewhere) {
    try {
      undo();
    } catch (error) {
      process.stderr.write(`[bench] could not remove ${what}: ${error instanceof Error ? error.message : String(error)}\n`);
    }
  }
  madeElsewhere.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}

/**
 * Child processes of the process tests (`tsx server/main.ts`, `tsx server/cli/keys.ts`). Each
 * child runs from the repository root in its own process group, on the parent's environment
 * without any of the server's configuration variables; `killAll` (after each test) kills the
 * group of every child still running, whatever happened.
 */
import { startArguments } from '../start-command.js';
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createHash } from 'node:crypto';
import { configVariables, type ConfigVariable } from '../config.js';
import { testDatabaseUrl, testEngine } from './engines.js';
import { freePort } from '../../lib/net/free-port.js';
import { API_KEY_IN_TEXT } from '../auth/api-keys.js';

export { freePort };

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');

/** Longest wait for a start, a response or an exit; a hang fails the test instead of blocking it. */
export const WAIT_MS = 20_000;

/**
 * Configuration of a child: only variables `loadConfig` reads, and Node's own trust store
 * addition (a test's self-signed certificate, as an operator adds a private CA).
 */
export type ChildVars = Partial<Record<ConfigVariable | 'NODE_EXTRA_CA_CERTS', string>>;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Running {
  child: ChildProcess;
  /** Everything the child wrote so far. */
  stdout: () => string;
  stderr: () => string;
  /** Settles once the child exited and its output is closed; rejects if it could not be started. */
  exited: Promise<Exit>;
}

const live = new Set<Running>();

/** The parent's environment without the variables `loadConfig` reads (they never leak into a child), plus `vars`. */
function childEnv(vars: ChildVars): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of configVariables) delete env[name];
  return { ...env, ...onTestEngine(vars) };
}

const schemasMade = new Set<string>();

/**
 * On the PostgreSQL run of the tests, a child given a SQLite file gets a schema of the test
 * database instead: one per file path, so that a restarted child finds its data again.
 */
function onTestEngine(vars: ChildVars): ChildVars {
  if (testEngine !== 'postgres' || vars.DATABASE_PATH === undefined || vars.DATABASE_URL !== undefined || !testDatabaseUrl) return vars;
  const schema = `p_${createHash('sha1').update(vars.DATABASE_PATH).digest('hex').slice(0, 20)}`;
  if (!schemasMade.has(schema)) {
    psql(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    schemasMade.add(schema);
  }
  const url = new URL(testDatabaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const { DATABASE_PATH: _file, ...rest } = vars;
  return { ...rest, DATABASE_URL: url.toString() };
}

/** Drops the PostgreSQL schemas children were given (after they are killed). */
export function dropChildSchemas(): void {
  for (const schema of schemasMade) psql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  schemasMade.clear();
}

function psql(sql: string): void {
  execFileSync('psql', [testDatabaseUrl!, '-q', '-v', 'ON_ERROR_STOP=1', '-c', sql], { stdio: 'pipe' });
}

/** Starts `tsx <script> <args>` in its own process group, so that the group can be killed. */
export function startTsx(script: string, args: readonly string[], vars: ChildVars): Running {
  return startChild(tsx, [script, ...args], vars);
}

/** Where commands are bundled for the tests: a folder per command and test process, two levels below the repository (as dist/conformance/cli.mjs is). */
const BUNDLED_PREFIX = 'test-command-';
/** A bundle folder's name: the prefix, the pid of the test process that made it, a random part. */
const BUNDLED_FOLDER = new RegExp(`^${BUNDLED_PREFIX}(\\d+)-`);
const bundles = new Map<string, string>();

/** Whether a process of this pid runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the commands bundled for the tests by processes that have ended (a global teardown: a
 * test process's own exit is not waited for, and a project's teardown may come while another
 * project's files still run theirs). Each folder is named after the process that made it.
 */
export function removeBundledCommands(): void {
  const dist = join(repoRoot, 'dist');
  if (!existsSync(dist)) return;
  for (const name of readdirSync(dist)) {
    const pid = BUNDLED_FOLDER.exec(name)?.[1];
    if (pid !== undefined && !alive(Number(pid))) rmSync(join(dist, name), { recursive: true, force: true });
  }
}

/**
 * A command of the repository bundled as its packages ship it (scripts/bundle-node.mjs: the
 * sandbox's `npx pix-keys`, QA's `npx pix-conformance`), once per test process, into dist/ (from
 * where it finds better-sqlite3 and the repository's package.json as the shipped bundles do);
 * removed when the test run ends. It starts in about a fifth of the time tsx takes to compile the
 * command at every run; the `npm run` forms themselves (tsx) are what `startTsx` runs.
 */
export function bundledCommand(entry: 'server/cli/keys.ts' | 'conformance/cli.ts'): string {
  let outfile = bundles.get(entry);
  if (outfile === undefined) {
    const dist = join(repoRoot, 'dist');
    mkdirSync(dist, { recursive: true });
    outfile = join(mkdtempSync(join(dist, `${BUNDLED_PREFIX}${process.pid}-`)), 'command.mjs');
    const bundle = `import { bundleNodeCommand } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'scripts', 'bundle-node.mjs')).href)};
await bundleNodeCommand({ entry: process.argv[1], outfile: process.argv[2], external: ['better-sqlite3'], sourcemap: false, validators: process.argv[3] || undefined });`;
    // The conformance command with its validators made ahead (scripts/conformance-validators.ts), as the
    // compiled server has its own; the package's build (scripts/build-conformance.mjs) has none: they
    // would take it past 1 MB packed, and QA's installed command compiles them (test/package/pack.test.ts runs it).
    const validators = entry === 'conformance/cli.ts' ? 'scripts/conformance-validators.ts' : '';
    execFileSync(process.execPath, ['--input-type=module', '-e', bundle, entry, outfile, validators], { cwd: repoRoot, stdio: 'pipe' });
    bundles.set(entry, outfile);
  }
  return outfile;
}

/** Runs the keys command (`keys <args>`, bundled: see `bundledCommand`) in its own process group, its output a pipe or a terminal. */
export function startKeys(args: readonly string[], vars: ChildVars, on: 'pipe' | 'terminal' = 'pipe'): Running {
  const words = [process.execPath, bundledCommand('server/cli/keys.ts'), ...args];
  return on === 'terminal' ? startOnTerminal(words, vars) : startChild(words[0]!, words.slice(1), vars);
}

/** Starts `node <args>` (this process's Node) in its own process group. */
export function startNode(args: readonly string[], vars: Record<string, string>): Running {
  return startChild(process.execPath, args, vars);
}

let built = false;

/**
 * Starts the server as `npm start` does: the compiled dist/server/main.mjs (built once per test
 * process with scripts/build-server.mjs), where start-up time matters.
 */
export function startBuiltServer(vars: ChildVars): Running {
  return startChild(process.execPath, builtServerArgs(), vars);
}

function builtServerArgs(): string[] {
  if (!built) {
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'build-server.mjs')], { cwd: repoRoot, stdio: 'pipe' });
    built = true;
  }
  return startArguments();
}

/** Whether `script` (util-linux) is here to give a child a terminal; prints a notice for `what` when it is not. */
export function haveTerminal(what: string): boolean {
  const found = spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!found) console.warn(`NOTICE: no \`script\` (util-linux) to give a server a terminal; ${what} are skipped.`);
  return found;
}

/**
 * The compiled server with a pseudo-terminal as its stdout, as after `npm start` typed in a
 * shell: `script` runs it and copies the terminal's output (CR LF line ends, made LF here) to
 * `stdout()`; its stderr goes to the terminal too.
 */
export function startBuiltServerOnTerminal(vars: ChildVars): Running {
  return startOnTerminal([process.execPath, ...builtServerArgs()], vars);
}

/** `tsx <script> <args>` on a pseudo-terminal, as typed in a shell (see `startBuiltServerOnTerminal`). */
export function startTsxOnTerminal(script: string, args: readonly string[], vars: ChildVars): Running {
  return startOnTerminal([tsx, script, ...args], vars);
}

/** The words `npm start` runs (node, its flags, the compiled server), built once per test process. */
export function builtServerCommand(): string[] {
  return [process.execPath, ...builtServerArgs()];
}

/** A word quoted for a POSIX shell. */
export function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A shell command line (`bash -c`) on a pseudo-terminal, as typed in a terminal: what is written
 * to the child's stdin is typed there (`\x03` is Ctrl-C, which the terminal turns into SIGINT for
 * every process of the command line).
 */
export function startShellOnTerminal(commandLine: string, vars: ChildVars): Running {
  const running = startChild('script', ['--quiet', '--return', '--flush', '--command', `bash -c ${shellWord(commandLine)}`, '/dev/null'], vars, 'pipe');
  return { ...running, stdout: () => running.stdout().replace(/\r\n/g, '\n') };
}

function startOnTerminal(words: readonly string[], vars: ChildVars): Running {
  const command = words.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const running = startChild('script', ['--quiet', '--return', '--flush', '--command', `exec ${command}`, '/dev/null'], vars);
  return { ...running, stdout: () => running.stdout().replace(/\r\n/g, '\n') };
}

function startChild(command: string, args: readonly string[], vars: ChildVars, stdin: 'ignore' | 'pipe' = 'ignore'): Running {
  const child = spawn(command, args, { cwd: repoRoot, env: childEnv(vars), detached: true, stdio: [stdin, 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  const running: Running = { child, stdout: () => out, stderr: () => err, exited };
  live.add(running);
  const forget = () => live.delete(running);
  exited.then(forget, forget);
  return running;
}

/** The promise's value, or a failure naming `what` once `ms` have passed. */
export async function within<T>(promise: Promise<T>, what: string, ms = WAIT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Kills the process group of every child still running and waits for each to exit. */
export async function killAll(): Promise<void> {
  for (const running of [...live]) {
    const pid = running.child.pid;
    if (pid !== undefined) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    }
    await within(running.exited, 'a killed child to exit');
    live.delete(running);
  }
}

/**
 * The hooks of a process test file: a temporary folder for its databases, removed at the end,
 * and every child killed after each test. Returns the folder's path (set from `beforeAll` on).
 */
export function useChildProcesses(folderPrefix: string): () => string {
  let folder: string | undefined;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), folderPrefix));
  });
  afterEach(killAll);
  afterAll(async () => {
    await killAll();
    if (folder !== undefined) rmSync(folder, { recursive: true, force: true });
    dropChildSchemas();
  });
  return () => {
    if (folder === undefined) throw new Error('the temporary folder is made in beforeAll');
    return folder;
  };
}

/**
 * The API key a development server printed on an empty database (the development company's);
 * throws with its output when there is none. A production server prints none: use `createCompanyKey`.
 */
export function printedKey(running: Pick<Running, 'stdout'>): string {
  const key = API_KEY_IN_TEXT.exec(running.stdout())?.[0];
  if (!key) throw new Error(`no API key printed:\n${running.stdout()}`);
  return key;
}

/**
 * A company and its API key made as an operator makes them: the keys command's `create --company
 * <name> --json` (`npm run keys --`, `npx pix-keys`; see `startKeys`) on the database of `vars` (the server's DATABASE_PATH or DATABASE_URL; on the
 * PostgreSQL run a DATABASE_PATH names the same schema as the server's). The way to a key for a
 * production server, which never makes a company itself.
 */
export async function createCompanyKey(vars: Pick<ChildVars, 'DATABASE_PATH' | 'DATABASE_URL'>, name = 'Acme'): Promise<{ companyId: string; apiKey: string }> {
  const keys = startKeys(['create', '--company', name, '--json'], vars);
  const exit = await within(keys.exited, `npm run keys -- create --company ${JSON.stringify(name)} to exit`);
  if (exit.code !== 0) throw new Error(`npm run keys failed (${exit.code ?? exit.signal}):\n${keys.stdout()}\n${keys.stderr()}`);
  return JSON.parse(keys.stdout()) as { companyId: string; apiKey: string };
}

/** Resolves once the server logged `listening`; rejects if it exits first or takes too long. */
export async function listening(running: Running): Promise<void> {
  const ready = new Promise<void>((resolve, reject) => {
    const check = () => {
      if (
        running
          .stdout()
          .split('\n')
          .some((line) => line.includes('"msg":"listening"'))
      ) {
        running.child.stdout!.off('data', check);
        resolve();
      }
    };
    running.child.stdout!.on('data', check);
    check();
    running.exited.then(
      (exit) => reject(new Error(`server exited (${exit.code ?? exit.signal}) before listening:\n${running.stdout()}\n${running.stderr()}`)),
      reject,
    );
  });
  await within(ready, 'the "listening" log line');
}

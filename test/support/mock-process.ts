import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { bundledContractPath } from '../../lib/contract/bundled.js';
import { freePort } from '../../server/test-support/processes.js';

const mockScript = fileURLToPath(new URL('../../scripts/mock.mjs', import.meta.url));

export function processGroupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits up to 5 s for a process group to end, then kills what is left of it; whether anything was left. */
export async function reapGroup(pid: number): Promise<boolean> {
  const until = Date.now() + 5_000;
  while (processGroupAlive(pid) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
  const leaked = processGroupAlive(pid);
  if (leaked) process.kill(-pid, 'SIGKILL');
  return leaked;
}

export interface RunningMock {
  url: string;
  /** The script's process (Prism is its child). */
  pid: number | undefined;
  /** Resolves with the script's exit code (or signal) once it exits. */
  exited: Promise<number | string | null>;
  output: () => string;
  /** Stops the script and Prism; resolves to whether anything of the group outlived SIGTERM. */
  stop: () => Promise<{ leaked: boolean }>;
}

/**
 * The shared mock's parent (`node -e`, arguments: the mock script, the owner's pid, the shared
 * mock's folder): runs the script, passes SIGTERM and SIGINT on, exits with it, and once the owner
 * is gone removes the folder and ends its process group (itself, the script, Prism).
 */
const ownerWatch = `
const { spawn } = require('node:child_process');
const { rmSync } = require('node:fs');
const [script, owner, folder] = process.argv.slice(1);
const child = spawn(process.execPath, [script], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
setInterval(() => {
  try { process.kill(Number(owner), 0); } catch { rmSync(folder, { recursive: true, force: true }); process.kill(0, 'SIGTERM'); }
}, 1000).unref();
`;

/**
 * `scripts/mock.mjs` (Prism on the bundled contract) on a free port, answering once it returns.
 * `shared`: the mock's output goes to `logFile`, not to this process, and the mock outlives this
 * process (the shared mock: its log lines into the pipe of a test process that has ended would end
 * it) until the run's teardown stops it, or until the process `ownerPid` is gone (a run stopped by
 * Ctrl-C has no teardown): it runs under a small parent in its group that checks once a second and
 * then removes `folder` too.
 */
export async function startMock({ shared }: { shared?: { folder: string; logFile: string; ownerPid: number } } = {}): Promise<RunningMock> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let piped = '';
  const log = shared === undefined ? undefined : openSync(shared.logFile, 'a');
  // Own process group (detached), so stop() ends the script and Prism together.
  const mock = spawn(process.execPath, shared === undefined ? [mockScript] : ['-e', ownerWatch, mockScript, String(shared.ownerPid), shared.folder], {
    detached: true,
    stdio: log === undefined ? ['ignore', 'pipe', 'pipe'] : ['ignore', log, log],
    env: { ...process.env, MOCK_PORT: String(port), MOCK_HOST: '127.0.0.1', MOCK_SPEC: bundledContractPath, FORCE_COLOR: '0' },
  });
  if (log !== undefined) closeSync(log);
  const output = () => (shared === undefined ? piped : readFileSync(shared.logFile, 'utf8'));
  const pid = mock.pid;
  // Safety net if the worker dies before stop(): a detached group would otherwise outlive it.
  if (pid !== undefined && shared === undefined) process.once('exit', () => processGroupAlive(pid) && process.kill(-pid, 'SIGKILL'));
  mock.stdout?.on('data', (chunk: Buffer) => (piped += chunk.toString()));
  mock.stderr?.on('data', (chunk: Buffer) => (piped += chunk.toString()));

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (mock.exitCode !== null || mock.signalCode !== null) throw new Error(`mock exited early (${mock.exitCode ?? mock.signalCode}):\n${output()}`);
    try {
      await fetch(`${url}/`, { signal: AbortSignal.timeout(1_000) });
      break; // any HTTP answer (Prism says 404 for `/`) means it is serving
    } catch {
      if (Date.now() > deadline) throw new Error(`mock did not answer on ${url} within 30 s:\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const exited = new Promise<number | string | null>((resolve) => mock.once('exit', (code, signal) => resolve(code ?? signal)));
  return {
    url,
    pid,
    exited,
    output,
    async stop() {
      if (pid === undefined) return { leaked: false };
      if (mock.exitCode === null && mock.signalCode === null) {
        const exited = once(mock, 'exit');
        process.kill(-pid, 'SIGTERM');
        const timer = setTimeout(() => processGroupAlive(pid) && process.kill(-pid, 'SIGKILL'), 5_000);
        await exited;
        clearTimeout(timer);
      }
      // Prism shares the script's process group: nothing of it may outlive the script.
      return { leaked: await reapGroup(pid) };
    },
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder where the run's shared mock says where it listens (test/support/global-setup.ts). */
    sharedMockFolder: string;
    /** The test run's own process (vitest's), which the shared mock does not outlive. */
    testRunPid: number;
  }
}

/** The shared mock's files in its folder: its address once it answers, its process group, why it failed to start, its output. */
export const sharedMockFiles = { url: 'url', pid: 'pid', failed: 'failed', starting: 'starting', log: 'mock.log' } as const;

/** The run's shared mock: where it listens, and what it has printed so far (its banner first). */
export interface SharedMock {
  url: string;
  output: () => string;
}

/**
 * The mock the files that only send it requests share, one per test run: each start costs about
 * five seconds of CPU (Prism's modules, the contract, the front), and five files asked for one
 * each. The first file to ask starts it; the others wait for its address. It is stopped when the
 * run ends (global-setup.ts), which fails the run if anything of it outlives SIGTERM; the stop of
 * a mock of one's own is tested by test/mock/survival.test.ts. A file that stops, floods or
 * breaks its mock starts its own (`startMock`).
 */
export async function sharedMock(): Promise<SharedMock> {
  const folder = inject('sharedMockFolder');
  if (typeof folder !== 'string') throw new Error("the shared mock needs the run's global setup (vitest.config.ts globalSetup: test/support/global-setup.ts)");
  const file = (name: keyof typeof sharedMockFiles) => join(folder, sharedMockFiles[name]);
  const known = (): SharedMock | undefined =>
    existsSync(file('url')) ? { url: readFileSync(file('url'), 'utf8'), output: () => readFileSync(file('log'), 'utf8') } : undefined;
  const already = known();
  if (already) return already;
  let starter = true;
  try {
    mkdirSync(folder, { recursive: true });
    mkdirSync(file('starting'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    starter = false;
  }
  if (starter) {
    try {
      const mock = await startMock({ shared: { folder, logFile: file('log'), ownerPid: inject('testRunPid') } });
      writeFileSync(file('pid'), String(mock.pid));
      // Written whole, then named: a file that waits never reads half an address.
      writeFileSync(`${file('url')}.part`, mock.url);
      renameSync(`${file('url')}.part`, file('url'));
      return { url: mock.url, output: mock.output };
    } catch (error) {
      writeFileSync(file('failed'), String(error));
      throw error;
    }
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const started = known();
    if (started) return started;
    if (existsSync(file('failed'))) throw new Error(`the shared mock did not start: ${readFileSync(file('failed'), 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`the shared mock did not start within 60 s (${folder})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

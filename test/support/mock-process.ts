import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { bundledContractPath } from '../../lib/contract/bundled.js';
import { freePort } from '../../server/test-support/processes.js';

const mockScript = fileURLToPath(new URL('../../scripts/mock.mjs', import.meta.url));

function processGroupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
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

/** `scripts/mock.mjs` (Prism on the bundled contract) on a free port, answering once it returns. */
export async function startMock(): Promise<RunningMock> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  // Own process group (detached), so stop() ends the script and Prism together.
  const mock = spawn(process.execPath, [mockScript], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, MOCK_PORT: String(port), MOCK_HOST: '127.0.0.1', MOCK_SPEC: bundledContractPath, FORCE_COLOR: '0' },
  });
  const pid = mock.pid;
  // Safety net if the worker dies before stop(): a detached group would otherwise outlive it.
  if (pid !== undefined) process.once('exit', () => processGroupAlive(pid) && process.kill(-pid, 'SIGKILL'));
  mock.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  mock.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (mock.exitCode !== null || mock.signalCode !== null) throw new Error(`mock exited early (${mock.exitCode ?? mock.signalCode}):\n${output}`);
    try {
      await fetch(`${url}/`, { signal: AbortSignal.timeout(1_000) });
      break; // any HTTP answer (Prism says 404 for `/`) means it is serving
    } catch {
      if (Date.now() > deadline) throw new Error(`mock did not answer on ${url} within 30 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const exited = new Promise<number | string | null>((resolve) => mock.once('exit', (code, signal) => resolve(code ?? signal)));
  return {
    url,
    pid,
    exited,
    output: () => output,
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
      const until = Date.now() + 5_000;
      while (processGroupAlive(pid) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
      const leaked = processGroupAlive(pid);
      if (leaked) process.kill(-pid, 'SIGKILL');
      return { leaked };
    },
  };
}

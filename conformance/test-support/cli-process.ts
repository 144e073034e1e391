/**
 * The conformance command run as a user runs it, as a child process to its end: bundled as the
 * package ships it, through npm, or through the package's `bin` entry.
 */
import { spawn } from 'node:child_process';
import { bundledCommand, repoRoot, within, type Exit } from '../../server/test-support/processes.js';

/** Longest a whole conformance run may take here (vitest start included). */
export const RUN_MS = 45_000;

export interface Done {
  exit: Exit;
  stdout: string;
  stderr: string;
  /** From spawning to the child's exit. */
  ms: number;
}

/**
 * The parent's environment without vitest's own variables (the tests run inside vitest; the CLI
 * starts a vitest of its own), without CONFORMANCE_*, and with `vars` on top.
 */
function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(VITEST|CONFORMANCE_)/.test(name) && name !== 'NODE_ENV' && name !== 'TEST' && name !== 'INIT_CWD') env[name] = value;
  return { ...env, NO_COLOR: '1', ...vars };
}

/** Runs `command args` in the repository to its end; kills its process group when it takes longer than `ms`. */
export async function runToEnd(command: string, args: readonly string[], vars: Record<string, string> = {}, ms = RUN_MS): Promise<Done> {
  const started = performance.now();
  const child = spawn(command, args, { cwd: repoRoot, env: childEnv(vars), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<Exit>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  try {
    const exit = await within(exited, `${command} ${args.join(' ')}`, ms);
    return { exit, stdout, stderr, ms: performance.now() - started };
  } catch (error) {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    throw new Error(`${(error as Error).message}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
  }
}

/**
 * The conformance command with `args` and `vars` in its environment, bundled as QA's package ships
 * it (`npx pix-conformance`; see `bundledCommand`). `npm run conformance` itself (tsx) is run by
 * production.test.ts, as the README runs it.
 */
export function conformance(args: readonly string[], ms = RUN_MS, vars: Record<string, string> = {}): Promise<Done> {
  return runToEnd(process.execPath, [bundledCommand('conformance/cli.ts'), ...args], vars, ms);
}

/**
 * The mark in the terminal matrix of `operationId` under `column` (`wsg`, `5xx`, …): the matrix is
 * printed in blocks of columns, each under its own `operation …` header line.
 */
export function matrixCell(stdout: string, operationId: string, column: string): string | undefined {
  const lines = stdout.split('\n');
  const header = lines.findIndex((line) => line.startsWith('operation ') && line.split(/\s+/).includes(column));
  if (header < 0) return undefined;
  const row = lines.slice(header + 1).find((line) => line.split(/\s+/)[0] === operationId);
  return row?.[lines[header]!.indexOf(` ${column}`) + 1];
}

#!/usr/bin/env node
/**
 * `npm test`: the lint, the type check and the tests at the same time. Most of a test run waits
 * (on servers, browsers, PostgreSQL, fsyncs), and the lint (about 15 s) and `tsc` (about a minute
 * of one core from cold) fill that wait instead of going before it. The lint still fails the run
 * in seconds: when it fails, its output is printed and the tests are stopped. The type check
 * keeps its state in node_modules/.cache/typecheck/ (`npm run typecheck`), so a run after a small
 * change checks in seconds; both run once per state of the working tree (once-per-tree.mjs), so
 * the loop that a test runs beside them waits for their result instead of doing them again. The lint's and the type check's output is printed after the tests'
 * (not interleaved with them); the run fails when any fails. Arguments go to vitest
 * (`npm test -- server/routes/clients.test.ts`).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const vitest = fileURLToPath(new URL('../node_modules/.bin/vitest', import.meta.url));

/**
 * Runs a command; `capture` keeps its output (stdout and stderr together) instead of showing it,
 * and puts it in a process group of its own (no terminal), so that `stop` ends what it started.
 */
function run(command, args, { capture = false } = {}) {
  const child = spawn(command, args, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit', detached: capture && process.platform !== 'win32' });
  const done = new Promise((resolve) => {
    let output = '';
    if (capture) {
      child.stdout.on('data', (chunk) => {
        output += chunk;
      });
      child.stderr.on('data', (chunk) => {
        output += chunk;
      });
    }
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
  return { child, done, capture };
}

/**
 * Stops a command started by `run`: a captured one's whole group; vitest as Ctrl-C stops it
 * (SIGINT: it ends its run and its workers, and the tests' servers with them).
 */
function stop({ child, capture }) {
  try {
    if (!capture) child.kill('SIGINT');
    else if (process.platform === 'win32') child.kill();
    else process.kill(-child.pid, 'SIGTERM');
  } catch {
    // Already ended.
  }
}

const lint = run(npm, ['run', '-s', 'lint'], { capture: true });
const typecheck = run(npm, ['run', '-s', 'typecheck'], { capture: true });
const tests = run(vitest, ['run', ...process.argv.slice(2)]);
// Ctrl-C reaches vitest with this process (the terminal's group); the captured commands' groups
// are stopped here, and everything on SIGTERM.
process.once('SIGINT', () => {
  stop(lint);
  stop(typecheck);
});
process.once('SIGTERM', () => {
  for (const command of [lint, typecheck, tests]) stop(command);
});

const linted = await lint.done;
if (linted.code !== 0) {
  stop(tests);
  stop(typecheck);
  process.stdout.write(`\n> npm run lint: FAILED (the tests were stopped)\n${linted.output}`);
  process.exit(linted.code);
}
const tested = await tests.done;
const types = await typecheck.done;
process.stdout.write(`\n> npm run lint (run beside the tests): no findings\n${linted.output}`);
process.stdout.write(`\n> npm run typecheck (run beside the tests): ${types.code === 0 ? 'no type errors' : 'FAILED'}\n${types.output}`);
process.exit(tested.code !== 0 ? tested.code : types.code);

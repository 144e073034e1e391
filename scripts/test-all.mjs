#!/usr/bin/env node
/**
 * `npm test`: the lint first (it fails in seconds on what it finds), then the type check and the
 * tests at the same time. Most of a test run waits (on servers, browsers, PostgreSQL, fsyncs),
 * and `tsc` (about a minute of one core from cold) fills that wait instead of going before it.
 * The type check keeps its state in node_modules/.cache/typecheck/ (`npm run typecheck`), so a
 * run after a small change checks in seconds. Its output is printed after the tests' (not
 * interleaved with them); the run fails when either fails. Arguments go to vitest
 * (`npm test -- server/routes/clients.test.ts`).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const vitest = fileURLToPath(new URL('../node_modules/.bin/vitest', import.meta.url));

/** Runs a command; `capture` keeps its output (stdout and stderr together) instead of showing it. */
function run(command, args, { capture = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
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
}

const lint = await run(npm, ['run', '-s', 'lint']);
if (lint.code !== 0) process.exit(lint.code);

const typecheck = run(npm, ['run', '-s', 'typecheck'], { capture: true });
const tests = await run(vitest, ['run', ...process.argv.slice(2)]);
const types = await typecheck;
process.stdout.write(`\n> npm run typecheck (run beside the tests): ${types.code === 0 ? 'no type errors' : 'FAILED'}\n${types.output}`);
process.exit(tests.code !== 0 ? tests.code : types.code);

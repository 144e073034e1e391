/**
 * `npm run test:node -- [<major>] [vitest arguments…]`: the tests on another tested Node line
 * (engines.node), with the registry's Node binary and better-sqlite3's addon built for it (see
 * lines.ts); without a major, on each tested line other than the running one, one after the
 * other. Without vitest arguments it runs what CI runs there (`onEveryLine`); without a major
 * either (CI's run), the lines' own test first (`linesTest`).
 *
 * Where a line's Node cannot be had (not linux-x64, no registry), it prints a NOTICE and goes on,
 * except under CI, where that is a failure.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { currentMajor, installNode, lineEnv, repoRoot, sqliteAddon, testedLines } from './lines.js';

/**
 * What CI runs on each line besides the install's, on SQLite: what a stranger runs on that Node —
 * the packed packages (QA's, whose README block runs the installed conformance command's whole
 * suite against the compiled server, and the sandbox's: each bin, the sandbox started twice on one
 * data folder, its keys and its mock) — and the compiled server's own process test (start, the
 * development key, a write, SIGTERM, a restart on the same file; configuration errors) and its
 * shutdown. The other server tests run on the developer's line in `npm test` (both engines);
 * `npm run test:node -- 22 server/ conformance/` runs them on another. Each line's set takes about
 * two minutes of the full run here, against four and a half with every process test of the server.
 */
const vitest = join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');

export const onEveryLine = ['--project', 'sqlite:isolated', 'test/package/', 'server/main.test.ts', 'server/shutdown.test.ts'];

async function onLine(major: number, vitestArgs: readonly string[]): Promise<number> {
  const started = Date.now();
  const node = await installNode(major);
  if ('unavailable' in node) {
    console.warn(`NOTICE: the tests are not run on Node ${major}: ${node.unavailable}`);
    return process.env.CI ? 1 : 0;
  }
  const addon = await sqliteAddon(node);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`Node ${node.version} (ABI ${node.abi}), better-sqlite3's addon ${addon.built ? 'built' : 'already built'} (${seconds} s): ${addon.path}`);
  // CI's set runs on SQLite only: without TEST_DATABASE_URL, the store and two-instance tests (which
  // choose their engines themselves) do not run on PostgreSQL again.
  const { TEST_DATABASE_URL: _postgres, ...sqliteOnly } = process.env;
  const args = vitestArgs.length > 0 ? vitestArgs : onEveryLine;
  const env = lineEnv(node, vitestArgs.length > 0 ? process.env : sqliteOnly);
  return exitOf(spawn(node.node, [vitest, 'run', ...args], { cwd: repoRoot, env, stdio: 'inherit' }));
}

/**
 * The Node lines' own test (scripts/node-lines/lines.test.ts, the vitest project `node-lines`), on
 * the running Node: the tested lines read from engines.node, and on each other line the registry's
 * Node installed and better-sqlite3 opening a database through the preload. It makes what the
 * lines' runs use, so it goes first; `npm test` does not run it (it downloads Node binaries).
 */
function linesTest(): Promise<number> {
  const child = spawn(process.execPath, [vitest, 'run', '--project', 'node-lines'], {
    cwd: repoRoot,
    env: { ...process.env, TEST_NODE_LINES: '1' },
    stdio: 'inherit',
  });
  return exitOf(child);
}

function exitOf(child: ReturnType<typeof spawn>): Promise<number> {
  return new Promise((resolve) => {
    child.once('error', (error) => {
      console.error(error.message);
      resolve(1);
    });
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(argv: readonly string[]): Promise<number> {
  const lines = testedLines();
  const [first, ...rest] = argv;
  const named = first !== undefined && /^\d+$/.test(first);
  if (named && !lines.includes(Number(first))) {
    console.error(
      `Usage: npm run test:node -- [<major>] [vitest arguments…]\nNode ${first} is not a tested line; the tested lines (engines.node in package.json): ${lines.join(', ')}.`,
    );
    return 2;
  }
  const majors = named ? [Number(first)] : lines.filter((major) => major !== currentMajor());
  const vitestArgs = named ? rest : argv;
  let failed = 0;
  // CI's run (no line named, no vitest arguments) starts with the lines' own test.
  if (!named && vitestArgs.length === 0) {
    console.log(`\n=== The Node lines' own test, on Node ${currentMajor()} ===`);
    failed = await linesTest();
  }
  for (const major of majors) {
    console.log(`\n=== The tests on Node ${major} ===`);
    const code = await onLine(major, vitestArgs);
    if (code !== 0) failed = code;
  }
  return failed;
}

process.exitCode = await main(process.argv.slice(2));

/**
 * `npm run test:node -- <major> [vitest arguments…]`: the tests on another tested Node line
 * (engines.node), with the registry's Node binary and better-sqlite3's addon built for it (see
 * lines.ts). Without vitest arguments it runs what CI runs there: the packed package and the
 * server tests, on SQLite.
 *
 * Where that Node cannot be had (not linux-x64, no registry), it prints a NOTICE and exits 0,
 * except under CI, where that is a failure.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { installNode, lineEnv, repoRoot, sqliteAddon, testedLines } from './lines.js';

/** What CI runs on each line besides the install's: the packed package, the compiled server in production and every server test, on SQLite. */
export const onEveryLine = ['--project', 'sqlite', 'test/package/pack.test.ts', 'conformance/production.test.ts', 'server/'];

async function main(argv: readonly string[]): Promise<number> {
  const [line, ...rest] = argv;
  const lines = testedLines();
  const major = Number(line);
  if (!line || !lines.includes(major)) {
    console.error(`Usage: npm run test:node -- <major> [vitest arguments…]\nThe tested lines (engines.node in package.json): ${lines.join(', ')}.`);
    return 2;
  }
  const started = Date.now();
  const node = await installNode(major);
  if ('unavailable' in node) {
    const message = `NOTICE: the tests are not run on Node ${major}: ${node.unavailable}`;
    console.warn(message);
    return process.env.CI ? 1 : 0;
  }
  const addon = await sqliteAddon(node);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`Node ${node.version} (ABI ${node.abi}): better-sqlite3's addon ${addon.built ? 'built' : 'already built'} (${seconds} s): ${addon.path}`);
  const vitest = join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
  const args = rest.length > 0 ? rest : onEveryLine;
  const child = spawn(node.node, [vitest, 'run', ...args], { cwd: repoRoot, env: lineEnv(node), stdio: 'inherit' });
  return new Promise((resolve) => {
    child.once('error', (error) => {
      console.error(error.message);
      resolve(1);
    });
    child.once('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

process.exitCode = await main(process.argv.slice(2));

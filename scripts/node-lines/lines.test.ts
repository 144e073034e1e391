/**
 * The Node lines of `engines.node`, and what `npm run test:node` gives a process on another line:
 * the registry's Node, and better-sqlite3 opening a database there through the preload (without
 * it, the install's addon, built for this Node, is refused). Where the registry's Node cannot be
 * had here, that part is skipped with a NOTICE.
 */
// long-running: about 60 s (another Node line from the registry and better-sqlite3's addon built for it); test/support/sequencer.ts starts it early
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { describe, expect, test } from 'vitest';
import { installNode, lineEnv, type NodeLine, otherLines, sqliteAddon, testedLines } from './lines.js';

describe('the tested lines, from engines.node', () => {
  const cases: Array<[string, { range: string; want: number[] | RegExp }]> = [
    ['three lines', { range: '^20.19.0 || ^22.12.0 || ^24.0.0', want: [20, 22, 24] }],
    ['a floor', { range: '>=20.19', want: [20] }],
    ['out of order, repeated', { range: '^24.0.0 || ^22.12.0 || ^22.14.0', want: [22, 24] }],
    ['something else', { range: '20 - 24', want: /is not "\^N\.N\.N" or ">=N\.N\.N"/ }],
  ];
  test.each(cases)('%s', (_name, { range, want }) => {
    if (want instanceof RegExp) expect(() => testedLines({ engines: { node: range } })).toThrow(want);
    else expect(testedLines({ engines: { node: range } })).toEqual(want);
  });

  test("this project's: the running Node is one of them, and there are others", () => {
    const lines = testedLines();
    expect(lines).toContain(Number(process.versions.node.split('.')[0]));
    expect(otherLines().length).toBeGreaterThan(0);
  });
});

function runNode(line: NodeLine, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  const betterSqlite3 = createRequire(import.meta.url).resolve('better-sqlite3');
  const script = `const D = require(${JSON.stringify(betterSqlite3)}); const db = new D(':memory:'); console.log(process.versions.node, db.prepare('SELECT 40 + 2 AS n').get().n)`;
  return new Promise((resolve) => {
    execFile(line.node, ['-e', script], { env }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

describe.each(otherLines())('Node %i', (major) => {
  test("better-sqlite3 opens a database there with the preload, and is refused the install's addon without it", { timeout: 240_000 }, async (context) => {
    const line = await installNode(major);
    if ('unavailable' in line) {
      console.warn(`NOTICE: Node ${major} is not tried: ${line.unavailable}`);
      context.skip();
      return;
    }
    expect(line.major).toBe(major);
    const addon = await sqliteAddon(line);
    expect(addon.path).toContain(`node-v${line.abi}`);

    const withPreload = await runNode(line, lineEnv(line));
    expect(withPreload.code, withPreload.stderr).toBe(0);
    expect(withPreload.stdout.trim()).toBe(`${line.version} 42`);

    const { NODE_OPTIONS: _preload, ...plain } = process.env;
    const without = await runNode(line, plain);
    expect(without.code).not.toBe(0);
    expect(without.stderr).toMatch(/NODE_MODULE_VERSION/);
  });
});

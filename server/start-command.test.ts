import { spawnSync } from 'node:child_process';
import { isAbsolute } from 'node:path';
import { describe, expect, test } from 'vitest';
import { startArguments } from './start-command.js';

describe('startArguments', () => {
  test("are npm start's: Node's flags, then the compiled server by its absolute path", () => {
    const args = startArguments();
    expect(args.at(-1)).toMatch(/\/dist\/server\/main\.mjs$/);
    expect(isAbsolute(args.at(-1)!)).toBe(true);
    expect(args.slice(0, -1).every((flag) => flag.startsWith('--'))).toBe(true);
    // The compiled server maps its stacks itself, reading its map only when a stack is written
    // (server/mapped-stacks.ts): Node's flag would read and decode the whole map at every start.
    expect(args).not.toContain('--enable-source-maps');
  });

  test('are flags this Node takes (a line that did not know one would refuse to start)', () => {
    const run = spawnSync(process.execPath, [...startArguments().slice(0, -1), '-e', 'process.exit(0)'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  test.for([
    ['another program', { scripts: { start: 'tsx server/main.ts' } }],
    ['no server', { scripts: { start: 'node' } }],
    ['no start script', { scripts: {} }],
  ] as const)('refuses a start script with %s', ([, packageJson]) => {
    expect(() => startArguments(packageJson)).toThrow(/must be "node \[flags\] <server>"/);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundleNodeCommand } from './bundle-node.mjs';

const dir = mkdtempSync(join(tmpdir(), 'bundle-node-'));
const out = join(dir, 'dist');
const loader = join(out, 'cmd.mjs');

// A command built as the server is: it says where it runs from, what require() gives it, and
// exits with the code it is given.
beforeAll(async () => {
  mkdirSync(join(dir, 'src'));
  writeFileSync(
    join(dir, 'src', 'cmd.ts'),
    [
      "import { basename } from 'node:path';",
      'console.log(JSON.stringify({ url: import.meta.url, required: typeof require, base: basename(new URL(import.meta.url).pathname) }));',
      'process.exitCode = Number(process.argv[2] ?? 0);',
    ].join('\n'),
  );
  await bundleNodeCommand({ entry: join(dir, 'src', 'cmd.ts'), outfile: loader, compact: true, sourcesContent: false, codeCache: true });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const caches = (): string[] => readdirSync(out).filter((file) => file.endsWith('.cache'));

function run(code = 0): unknown {
  const child = spawnSync(process.execPath, [loader, String(code)], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  expect(child.status).toBe(code);
  return JSON.parse(child.stdout);
}

describe('bundleNodeCommand with codeCache', () => {
  test('the loader runs the CommonJS script beside it, whose import.meta.url is its own; a run ending with 0 leaves V8 a cache, others none', () => {
    const expected = { url: pathToFileURL(join(out, 'cmd.cjs')).href, required: 'function', base: 'cmd.cjs' };
    expect(caches()).toEqual([]);
    expect(run(3)).toEqual(expected);
    expect(caches()).toEqual([]);
    expect(run()).toEqual(expected);
    expect(caches()).toEqual([expect.stringMatching(/^cmd\.cjs\.[0-9a-f]{16}\.cache$/)]);
    // With the cache, the same; V8 took the cache, so the run did not write it again.
    const [cache] = caches();
    const written = statSync(join(out, cache!)).mtimeMs;
    expect(run()).toEqual(expected);
    expect(statSync(join(out, cache!)).mtimeMs, 'a cache V8 accepted is not written again').toBe(written);
  });

  test('a cache V8 refuses is written again, and the command runs all the same', () => {
    const [cache] = caches();
    writeFileSync(join(out, cache!), 'not a cache');
    expect(run()).toEqual({ url: pathToFileURL(join(out, 'cmd.cjs')).href, required: 'function', base: 'cmd.cjs' });
    expect(readdirSync(out).filter((file) => file.startsWith('cmd.cjs.') && !file.endsWith('.map'))).toEqual([cache]);
    expect(statSync(join(out, cache!)).size).toBeGreaterThan('not a cache'.length);
  });
});

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

const mappedStacks = fileURLToPath(new URL('./mapped-stacks.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'mapped-stacks-'));
const source = join(dir, 'src', 'thrower.ts');
const bundle = join(dir, 'dist', 'app.mjs');

// A command compiled as the server is (one ES module, compact, a map without the sources' text),
// which installs the mapping as the server's first module does, then writes a stack.
beforeAll(async () => {
  mkdirSync(join(dir, 'src'));
  writeFileSync(
    source,
    [
      `import { mapStacksOnFirstUse } from ${JSON.stringify(mappedStacks)};`,
      'const installed = mapStacksOnFirstUse(import.meta.url);',
      'class Store {',
      '  insert(): never {',
      "    throw new Error('boom');",
      '  }',
      '}',
      'function handler(): void {',
      '  new Store().insert();',
      '}',
      'try {',
      '  handler();',
      '} catch (error) {',
      '  console.log(JSON.stringify({ installed, stack: (error as Error).stack }));',
      '}',
    ].join('\n'),
  );
  await build({
    entryPoints: [source],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'esm',
    sourcemap: true,
    sourcesContent: false,
    minifyWhitespace: true,
    logLevel: 'silent',
  });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(flags: string[] = []): { installed: boolean; stack: string } {
  const child = spawnSync(process.execPath, [...flags, bundle], { encoding: 'utf8' });
  expect(child.stderr).toBe('');
  return JSON.parse(child.stdout) as { installed: boolean; stack: string };
}

describe('mapStacksOnFirstUse', () => {
  test("writes the bundle's frames at their places in the sources, as Node's flag does", () => {
    const mapped = run();
    expect(mapped.installed).toBe(true);
    const lines = mapped.stack.split('\n');
    expect(lines[0]).toBe('Error: boom');
    expect(lines[1]).toBe(`    at Store.insert (${source}:5:11)`);
    expect(lines[2]).toBe(`    at handler (${source}:9:15)`);
    expect(mapped.stack).not.toContain('app.mjs');
    // The same places as Node's --enable-source-maps gives (which then leaves the mapping to Node).
    const byNode = run(['--enable-source-maps']);
    expect(byNode.installed).toBe(false);
    expect(byNode.stack.split('\n').slice(0, 3)).toEqual(lines.slice(0, 3));
  });

  test("does nothing without a map beside the bundle: the frames are the bundle's", () => {
    rmSync(`${bundle}.map`);
    const unmapped = run();
    expect(unmapped.installed).toBe(false);
    expect(unmapped.stack.split('\n')[1]).toMatch(/^ {4}at Store\.insert \(file:\/\/.*\/dist\/app\.mjs:\d+:\d+\)$/);
  });
});

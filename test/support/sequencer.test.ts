/**
 * The order test files start in (sequencer.ts): the files marked long-running first, longest
 * first, then vitest's own order; and the marks a full run relies on are where they should be.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import LongFilesFirst, { markedSeconds } from './sequencer.js';

describe('the long-running mark', () => {
  test.each([
    ['// long-running: about 90 s (packs the package)', 90],
    ['/**\n * doc\n */\n// long-running: about 5 s\nimport x;', 5],
    ['  // long-running: about 120 s', 120],
    ['// long-running: 90 s', undefined],
    ['// long-running: about ninety s', undefined],
    ["const text = 'x // long-running: about 9 s';", undefined],
    ['import x;', undefined],
  ])('%j is %s', (text, seconds) => {
    expect(markedSeconds(text)).toBe(seconds);
  });

  test('the package tests carry it (they are the longest files of a run)', () => {
    for (const file of ['test/package/pack.test.ts', 'test/package/sandbox-pack.test.ts']) {
      expect(markedSeconds(readFileSync(file, 'utf8')), file).toBeGreaterThanOrEqual(60);
    }
  });
});

describe('the order', () => {
  test('marked files first, longest first; the others in the order vitest gives them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sequencer-'));
    const spec = (name: string, text: string, project = 'sqlite'): TestSpecification => {
      const moduleId = join(dir, name);
      writeFileSync(moduleId, text);
      return { moduleId, project: { name: project, config: { isolate: true, sequence: { groupOrder: 0 } } } } as unknown as TestSpecification;
    };
    const files = [
      spec('a.test.ts', 'a'),
      spec('b.test.ts', '// long-running: about 30 s'),
      spec('c.test.ts', 'ccc'),
      spec('d.test.ts', '// long-running: about 90 s'),
    ];
    const cache = { getFileTestResults: () => undefined, getFileStats: () => undefined };
    const sequencer = new LongFilesFirst({ cache, config: { root: dir } } as never);
    const sorted = await sequencer.sort(files);
    rmSync(dir, { recursive: true });
    expect(sorted.slice(0, 2).map((file) => file.moduleId.slice(dir.length + 1))).toEqual(['d.test.ts', 'b.test.ts']);
    expect(
      sorted
        .slice(2)
        .map((file) => file.moduleId.slice(dir.length + 1))
        .sort(),
    ).toEqual(['a.test.ts', 'c.test.ts']);
  });
});

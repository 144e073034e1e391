/**
 * The docs page is built once per set of inputs: the test run's global setup built it (or kept
 * it), so building again with the same inputs keeps the page, and its stamp names every input.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { buildDocsIfChanged, docsDir } from './build.js';

test('the same inputs keep the page the last build made', () => {
  const again = buildDocsIfChanged();
  expect(again.built).toBe(false);
  const stamp = JSON.parse(readFileSync(join(docsDir, '.stamp.json'), 'utf8')) as { inputs: Record<string, string> };
  expect(Object.keys(stamp.inputs)).toEqual(expect.arrayContaining(['generated/openapi.yaml', 'openapi/DECISIONS.md', 'redocly.yaml']));
  expect(readFileSync(again.output, 'utf8')).toContain('<html');
});

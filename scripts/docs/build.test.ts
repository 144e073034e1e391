/**
 * The docs page is built once per set of inputs: the test run's global setup built it (or kept
 * it), so building again with the same inputs keeps the page, and the kept hash is the inputs'.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { buildDocsIfChanged, docsDir, docsInputsHash } from './build.js';

test('the same inputs keep the page the last build made', () => {
  const again = buildDocsIfChanged();
  expect(again.built).toBe(false);
  expect(readFileSync(join(docsDir, '.inputs.sha256'), 'utf8')).toBe(docsInputsHash());
  expect(readFileSync(again.output, 'utf8')).toContain('<html');
});

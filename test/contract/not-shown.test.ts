/**
 * Every "not shown" statement of the seed is settled by a decision of the contract.
 * The mapping lives in not-shown.yaml; the seed itself sits beside the repository
 * (../shared/seeds/…, or SEED_PATH) and is only read when it is there.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { readDecisions } from '../../lib/contract/decisions.js';
import { decisionsPath, repoRoot } from './support.js';

interface NotShownRow {
  seed: string;
  decisions: string[];
}

const rows = parse(readFileSync(new URL('./not-shown.yaml', import.meta.url), 'utf8')) as NotShownRow[];
const decisionIds = new Set(readDecisions(readFileSync(decisionsPath, 'utf8')).map((decision) => decision.id));
const seedPath = resolve(process.env.SEED_PATH ?? resolve(repoRoot, '../shared/seeds/000_1abf7fc2b83a6325.txt'));
const seedText = existsSync(seedPath) ? readFileSync(seedPath, 'utf8') : undefined;
if (!seedText) {
  console.warn(`NOTICE: seed not found at ${seedPath} (set SEED_PATH); the seed-completeness checks of not-shown.test.ts are skipped.`);
}

describe('every "not shown" item maps to a listed decision', () => {
  test.each(rows.map((row) => [row.seed, row] as const))('%s', (_name, row) => {
    expect(row.decisions.length).toBeGreaterThan(0);
    for (const id of row.decisions) expect(decisionIds, `${id} is not in DECISIONS.md`).toContain(id);
  });
});

describe.skipIf(!seedText)('the mapping matches the seed', () => {
  test('every "not shown" line of the seed is in not-shown.yaml', () => {
    const seedLines = (seedText ?? '').split('\n').filter((line) => line.includes('not shown'));
    expect(seedLines.length).toBeGreaterThan(0);
    const mapped = new Set(rows.map((row) => row.seed));
    expect(seedLines.filter((line) => !mapped.has(line.trim()))).toEqual([]);
  });

  test.each(rows.map((row) => [row.seed, row] as const))('quoted word for word: %s', (_name, row) => {
    expect(seedText).toContain(row.seed);
  });
});

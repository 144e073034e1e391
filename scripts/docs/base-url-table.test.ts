/**
 * @operation-wide: it enumerates the contract's operations (the README table), so `npm run test:operation` runs it, but its rows for other operations.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { listOperations, loadBundledContract } from '../../lib/contract/bundled.js';
import { baseUrlTable, readmePath, tableEnd, tableStart, withBaseUrlTable } from './base-url-table.js';

const contract = loadBundledContract();
const table = baseUrlTable(contract);

describe('baseUrlTable', () => {
  test('has one row per operation of the contract, with its base URL, method, path and summary', () => {
    const rows = table.split('\n').slice(2);
    const operations = listOperations(contract);
    expect(rows).toHaveLength(operations.length);
    for (const op of operations)
      expect(rows).toContain(`| \`{${op.server}}\` | \`${op.method.toUpperCase()}\` | \`${op.path}\` | ${String(op.operation.summary)} |`);
  });

  test('lists the operations of the first server first', () => {
    const servers = table
      .split('\n')
      .slice(2)
      .map((row) => /`\{(\w+)\}`/.exec(row)?.[1]);
    expect(servers).toEqual([...servers].sort((a, b) => (a === b ? 0 : a === 'base_url' ? -1 : 1)));
  });
});

describe('withBaseUrlTable', () => {
  test.each([
    ['empty markers', { given: `a\n${tableStart}\n${tableEnd}\nb`, want: `a\n${tableStart}\n\nT\n\n${tableEnd}\nb` }],
    ['an old table', { given: `a\n${tableStart}\n\nold\n\n${tableEnd}\nb`, want: `a\n${tableStart}\n\nT\n\n${tableEnd}\nb` }],
  ])('%s', (_name, { given, want }) => {
    expect(withBaseUrlTable(given, 'T')).toBe(want);
  });

  test('refuses a README without the markers', () => {
    expect(() => withBaseUrlTable('no markers', 'T')).toThrow(/markers/);
  });
});

test("the README's base-URL table is the contract's", () => {
  const readme = readFileSync(readmePath, 'utf8');
  expect(readme === withBaseUrlTable(readme, table), 'README.md differs from the contract: run `npm run docs:readme` (or `npm run build:contract`)').toBe(true);
});

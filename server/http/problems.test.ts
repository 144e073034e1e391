import { expect, test } from 'vitest';
import { deref, loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { problemTypes } from './problems.js';

/** The rows `| \`/problems/…\` | status | when |` of the Problem schema's description (D02). */
function contractProblemTable(): Map<string, number> {
  const doc = loadBundledContract();
  const problem = deref<JsonObject>(doc, (doc.components as JsonObject & { schemas: JsonObject }).schemas.Problem);
  const rows = [...String(problem.description).matchAll(/^\|\s*`([^`]+)`\s*\|\s*(\d{3})\s*\|/gm)];
  return new Map(rows.map((row) => [row[1]!, Number(row[2])]));
}

test('the server answers exactly the problem types the contract lists, with their statuses', () => {
  const table = contractProblemTable();
  expect(table.size).toBeGreaterThan(5);
  const catalogue = new Map(Object.values(problemTypes).map((p) => [p.type, p.status]));
  expect(catalogue).toEqual(table);
});

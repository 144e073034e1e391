/**
 * The conformance guide's decisions and their checks: generated from the contract's marks and
 * conformance/data/decision-checks.ts, every decision with an entry, the guide as generated.
 *
 * @operation-wide: it enumerates the contract's operations and decisions, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { loadBundledContract } from '../../lib/contract/bundled.js';
import { parseDecisions } from '../../lib/contract/decisions.js';
import { decisionChecks } from '../../conformance/data/decision-checks.js';
import { checkNames } from '../../conformance/engine/types.js';
import { decisionGuide, guidePath, markedOperations, marksOf, sectionEnd, sectionStart, withDecisionGuide } from './conformance-decisions.js';

const contract = loadBundledContract();
const decisions = parseDecisions(readFileSync(new URL('../../openapi/DECISIONS.md', import.meta.url), 'utf8')).decisions;

describe('conformance/data/decision-checks.ts', () => {
  test('has an entry for every decision and for no other; each names a check or says why no run observes it', () => {
    expect(Object.keys(decisionChecks)).toEqual(decisions.map((d) => d.id));
    for (const [id, hold] of Object.entries(decisionChecks)) {
      expect(hold.held.length > 0 || (hold.notObserved ?? '').length > 0, id).toBe(true);
      for (const h of hold.held) expect(checkNames, id).toContain(typeof h === 'string' ? h : h[0]);
    }
  });

  test('every decision marked in the contract is one of them', () => {
    const marked = new Set(markedOperations(contract).flatMap((op) => op.decisions));
    expect([...marked].filter((id) => !(id in decisionChecks))).toEqual([]);
    // A decision marked on no operation is a decision of every answer or says why (Not marked. in DECISIONS.md).
    for (const d of decisions.filter((d) => !marked.has(d.id)))
      expect(decisionChecks[d.id]!.everyAnswer === true || d.notMarked !== undefined || decisionChecks[d.id]!.notObserved !== undefined, d.id).toBe(true);
  });
});

describe('markedOperations', () => {
  test("follows references: a payment link's marks include its body's (D18) and its errors' (D02), a webhook's its payload's (D14)", () => {
    const byId = new Map(markedOperations(contract).map((op) => [op.operationId, op]));
    expect(byId.get('createPaymentLink')?.decisions).toEqual(expect.arrayContaining(['D01', 'D02', 'D18']));
    expect(byId.get('resetSandbox')?.decisions).toContain('D51');
    expect(byId.get('receiveChargeEvent')?.request).toBe('webhook chargeEvent');
    expect(byId.get('receiveChargeEvent')?.decisions).toContain('D14');
  });

  test('reads x-decision and every x-decided keyword, each reference once', () => {
    const doc = { components: { schemas: { A: { 'x-decision': 'D02', properties: { self: { $ref: '#/components/schemas/A' } } } } } };
    const node = { 'x-decided': { security: 'D03', responses: 'D01' }, requestBody: { $ref: '#/components/schemas/A' }, example: { 'x-decision': 'D99' } };
    expect([...marksOf(doc, node)].sort()).toEqual(['D01', 'D02', 'D03']);
  });
});

describe('the guide', () => {
  test('holds the section as generated (npm run docs:conformance writes it)', () => {
    const guide = readFileSync(guidePath, 'utf8');
    expect(withDecisionGuide(guide, decisionGuide(contract)) === guide, 'docs/conformance.md is out of step: run npm run docs:conformance').toBe(true);
  });

  test('lists every operation of the contract, with a row per decision', () => {
    const section = decisionGuide(contract);
    for (const op of markedOperations(contract)) expect(section).toContain(`**\`${op.operationId}\`** (\`${op.request}\`)`);
    for (const d of decisions) expect(section).toMatch(new RegExp(`^\\| ${d.id} `, 'm'));
  });

  test('an entry missing for a marked decision fails the generation, naming it', () => {
    const { D13: _gone, ...rest } = decisionChecks;
    expect(() => decisionGuide(contract, rest)).toThrow(/D13 is marked in the contract but has no entry/);
  });

  test('refuses a guide without the markers; replaces what stands between them', () => {
    expect(() => withDecisionGuide('no markers', 'T')).toThrow(/markers/);
    expect(withDecisionGuide(`a\n${sectionStart}\n\nold\n\n${sectionEnd}\nb`, 'T')).toBe(`a\n${sectionStart}\n\nT\n\n${sectionEnd}\nb`);
  });
});

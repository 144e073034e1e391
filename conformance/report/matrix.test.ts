/**
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { listOperations } from '../../lib/contract/bundled.js';
import { checkNames, type RunReport } from '../engine/types.js';
import { renderMatrix, shortNames, totalLine, totals } from './matrix.js';
import { sampleReport } from './sample-report.js';

const report = sampleReport();
const plain = renderMatrix(report);
const lines = plain.split('\n');
const headers = lines.flatMap((l, i) => (l.startsWith('operation ') ? [i] : []));
/** The glyph under each column header of a row, by check name (in whichever block of columns holds it). */
function row(operationId: string): Record<string, string> {
  const glyphs: Record<string, string> = {};
  for (const at of headers) {
    const header = lines[at]!;
    const line = lines.slice(at).find((l) => l.startsWith(`${operationId} `))!;
    for (const c of checkNames) if (header.includes(` ${shortNames[c]}`)) glyphs[c] = [...line][header.indexOf(` ${shortNames[c]}`) + 1] ?? '';
  }
  return glyphs;
}

describe('renderMatrix', () => {
  test('headers of short names, every check once in order; under each, one row per operation in report order', () => {
    expect(headers.flatMap((at) => lines[at]!.split(/\s+/).slice(1))).toEqual(checkNames.map((c) => shortNames[c]));
    for (const at of headers) expect(lines.slice(at + 1, at + 4).map((l) => l.split(' ')[0])).toEqual(report.operations);
  });

  test('as few blocks of columns as fit: never one more than the columns need', () => {
    const blocks = headers.map((at) => lines[at]!.split(/\s+/).length - 1);
    // Merging any two neighbouring blocks would not fit, and the blocks are as even as can be.
    expect(Math.max(...blocks) - Math.min(...blocks)).toBeLessThanOrEqual(1);
    for (let i = 1; i < blocks.length; i += 1) expect(`operation ${'xxx '.repeat(blocks[i - 1]! + blocks[i]!)}`.length).toBeGreaterThan(80);
  });

  const cells: Array<[string, { given: [string, string]; want: string }]> = [
    ['fail', { given: ['createPaymentLink', 'not_a_server_error'], want: '✗' }],
    ['info', { given: ['createPaymentLink', 'response_schema_conformance'], want: 'i' }],
    ['skip', { given: ['createPaymentLink', 'idempotency_replay'], want: '–' }],
    ['pass', { given: ['getCharge', 'status_code_conformance'], want: '✓' }],
    ['not applicable (no result)', { given: ['getCharge', 'qr_matches_brcode'], want: '·' }],
    ['second fail on a row', { given: ['listClients', 'tenant_isolation'], want: '✗' }],
  ];
  test.each(cells)('%s', (_name, { given: [op, check], want }) => {
    expect(row(op)[check]).toBe(want);
  });

  test('every row has one glyph under each header', () => {
    for (const op of report.operations) {
      expect(Object.keys(row(op))).toEqual([...checkNames]);
      expect(Object.values(row(op)).every((g) => ['✓', '✗', '–', 'i', '·'].includes(g))).toBe(true);
    }
  });

  test('a legend naming every check, then totals, profile, run id, duration and target', () => {
    for (const c of checkNames) expect(plain).toMatch(new RegExp(`(^|\\s)${shortNames[c]}\\s+${c}(\\s|$)`, 'm'));
    expect(plain).toContain('Checks: 1 passed, 3 failed, 1 info, 2 skipped (7 checks on 3 operations)');
    // One of each is said in the singular.
    const one = { ...sampleReport(), results: sampleReport().results.slice(0, 1), operations: ['createPaymentLink'] };
    expect(totalLine(one)).toMatch(/ \(1 check on 1 operation\)$/);
    expect(plain).toContain('Profile seed · run id conf1234abcd · 4.3 s\nTarget http://ref.test + http://alt.ref.test');
  });

  test('a legend line for every mark, saying what it means', () => {
    const legend = lines.filter((l) => /^[✓✗i–·] /.test(l));
    expect(legend).toEqual([
      '✓ passed: the whole check ran, and the deployment held to it',
      '✗ failed: listed under Failures',
      'i info: departs only from a decision of the contract, which profile seed allows',
      '– skipped: not run, or not in full, for the reason listed under Skipped',
      '· no result: the check does not apply to this operation, or had nothing to judge',
    ]);
  });

  test('no colour unless asked; with colour, the glyphs are painted', () => {
    expect(plain).not.toContain('\x1b[');
    const coloured = renderMatrix(report, { color: true });
    expect(coloured).toContain('\x1b[31;1m✗\x1b[0m');
    expect(coloured).toContain('\x1b[32m✓\x1b[0m');
    expect(coloured.replace(/\x1b\[[0-9;]*m/g, '')).toBe(plain);
  });

  test('fits 80 columns with the contract’s longest operationId', () => {
    const longest = listOperations()
      .map((op) => op.operationId)
      .sort((a, b) => b.length - a.length)[0]!;
    const wide: RunReport = { ...report, operations: [longest], results: [] };
    expect(
      Math.max(
        ...renderMatrix(wide)
          .split('\n')
          .map((l) => [...l].length),
      ),
    ).toBeLessThanOrEqual(80);
  });

  test('short names are distinct', () => {
    expect(new Set(Object.values(shortNames)).size).toBe(checkNames.length);
  });
});

test('totals count each outcome', () => {
  expect(totals(report.results)).toEqual({ pass: 1, fail: 3, info: 1, skip: 2, checks: 7 });
});

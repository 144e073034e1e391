import { expect, test } from 'vitest';
import type { Outcome, RunReport } from '../engine/types.js';
import { renderHtml } from './html.js';
import { renderJunit } from './junit.js';
import { renderMatrix, totals } from './matrix.js';
import { groupedReport, sampleReport } from './sample-report.js';
import { junitTotal, shownTotal } from './totals-check.js';

/** The sample report with every result given one outcome, and the sample as it is. */
function withOutcome(outcome: Outcome): RunReport {
  const report = sampleReport();
  return {
    ...report,
    results: report.results.map((r) => ({ ...r, outcome, findings: r.findings.map((f) => ({ ...f, outcome: outcome === 'skip' ? 'pass' : outcome })) })),
  };
}

const cases: Array<[string, RunReport]> = [
  ['a mixed run', sampleReport()],
  ['a run whose findings repeat (grouped in every output)', groupedReport()],
  ['all passed', withOutcome('pass')],
  ['all info', withOutcome('info')],
  ['all skipped', withOutcome('skip')],
];

test.each(cases)('%s: one total, the same on the terminal, in HTML and in JUnit', (_name, report) => {
  const t = totals(report.results);
  const want = { checks: t.checks, failed: t.fail, skipped: t.skip };
  expect(shownTotal(renderMatrix(report))).toEqual(want);
  expect(shownTotal(renderHtml(report))).toEqual(want);
  expect(junitTotal(renderJunit(report))).toEqual(want);
});

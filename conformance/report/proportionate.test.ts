/**
 * One cause, one finding (issue 35): a fault on every request of a run is one group whose first
 * exchange is shown whole and a few more requests as curl lines, the rest counted (every one is
 * in the HAR); terminal lines are capped; the HTML and JUnit reports grow with the number of
 * distinct findings, not with the number of requests.
 */
import { describe, expect, test } from 'vitest';
import type { CheckResult, RunReport } from '../engine/types.js';
import { capLine, formatFindings, maxRequestsPerGroup, maxTerminalLine } from './failures.js';
import { renderHtml } from './html.js';
import { renderJunit } from './junit.js';
import { exchange } from './sample-report.js';

function systemic(n: number): RunReport {
  const results: CheckResult[] = [
    {
      operationId: 'createPaymentLink',
      check: 'content_type_conformance',
      outcome: 'fail',
      findings: Array.from({ length: n }, (_, i) => ({
        outcome: 'fail' as const,
        message: 'POST /charge/payment-link → 400: Content-Type text/plain, documented application/problem+json',
        exchange: exchange({
          request: {
            method: 'POST',
            url: 'http://ref.test/charge/payment-link',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({ externalId: `x${i}`, note: 'n'.repeat(2_000) }),
          },
          response: { status: 400, headers: { 'content-type': 'text/plain' }, body: 'bad' },
        }),
      })),
    },
  ];
  return {
    runId: 'r',
    profile: 'reference',
    target: { baseUrl: 'http://ref.test', baseUrlAlt: 'http://ref.test' },
    startedAt: '2026-11-28T00:00:00.000Z',
    durationMs: 1,
    operations: ['createPaymentLink'],
    results,
  };
}

describe('a systemic fault', () => {
  test('is one group: a few requests shown, the rest counted; no terminal line longer than the cap', () => {
    const text = formatFindings(systemic(300));
    expect(text.match(/^✗ /gm)).toHaveLength(1);
    expect((text.match(/curl -sS /g) ?? []).length).toBeLessThanOrEqual(maxRequestsPerGroup);
    expect(text).toMatch(/# and \d+ more findings like them: every request is in the HAR file \(--har\)/);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(maxTerminalLine + 100);
  });

  test('the reports grow with distinct findings, not with requests: 30 and 300 alike are about the same size', () => {
    for (const render of [renderHtml, renderJunit, (r: RunReport) => formatFindings(r)]) {
      const small = render(systemic(30)).length;
      const large = render(systemic(300)).length;
      expect(large / small, `${render.name} ${small} → ${large}`).toBeLessThan(1.5);
    }
  });

  test('a long line is cut, saying how much and where it is whole', () => {
    expect(capLine('x'.repeat(maxTerminalLine + 10))).toBe(`${'x'.repeat(maxTerminalLine)}… [10 more characters: whole in the HTML report and the HAR file]`);
    expect(capLine('short')).toBe('short');
  });
});

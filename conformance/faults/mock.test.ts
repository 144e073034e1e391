/**
 * The suite against the Prism mock (profile seed, stateless): what the mock serves is the
 * contract's own examples, so nothing may fail, and the stateful checks are skipped with
 * their reason, not passed.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startMock, type RunningMock } from '../../test/support/mock-process.js';
import { runConformance } from '../engine/run.js';
import type { RunReport } from '../engine/types.js';

let mock: RunningMock;
let report: RunReport;

beforeAll(async () => {
  mock = await startMock();
  report = await runConformance({
    baseUrl: mock.url,
    baseUrlAlt: mock.url,
    apiKey: 'any-key-the-mock-accepts',
    profile: 'seed',
    readOnly: false,
    stateless: true,
    timeoutMs: 10_000,
  });
}, 120_000);

afterAll(async () => {
  expect((await mock?.stop())?.leaked ?? false).toBe(false);
});

test('no check fails against the mock', () => {
  const failed = report.results.filter((r) => r.outcome === 'fail').map((r) => `${r.operationId} › ${r.check}: ${r.findings.map((f) => f.message).join('; ')}`);
  expect(failed).toEqual([]);
});

test('stateful checks are reported as skipped with the reason', () => {
  const stateful = report.results.filter((r) => ['ensure_resource_availability', 'idempotency_replay', 'tenant_isolation'].includes(r.check));
  expect(stateful.length).toBeGreaterThan(0);
  for (const result of stateful) {
    expect(result.outcome).toBe('skip');
    expect(result.skipReason).toMatch(/stateless|second-api-key/);
  }
});

test('the checks that need no state did run', () => {
  const ran = new Set(report.results.filter((r) => r.outcome === 'pass' || r.outcome === 'info').map((r) => r.check));
  for (const check of [
    'not_a_server_error',
    'status_code_conformance',
    'content_type_conformance',
    'response_schema_conformance',
    'ignored_auth',
    'negative_data_rejection',
    'positive_data_acceptance',
    'brcode_well_formed',
    'qr_matches_brcode',
  ]) {
    expect(ran, check).toContain(check);
  }
});

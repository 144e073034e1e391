/**
 * The suite against the Prism mock (profile seed, stateless): what the mock serves is the
 * contract's own examples, so nothing may fail, and the stateful checks are skipped with
 * their reason, not passed. Without --stateless, the CLI stops before any check and says to
 * give it (the same mock: it takes seconds to start).
 */
import { beforeAll, expect, test } from 'vitest';
import { type SharedMock, sharedMock } from '../../test/support/mock-process.js';
import { statelessAuthReason } from '../checks/auth.js';
import { runConformance, withheldReason } from '../engine/run.js';
import type { RunReport } from '../engine/types.js';
import { conformance } from '../test-support/cli-process.js';

// The run's shared mock: this file only sends it requests.
let mock: SharedMock;
let report: RunReport;

beforeAll(async () => {
  mock = await sharedMock();
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
    'negative_data_rejection',
    'positive_data_acceptance',
    'brcode_well_formed',
    'qr_matches_brcode',
  ]) {
    expect(ran, check).toContain(check);
  }
});

test('ignored_auth is not run in full, never ✓: a mock keeps no keys, so only the keyless request was sent', () => {
  const auth = report.results.filter((r) => r.check === 'ignored_auth');
  // Every operation the run sends requests to: not the withheld ones (x-resets-company), which it never sends.
  const withheld = new Set(report.results.filter((r) => r.skipReason === withheldReason).map((r) => r.operationId));
  expect(auth.map((r) => r.operationId).sort()).toEqual(report.operations.filter((op) => !withheld.has(op)).sort());
  for (const result of auth) expect(result).toMatchObject({ outcome: 'skip', skipReason: `not run in full: ${statelessAuthReason}` });
});

test('the CLI without --stateless: one line suggesting it, exit 2, within seconds', { timeout: 60_000 }, async () => {
  const run = await conformance(['--base-url', mock.url, '--api-key', 'any-key-the-mock-accepts']);
  expect(run.exit.code, run.stderr).toBe(2);
  expect(run.stderr.trim().split('\n')).toEqual([
    expect.stringMatching(
      /^conformance: the target keeps no state: two createPaymentLink requests with different bodies were both answered id \S+; if it is a mock or a stub, run again with --stateless /,
    ),
  ]);
  expect(run.stdout).toBe('');
  // Stopped after a handful of requests, not after a run of the checks (tsx's start included).
  expect(run.ms).toBeLessThan(30_000);
});

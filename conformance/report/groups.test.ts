import { describe, expect, test } from 'vitest';
import type { CheckResult, Finding } from '../engine/types.js';
import { findingKey, groupFindings, groupTitle, normalisedMessage } from './groups.js';
import { exchange, groupedReport } from './sample-report.js';

const runId = 'conf1234abcd';
const onUrl = (url: string, method = 'GET'): Finding['exchange'] => exchange({ request: { method, url, headers: {} } });

describe('normalisedMessage: what belongs to one request is taken out', () => {
  const cases: Array<[string, { message: string; url?: string; method?: string; operationId?: string; want: string }]> = [
    [
      "the request line of the finding's exchange",
      { message: 'POST /order → 400: Content-Type text/plain', url: 'http://h/order', method: 'POST', want: '{request} → 400: Content-Type text/plain' },
    ],
    [
      'a request line with an id in its path',
      { message: 'GET /charge/char_a1 → 401: no body', url: 'http://h/charge/char_a1', want: '{request} → 401: no body' },
    ],
    [
      'a request line the message names besides its exchange (unsupported_method names the template)',
      { message: 'PUT /charge/{id} answered 500, not 405', url: 'http://h/charge/x-absent', method: 'PUT', want: '{request} answered 500, not 405' },
    ],
    ['a method word without a path stays', { message: 'GET with id=7: refused (500)', want: 'GET with id=7: refused (500)' }],
    ['its whole URL', { message: 'http://h/client?limit=2 timed out', url: 'http://h/client?limit=2', want: '{url} timed out' }],
    [
      'the operation id, as a word only',
      { message: '200 is not documented for getCharge (getChargeQr is fine)', want: '200 is not documented for {operation} (getChargeQr is fine)' },
    ],
    ['the run id', { message: 'product conf1234abcd-p1 is listed', want: 'product {run}-p1 is listed' }],
    ['UUIDs, either case', { message: 'ids 6c4cc9f9-04ec-4ce0-935f-6411CB1089AF and 00000000-0000-0000-0000-000000000000', want: 'ids {id} and {id}' }],
    [
      'upper-case base-32 ids (ULIDs and the like), not upper-case words',
      {
        message: 'webhook XN6MMDY434M79YYB94J9TGF6W and 01ARZ3NDEKTSV4RRFFQ69G5FAV; CONTENT_TYPE_MISMATCH',
        want: 'webhook {id} and {id}; CONTENT_TYPE_MISMATCH',
      },
    ],
    [
      'a request line under a base path',
      { message: 'GET /v1/charge/char_a1 → 401: no body', url: 'http://h/v1/charge/char_a1', want: '{request} → 401: no body' },
    ],
    ["the reference server's ids (with a digit)", { message: 'clnt_9x8y7z of comp_a1b2 is listed', want: '{id} of {id} is listed' }],
    [
      'words with an underscore and numbers stay: 400 and 422 are different findings',
      { message: 'must_have 2 items, answered 422', want: 'must_have 2 items, answered 422' },
    ],
  ];
  test.each(cases)('%s', (_name, { message, url, method, operationId, want }) => {
    const finding: Finding = { outcome: 'fail', message, ...(url ? { exchange: onUrl(url, method) } : {}) };
    expect(normalisedMessage(finding, operationId ?? 'getCharge', runId)).toBe(want);
  });

  test('a run id of a few characters is left alone (it would be found in ordinary words)', () => {
    expect(normalisedMessage({ outcome: 'fail', message: 'the run x' }, 'getCharge', 'x')).toBe('the run x');
  });
});

describe('findingKey', () => {
  const result = (operationId: string, check: CheckResult['check'] = 'not_a_server_error') => ({ operationId, check });
  const finding = (message: string, url: string, extra: Partial<Finding> = {}): Finding => ({ outcome: 'info', message, exchange: onUrl(url), ...extra });
  const cases: Array<[string, { a: [ReturnType<typeof result>, Finding]; b: [ReturnType<typeof result>, Finding]; same: boolean }]> = [
    [
      'the same answer on two operations',
      {
        a: [result('getCharge'), finding('GET /charge/x1 → 500: boom', 'http://h/charge/x1')],
        b: [result('listClients'), finding('GET /client → 500: boom', 'http://h/client')],
        same: true,
      },
    ],
    [
      'another status',
      {
        a: [result('getCharge'), finding('GET /charge/x1 → 500: boom', 'http://h/charge/x1')],
        b: [result('getCharge'), finding('GET /charge/x1 → 502: boom', 'http://h/charge/x1')],
        same: false,
      },
    ],
    [
      'another check',
      { a: [result('getCharge'), finding('m', 'http://h/a')], b: [result('getCharge', 'status_code_conformance'), finding('m', 'http://h/a')], same: false },
    ],
    [
      'another outcome',
      { a: [result('getCharge'), finding('m', 'http://h/a')], b: [result('getCharge'), finding('m', 'http://h/a', { outcome: 'fail' })], same: false },
    ],
    [
      'another decision',
      {
        a: [result('getCharge'), finding('m', 'http://h/a', { decision: 'D34' })],
        b: [result('getCharge'), finding('m', 'http://h/a', { decision: 'D02' })],
        same: false,
      },
    ],
  ];
  test.each(cases)('%s', (_name, { a, b, same }) => {
    expect(findingKey(...a, runId) === findingKey(...b, runId)).toBe(same);
  });
});

describe('groupFindings', () => {
  const report = groupedReport();
  test('failures: one group per distinct finding, in the order they first come, with the operations they touched', () => {
    const groups = groupFindings(report.results, 'fail', report.runId);
    expect(groups.map((g) => [g.check, g.message, g.sameMessage, g.members.length, g.operations])).toEqual([
      [
        'not_a_server_error',
        'GET /charge/6c4cc9f9-04ec-4ce0-935f-6411cb1089af → 500: a server error',
        false,
        2,
        [
          { operationId: 'getCharge', count: 1 },
          { operationId: 'listClients', count: 1 },
        ],
      ],
      ['tenant_isolation', 'clnt_9x8y7z (conf1234abcd-B) of the other company is listed', true, 1, [{ operationId: 'listClients', count: 1 }]],
    ]);
  });
  test('info: repeated findings counted per operation; the decision keeps groups apart', () => {
    const groups = groupFindings(report.results, 'info', report.runId);
    expect(groups.map((g) => [g.decision, g.operations.map((o) => `${o.operationId}:${o.count}`).join(' ')])).toEqual([
      ['D34', 'createPaymentLink:2 createOrder:1'],
      ['D02', 'createPaymentLink:1 createOrder:1 getCharge:1'],
    ]);
  });
  test('every finding of the outcome is in exactly one group', () => {
    for (const outcome of ['fail', 'info'] as const) {
      const members = groupFindings(report.results, outcome, report.runId).flatMap((g) => g.members.map((m) => m.finding));
      const findings = report.results.flatMap((r) => r.findings.filter((f) => f.outcome === outcome));
      expect(new Set(members)).toEqual(new Set(findings));
      expect(members).toHaveLength(findings.length);
    }
  });
});

describe('groupTitle', () => {
  const groups = [...groupFindings(groupedReport().results, 'fail', runId), ...groupFindings(groupedReport().results, 'info', runId)];
  const cases: Array<[string, { index: number; want: string }]> = [
    ['on several operations: the check, the count and the operations', { index: 0, want: 'not_a_server_error × 2 on 2 operations (getCharge, listClients)' }],
    ['on one operation, once: as a result is titled', { index: 1, want: 'listClients › tenant_isolation' }],
    ['several times on one operation: counted there', { index: 2, want: 'content_type_conformance × 3 on 2 operations (createPaymentLink ×2, createOrder)' }],
  ];
  test.each(cases)('%s', (_name, { index, want }) => {
    expect(groupTitle(groups[index]!)).toBe(want);
  });
});

describe('findings of one cause across checks', () => {
  const finding = (cause?: string): Finding => ({
    outcome: 'fail',
    message: 'no delivery arrived at http://127.0.0.1:1/r within 1 s of creating charge char_a1',
    ...(cause ? { cause } : {}),
  });
  const results = (cause?: string): CheckResult[] =>
    (['webhook_signature', 'webhook_schema', 'webhook_delivery'] as const).map((check) => ({
      operationId: 'createWebhook',
      check,
      outcome: 'fail',
      findings: [finding(cause)],
    }));

  test('are one group naming every check, with a count', () => {
    const groups = groupFindings(results('no-delivery'), 'fail', runId);
    expect(groups.map(groupTitle)).toEqual(['createWebhook › webhook_signature, webhook_schema, webhook_delivery × 3']);
    expect(groups[0]!.checks).toEqual(['webhook_signature', 'webhook_schema', 'webhook_delivery']);
  });

  test('without a cause, the same message on three checks is three groups', () => {
    expect(groupFindings(results(), 'fail', runId).map(groupTitle)).toEqual([
      'createWebhook › webhook_signature',
      'createWebhook › webhook_schema',
      'createWebhook › webhook_delivery',
    ]);
  });

  test('one cause on two operations stays two groups', () => {
    const two = [...results('no-delivery'), ...results('no-delivery').map((r) => ({ ...r, operationId: 'createPaymentLink' }))];
    expect(groupFindings(two, 'fail', runId)).toHaveLength(2);
  });
});

import { describe, expect, test } from 'vitest';
import { RunContext, retryAfterMs, TargetUnreachableError } from './context.js';
import type { Exchange } from './types.js';

describe('retryAfterMs', () => {
  const now = Date.parse('2026-11-21T12:00:00.000Z');
  const cases: Array<[string, { given: string | undefined; want: number }]> = [
    ['seconds', { given: '2', want: 2_000 }],
    ['zero', { given: '0', want: 0 }],
    ['absent: one second', { given: undefined, want: 1_000 }],
    ['an HTTP date', { given: 'Sat, 21 Nov 2026 12:00:05 GMT', want: 5_000 }],
    ['a date in the past', { given: 'Sat, 21 Nov 2026 11:59:00 GMT', want: 0 }],
    ['capped at 30 s', { given: '3600', want: 30_000 }],
    ['garbage: one second', { given: 'soon', want: 1_000 }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(retryAfterMs(given, now)).toBe(want);
  });
});

describe('RunContext.request', () => {
  test('waits out a 429 and records only the answer that followed', async () => {
    let calls = 0;
    const fetchFn = (async () => {
      calls += 1;
      return calls === 1
        ? new Response('{}', { status: 429, headers: { 'Retry-After': '0', 'Content-Type': 'application/problem+json' } })
        : new Response('[]', { status: 200, headers: { 'Content-Type': 'application/json' } });
    }) as typeof fetch;
    const ctx = new RunContext(
      { baseUrl: 'http://t.test', baseUrlAlt: 'http://t.test', apiKey: 'k', profile: 'seed', readOnly: false, stateless: false, timeoutMs: 1_000 },
      { fetch: fetchFn },
    );
    const exchange = await ctx.request('listClients');
    expect(calls).toBe(2);
    expect(exchange.response?.status).toBe(200);
    expect(ctx.exchanges).toHaveLength(1);
  });

  test('gives up after five retries and records the last 429', async () => {
    let calls = 0;
    const fetchFn = (async () => {
      calls += 1;
      return new Response('{}', { status: 429, headers: { 'Retry-After': '0' } });
    }) as typeof fetch;
    const ctx = new RunContext(
      { baseUrl: 'http://t.test', baseUrlAlt: 'http://t.test', apiKey: 'k', profile: 'seed', readOnly: false, stateless: false, timeoutMs: 1_000 },
      { fetch: fetchFn },
    );
    const exchange = await ctx.request('listClients');
    expect(calls).toBe(6);
    expect(exchange.response?.status).toBe(429);
  });
});

describe('a target that stops answering', () => {
  test('ends the run after five unanswered requests in a row instead of waiting out every timeout', async () => {
    let calls = 0;
    const fetchFn = (async () => {
      calls += 1;
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    const ctx = new RunContext(
      { baseUrl: 'http://t.test', baseUrlAlt: 'http://t.test', apiKey: 'k', profile: 'seed', readOnly: false, stateless: false, timeoutMs: 1_000 },
      { fetch: fetchFn },
    );
    for (let i = 0; i < 4; i++) expect((await ctx.request('listClients')).error).toBeDefined();
    await expect(ctx.request('listClients')).rejects.toBeInstanceOf(TargetUnreachableError);
    expect(calls).toBe(5);
  });

  test('an answer in between resets the count', async () => {
    let calls = 0;
    const fetchFn = (async () => {
      calls += 1;
      if (calls === 4) return new Response('[]', { status: 200 });
      throw new TypeError('fetch failed');
    }) as typeof fetch;
    const ctx = new RunContext(
      { baseUrl: 'http://t.test', baseUrlAlt: 'http://t.test', apiKey: 'k', profile: 'seed', readOnly: false, stateless: false, timeoutMs: 1_000 },
      { fetch: fetchFn },
    );
    for (let i = 0; i < 8; i++) await ctx.request('listClients');
    expect(calls).toBe(8);
  });
});

describe('findings about an operation the seed does not list (an operation-level x-decision)', () => {
  const exchangeWith = (operationId: string): Exchange => ({
    operationId,
    request: { method: 'GET', url: 'http://t.test/x', headers: {} },
    response: { status: 404, headers: {}, body: '' },
    ms: 1,
  });
  type Record = (ctx: RunContext) => void;
  const cases: Array<[string, { given: { operationId: string; record: Record }; want: { seed: string; reference: string; decision?: string } }]> = [
    [
      'judged on the operation itself (getProduct, D37)',
      {
        given: { operationId: 'getProduct', record: (ctx) => ctx.judge('getProduct', 'status_code_conformance', false, 'x') },
        want: { seed: 'info', reference: 'fail', decision: 'D37' },
      },
    ],
    [
      'failed directly on the recorder (updateWebhook, D40)',
      {
        given: { operationId: 'updateWebhook', record: (ctx) => ctx.recorder.fail('updateWebhook', 'negative_data_rejection', 'x') },
        want: { seed: 'info', reference: 'fail', decision: 'D40' },
      },
    ],
    [
      'recorded on a seed operation, resting on an exchange with one (a product read back, D37)',
      {
        given: {
          operationId: 'createProduct',
          record: (ctx) => ctx.judge('createProduct', 'ensure_resource_availability', false, 'x', { exchange: exchangeWith('getProduct') }),
        },
        want: { seed: 'info', reference: 'fail', decision: 'D37' },
      },
    ],
    [
      'a decision the check named itself is kept',
      {
        given: { operationId: 'getOrder', record: (ctx) => ctx.judge('getOrder', 'response_schema_conformance', false, 'x', { decision: 'D13' }) },
        want: { seed: 'info', reference: 'fail', decision: 'D13' },
      },
    ],
    [
      'a seed operation (getCharge) still fails',
      {
        given: {
          operationId: 'getCharge',
          record: (ctx) => ctx.judge('getCharge', 'status_code_conformance', false, 'x', { exchange: exchangeWith('getCharge') }),
        },
        want: { seed: 'fail', reference: 'fail' },
      },
    ],
    [
      "tenant_isolation still fails: another company's record answered loses its data whichever operation answers",
      { given: { operationId: 'getOrder', record: (ctx) => ctx.judge('getOrder', 'tenant_isolation', false, 'x') }, want: { seed: 'fail', reference: 'fail' } },
    ],
    [
      'a pass stays a pass',
      {
        given: { operationId: 'getProduct', record: (ctx) => ctx.judge('getProduct', 'not_a_server_error', true, 'x') },
        want: { seed: 'pass', reference: 'pass' },
      },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    for (const profile of ['seed', 'reference'] as const) {
      const ctx = new RunContext({
        baseUrl: 'http://t.test',
        baseUrlAlt: 'http://t.test',
        apiKey: 'k',
        profile,
        readOnly: false,
        stateless: false,
        timeoutMs: 1_000,
      });
      given.record(ctx);
      const [finding] = ctx.recorder.results([given.operationId]).flatMap((r) => r.findings);
      expect(finding?.outcome, profile).toBe(want[profile]);
      if (profile === 'seed' && want.decision) expect(finding?.decision).toBe(want.decision);
    }
  });
});

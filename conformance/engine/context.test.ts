import { describe, expect, test } from 'vitest';
import { RunContext, retryAfterMs, TargetUnreachableError } from './context.js';

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

import { afterEach, describe, expect, test } from 'vitest';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { RateLimiter, type RequestCounter } from './rate-limit.js';
import { ProblemError } from './problems.js';

/** Counts as a store does, in memory. */
function counter(): RequestCounter {
  const windows = new Map<string, number>();
  return async (key, windowStart) => {
    const id = `${key} ${windowStart}`;
    windows.set(id, (windows.get(id) ?? 0) + 1);
    return windows.get(id)!;
  };
}

describe('RateLimiter', () => {
  const cases: Array<[string, { given: { limit: number; window: number; requests: number[] }; want: { refused: number[]; retryAfter?: string } }]> = [
    ['under the limit', { given: { limit: 3, window: 1, requests: [0, 10, 20] }, want: { refused: [] } }],
    ['the fourth of three in one second', { given: { limit: 3, window: 1, requests: [0, 10, 20, 30] }, want: { refused: [3], retryAfter: '1' } }],
    ['a new window admits again', { given: { limit: 2, window: 1, requests: [0, 10, 999, 1000, 1001] }, want: { refused: [2] } }],
    ['retry after the rest of a long window', { given: { limit: 1, window: 10, requests: [0, 2500] }, want: { refused: [1], retryAfter: '8' } }],
    ['limit 0 turns it off', { given: { limit: 0, window: 1, requests: [0, 0, 0, 0] }, want: { refused: [] } }],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    const limiter = new RateLimiter(given.limit, given.window, counter());
    const refused: number[] = [];
    let retryAfter: string | undefined;
    for (const [i, at] of given.requests.entries()) {
      try {
        await limiter.take('key', at);
      } catch (error) {
        expect(error).toBeInstanceOf(ProblemError);
        refused.push(i);
        retryAfter = (error as ProblemError).extraHeaders['Retry-After'];
      }
    }
    expect(refused).toEqual(want.refused);
    if (want.retryAfter) expect(retryAfter).toBe(want.retryAfter);
  });

  test('keys have separate quotas', async () => {
    const limiter = new RateLimiter(1, 1, counter());
    await limiter.take('a', 0);
    await expect(limiter.take('b', 0)).resolves.toBeUndefined();
    await expect(limiter.take('a', 0)).rejects.toThrow(ProblemError);
  });
});

describe('429 through the app', () => {
  let server: TestServer;
  afterEach(async () => {
    expect(server.violations).toEqual([]);
    await server.close();
  });

  test('the request over the quota is a 429 problem with Retry-After and RateLimit fields; another company is not affected', async () => {
    const now = new Date('2026-11-21T12:00:00.000Z');
    server = await createTestServer({ config: { rateLimitRequests: 2, rateLimitWindowSeconds: 60 }, now: () => now });
    expect((await server.api.GET('/client')).response.status).toBe(200);
    expect((await server.api.GET('/client')).response.status).toBe(200);
    const refused = await server.api.GET('/client');
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.response.headers.get('retry-after')).toBe('60');
    expect(refused.response.headers.get('ratelimit')).toBe('"default";r=0;t=60');
    expect(refused.response.headers.get('ratelimit-policy')).toBe('"default";q=2;w=60');
    expect(refused.error).toMatchObject({ type: '/problems/rate-limited', status: 429 });
    expect((await server.other.api.GET('/client')).response.status).toBe(200);
  });
});

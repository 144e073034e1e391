import { afterEach, describe, expect, test } from 'vitest';
import { createTestServer, socketEnv, type TestServer } from '../test-support/harness.js';
import { quotaAddress } from './client-address.js';
import { RateLimiter, type RequestCounter } from './rate-limit.js';
import { ProblemError } from './problems.js';
import type { Config } from '../config.js';
import { issueApiKey } from '../auth/api-keys.js';
import { RateWindows } from '../store/sqlite/rate-windows.js';
import { read } from '../test-support/fixtures.js';

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
        await limiter.take({ companyId: 'key' }, at);
      } catch (error) {
        expect(error).toBeInstanceOf(ProblemError);
        refused.push(i);
        retryAfter = (error as ProblemError).extraHeaders['Retry-After'];
      }
    }
    expect(refused).toEqual(want.refused);
    if (want.retryAfter) expect(retryAfter).toBe(want.retryAfter);
  });

  test('companies have separate quotas', async () => {
    const limiter = new RateLimiter(1, 1, counter());
    await limiter.take({ companyId: 'a' }, 0);
    await expect(limiter.take({ companyId: 'b' }, 0)).resolves.toBeDefined();
    await expect(limiter.take({ companyId: 'a' }, 0)).rejects.toThrow(ProblemError);
  });
});

describe('RateLimiter: addresses and fields', () => {
  test('every counted request gets the fields, r counting down, t the seconds to the window end', async () => {
    const limiter = new RateLimiter(3, 10, counter(), 2);
    expect(await limiter.take({ companyId: 'k' }, 2_500)).toEqual({ RateLimit: '"default";r=2;t=8', 'RateLimit-Policy': '"default";q=3;w=10' });
    expect(await limiter.take({ companyId: 'k' }, 9_000)).toEqual({ RateLimit: '"default";r=1;t=1', 'RateLimit-Policy': '"default";q=3;w=10' });
    expect(await limiter.take({ address: '203.0.113.7' }, 0)).toEqual({ RateLimit: '"anonymous";r=1;t=10', 'RateLimit-Policy': '"anonymous";q=2;w=10' });
  });

  test('an address has its own quota, apart from the keys (even one named like it)', async () => {
    const limiter = new RateLimiter(1, 1, counter(), 1);
    await limiter.take({ address: '203.0.113.7' }, 0);
    await expect(limiter.take({ companyId: '203.0.113.7' }, 0)).resolves.toBeDefined();
    await expect(limiter.take({ address: '203.0.113.8' }, 0)).resolves.toBeDefined();
    const refused = await limiter.take({ address: '203.0.113.7' }, 0).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ProblemError);
    expect((refused as ProblemError).extraHeaders).toEqual({ 'Retry-After': '1', RateLimit: '"anonymous";r=0;t=1', 'RateLimit-Policy': '"anonymous";q=1;w=1' });
    expect((refused as ProblemError).message).toMatch(/^This address, without a valid API key, made more than 1 requests in 1 second/);
  });

  test.each<[string, { limit: number; anonymous: number; want: { key: boolean; address: boolean } }]>([
    ['a key limit of 0 turns both off (one switch)', { limit: 0, anonymous: 5, want: { key: false, address: false } }],
    ['an anonymous limit of 0 turns only that one off', { limit: 5, anonymous: 0, want: { key: true, address: false } }],
  ])('%s', async (_name, { limit, anonymous, want }) => {
    const limiter = new RateLimiter(limit, 1, counter(), anonymous);
    expect((await limiter.take({ companyId: 'k' }, 0)) !== undefined).toBe(want.key);
    expect((await limiter.take({ address: '203.0.113.7' }, 0)) !== undefined).toBe(want.address);
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

  test('every answer carries RateLimit and RateLimit-Policy: a 200 with r counting down, a 404, a 422', async () => {
    const now = new Date('2026-11-21T12:00:10.000Z');
    server = await createTestServer({ config: { rateLimitRequests: 5, rateLimitWindowSeconds: 60 }, now: () => now });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { response } = await server.api.GET('/client');
      expect(response.status).toBe(200);
      expect(response.headers.get('ratelimit-policy')).toBe('"default";q=5;w=60');
      remaining.push(response.headers.get('ratelimit')!);
    }
    expect(remaining).toEqual(['"default";r=4;t=50', '"default";r=3;t=50', '"default";r=2;t=50']);
    const missing = await server.request('/charge/char_00000000000000000000000000');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('ratelimit')).toBe('"default";r=1;t=50');
    const invalid = await server.request('/client?limit=0');
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get('ratelimit')).toBe('"default";r=0;t=50');
  });
});

describe('one quota per company, whichever of its keys is used (D11)', () => {
  let server: TestServer;
  afterEach(async () => {
    expect(server.violations).toEqual([]);
    await server.close();
  });

  test('a second key of the company spends the same quota: RateLimit counts both, the third request is 429', async () => {
    const now = new Date('2026-11-21T12:00:00.000Z');
    server = await createTestServer({ config: { rateLimitRequests: 2, rateLimitWindowSeconds: 60 }, now: () => now });
    const second = issueApiKey(server.companyId, now);
    expect(await server.deps.store.addApiKey(second.record)).toBe(true);
    const first = await server.request('/client');
    expect(first.status).toBe(200);
    expect(first.headers.get('ratelimit')).toBe('"default";r=1;t=60');
    const withSecond = await server.request('/client', { apiKey: second.apiKey });
    expect(withSecond.status).toBe(200);
    expect(withSecond.headers.get('ratelimit')).toBe('"default";r=0;t=60');
    const over = await server.request('/client', { apiKey: second.apiKey });
    expect(over.status).toBe(429);
    expect(over.headers.get('ratelimit')).toBe('"default";r=0;t=60');
    expect(over.headers.get('ratelimit-policy')).toBe('"default";q=2;w=60');
    expect((await read(over)).json).toMatchObject({
      detail: expect.stringMatching(/^This company's API keys together made more than 2 requests in 60 seconds/),
    });
    expect((await server.request('/client')).status).toBe(429);
    // Another company keeps its own.
    expect((await server.other.api.GET('/client')).response.headers.get('ratelimit')).toBe('"default";r=1;t=60');
  });
});

describe('the in-memory counters are bounded: the least recently used goes, never all (D11)', () => {
  test('past the cap one counter goes for each new one, the least recently used', () => {
    const windows = new RateWindows(3);
    windows.count('a', 0);
    windows.count('b', 0);
    windows.count('c', 0);
    windows.count('a', 0);
    windows.count('d', 0);
    expect(windows.size).toBe(3);
    // b was the least recently used: it starts again; a was kept.
    expect(windows.count('a', 0)).toBe(3);
    expect(windows.count('b', 0)).toBe(1);
  });

  test('a company over its quota stays over while many more addresses than the cap ask', async () => {
    const windows = new RateWindows(10);
    const limiter = new RateLimiter(2, 60, async (key, start) => windows.count(key, start), 1);
    await limiter.take({ companyId: 'comp_a' }, 0);
    await limiter.take({ companyId: 'comp_a' }, 0);
    await expect(limiter.take({ companyId: 'comp_a' }, 0)).rejects.toThrow(ProblemError);
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 9; i++) await limiter.take({ address: `198.51.${round}.${i}` }, 1_000);
      await expect(limiter.take({ companyId: 'comp_a' }, 1_000)).rejects.toThrow(ProblemError);
    }
    expect(windows.size).toBe(10);
  });

  test('an address over its quota stays over while 100 other addresses ask (cap 10)', async () => {
    const windows = new RateWindows(10);
    const limiter = new RateLimiter(5, 60, async (key, start) => windows.count(key, start), 1);
    await limiter.take({ address: '203.0.113.7' }, 0);
    for (let i = 0; i < 100; i++) {
      await limiter.take({ address: `198.51.100.${i}` }, 0);
      if (i % 5 === 4) await expect(limiter.take({ address: '203.0.113.7' }, 0)).rejects.toThrow(ProblemError);
    }
  });

  test('a counter nobody used for cap requests of others starts again (the oldest goes)', () => {
    const windows = new RateWindows(2);
    windows.count('quiet', 0);
    windows.count('x', 0);
    windows.count('y', 0);
    expect(windows.count('quiet', 0)).toBe(1);
  });
});

describe('requests without a valid key are limited per client address (D11)', () => {
  let server: TestServer;
  afterEach(async () => {
    expect(server.violations).toEqual([]);
    await server.close();
  });
  const wrongKey = `sk_${'z'.repeat(24)}_${'A'.repeat(43)}`;
  const now = new Date('2026-11-21T12:00:00.000Z');
  const start = (config: Partial<Config> = {}) =>
    createTestServer({ config: { rateLimitRequests: 10, rateLimitAnonymousRequests: 3, rateLimitWindowSeconds: 60, ...config }, now: () => now });

  test.each<[string, { apiKey: (server: TestServer) => string | null }]>([
    ['a wrong key', { apiKey: () => wrongKey }],
    ['no key', { apiKey: () => null }],
    ['a malformed key', { apiKey: () => 'not-a-key' }],
    ["a key's id with a wrong secret", { apiKey: (s) => `${s.apiKey.slice(0, -1)}${s.apiKey.endsWith('A') ? 'B' : 'A'}` }],
  ])('a flood with %s from one address: 401s, then 429 with Retry-After; another address and a valid key are not affected', async (_name, { apiKey }) => {
    server = await start();
    const flood = [];
    for (let i = 0; i < 5; i++) flood.push(await server.request('/client', { apiKey: apiKey(server), from: '203.0.113.7' }));
    expect(flood.map((r) => r.status)).toEqual([401, 401, 401, 429, 429]);
    expect(flood.map((r) => r.headers.get('ratelimit'))).toEqual([
      '"anonymous";r=2;t=60',
      '"anonymous";r=1;t=60',
      '"anonymous";r=0;t=60',
      '"anonymous";r=0;t=60',
      '"anonymous";r=0;t=60',
    ]);
    expect(flood.every((r) => r.headers.get('ratelimit-policy') === '"anonymous";q=3;w=60')).toBe(true);
    expect(flood[3]!.headers.get('retry-after')).toBe('60');
    expect(await flood[3]!.json()).toMatchObject({ type: '/problems/rate-limited', status: 429 });

    const elsewhere = await server.request('/client', { apiKey: wrongKey, from: '198.51.100.2' });
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get('ratelimit')).toBe('"anonymous";r=2;t=60');
    const keyed = await server.request('/client', { from: '203.0.113.7' });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get('ratelimit')).toBe('"default";r=9;t=60');
  });

  test('the public pages and the docs spend the same address quota', async () => {
    server = await start();
    const paths = ['/docs/', '/openapi.json', '/pay/char_00000000000000000000000000', '/no-such-path'];
    const statuses = [];
    // Not operations: straight to the app, not through the contract's checker.
    for (const path of paths) statuses.push((await server.app.request(path, {}, socketEnv('203.0.113.9'))).status);
    expect(statuses).toEqual([200, 200, 404, 429]);
  });

  test('an IPv6 client counts by its /64; an IPv4-mapped address as its IPv4 one', async () => {
    server = await start({ rateLimitAnonymousRequests: 2 });
    expect((await server.request('/client', { apiKey: null, from: '2001:db8:1:2::1' })).status).toBe(401);
    expect((await server.request('/client', { apiKey: null, from: '2001:db8:1:2:ffff::9' })).status).toBe(401);
    expect((await server.request('/client', { apiKey: null, from: '2001:db8:1:3::1' })).status).toBe(401);
    expect((await server.request('/client', { apiKey: null, from: '2001:0db8:0001:0002:0:0:0:abcd' })).status).toBe(429);
    expect((await server.request('/client', { apiKey: null, from: '::ffff:192.0.2.1' })).status).toBe(401);
    expect((await server.request('/client', { apiKey: null, from: '192.0.2.1' })).status).toBe(401);
    expect((await server.request('/client', { apiKey: null, from: '192.0.2.1' })).status).toBe(429);
  });

  test('a forwarded header is ignored unless TRUSTED_PROXY_HEADER names it', async () => {
    server = await start();
    // Unset: one client rotating X-Forwarded-For is still one address.
    const spoofed = [];
    for (let i = 0; i < 4; i++)
      spoofed.push((await server.request('/client', { apiKey: null, from: '203.0.113.7', headers: { 'X-Forwarded-For': `192.0.2.${i}` } })).status);
    expect(spoofed).toEqual([401, 401, 401, 429]);
  });

  test('behind a trusted proxy its right-most entry is the client; what the client wrote before it changes nothing', async () => {
    server = await start({ trustedProxyHeader: 'x-forwarded-for' });
    const viaProxy = (client: string, sent = '') =>
      server.request('/client', { apiKey: null, from: '10.0.0.5', headers: { 'X-Forwarded-For': `${sent}${client}` } }).then((r) => r.status);
    const one = [];
    for (let i = 0; i < 4; i++) one.push(await viaProxy('203.0.113.7', `192.0.2.${i}, `));
    expect(one).toEqual([401, 401, 401, 429]);
    // Another client behind the same proxy has its own quota.
    expect(await viaProxy('198.51.100.2')).toBe(401);
    // Without the header (a request that did not come through the proxy), the socket's address.
    const direct = await server.request('/client', { apiKey: null, from: '10.0.0.5' });
    expect(direct.headers.get('ratelimit')).toBe('"anonymous";r=2;t=60');
  });

  test('RFC 7239 Forwarded: the for= of its last element', async () => {
    server = await start({ trustedProxyHeader: 'forwarded', rateLimitAnonymousRequests: 1 });
    const send = (forwarded: string) => server.request('/client', { apiKey: null, from: '10.0.0.5', headers: { Forwarded: forwarded } }).then((r) => r.status);
    expect(await send('for=192.0.2.1, for="[2001:db8::1]:4711";proto=https')).toBe(401);
    expect(await send('for=192.0.2.2;by=10.0.0.5, for="[2001:db8:0:0:9::2]"')).toBe(429);
    expect(await send('for=198.51.100.2:80')).toBe(401);
  });

  test('RATE_LIMIT_REQUESTS=0 turns the address limit off too (one switch): no 429, no fields', async () => {
    server = await start({ rateLimitRequests: 0 });
    for (let i = 0; i < 6; i++) {
      const response = await server.request('/client', { apiKey: wrongKey, from: '203.0.113.7' });
      expect(response.status).toBe(401);
      expect(response.headers.has('ratelimit')).toBe(false);
    }
  });
});

describe('quotaAddress: the unit an anonymous quota counts (D11)', () => {
  test.each([
    ['an IPv4 address', '203.0.113.7', '203.0.113.7'],
    ['an IPv4-mapped IPv6 address counts as its IPv4 one', '::ffff:203.0.113.7', '203.0.113.7'],
    ['… in hex', '::ffff:cb00:7107', '203.0.113.7'],
    ['an IPv6 address by its /64', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['… however it is written', '2001:0DB8:0001:0002::9', '2001:db8:1:2::/64'],
    ['… with a zone', 'fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['not an address: as it is', 'unknown', 'unknown'],
  ])('%s', (_name, given, want) => {
    expect(quotaAddress(given)).toBe(want);
  });
});

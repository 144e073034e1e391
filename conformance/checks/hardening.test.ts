/**
 * @full-run-only: it runs conformance checks over every operation of the contract, but `npm run test:operation` leaves it to `npm test`: its attack-shaped requests against the reference server take about twelve seconds, half the loop; the loop's own conformance step runs the hardening checks of the operation.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadBundledContract, resolvePointer } from '../../lib/contract/bundled.js';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { RunContext } from '../engine/context.js';
import type { CheckName, ConformanceOptions, Outcome, Profile } from '../engine/types.js';
import { giveFixtures, testRunOptions } from '../test-support/fixtures.js';
import { announcedQuota, FLOOD_MAX, hardeningCheck, internalWebhookUrls, PROMPT_MS } from './hardening.js';

const contract = loadBundledContract();
const example = (name: string): unknown => structuredClone(resolvePointer(contract, `/components/examples/${name}/value`));

/** A deployment: the reference server in a mode, seen through a fault. */
type Fault = (request: Request, next: (request: Request) => Promise<Response>) => Promise<Response>;

const servers: Partial<Record<'development' | 'production', TestServer>> = {};
const fixtures: Partial<Record<'development' | 'production', { productId: string; clientId: string }>> = {};

beforeAll(async () => {
  for (const mode of ['development', 'production'] as const) {
    const server = await createTestServer({ config: { mode } });
    const post = async (path: string, body: unknown): Promise<string> => {
      const response = await server.request(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      return ((await response.json()) as { id: string }).id;
    };
    servers[mode] = server;
    fixtures[mode] = { productId: await post('/product', example('ProductCreateRequest')), clientId: await post('/client', example('ClientCreateRequest')) };
  }
});
afterAll(async () => {
  for (const server of Object.values(servers)) await server.close();
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers } });

/** The requests a fault saw, for the cases that look at what the run sent. */
let seen: Array<{ method: string; path: string; body?: string }> = [];

const faults: Record<string, Fault> = {
  correct: (request, next) => next(request),
  // Refuses oversized bodies, but only after checking every item (the uniqueItems cost).
  slowRefusal: async (request, next) => {
    if (request.method !== 'GET' && (await request.clone().text()).length > 100_000) await new Promise((resolve) => setTimeout(resolve, PROMPT_MS + 300));
    return next(request);
  },
  // Refuses oversized arrays at once, but parses a deeply nested body before any bound (the JSON.parse cost).
  slowOnDeep: async (request, next) => {
    if (request.method !== 'GET' && (await request.clone().text()).includes('['.repeat(1_000)))
      await new Promise((resolve) => setTimeout(resolve, PROMPT_MS + 300));
    return next(request);
  },
  // Stores whatever it is sent: an oversized registration is created (and must then be deleted).
  acceptsOversized: async (request, next) =>
    request.method === 'POST' && (await request.clone().text()).length > 100_000 ? next(withEvents(request)) : next(request),
  // Limits wrong keys after five requests, announcing the quota on every answer.
  limitsWrongKeys: limitingWrongKeys('60'),
};

/** A deployment that answers 429 from the sixth request with a wrong key, with this Retry-After (none: undefined). */
function limitingWrongKeys(retryAfter: string | undefined): Fault {
  let wrong = 0;
  return async (request, next) => {
    const response = await next(request);
    if (response.status !== 401) return response;
    wrong += 1;
    const policy = { 'RateLimit-Policy': '"anonymous";q=5;w=60' };
    return wrong > 5
      ? json(
          429,
          { type: '/problems/rate-limited', title: 'Too many requests', status: 429, detail: 'Retry later.' },
          { ...policy, ...(retryAfter === undefined ? {} : { 'Retry-After': retryAfter }) },
        )
      : new Response(response.body, { status: 401, headers: { ...Object.fromEntries(response.headers), ...policy } });
  };
}

/** The request with its oversized `events` cut to one valid event, so the real server stores it. */
function withEvents(request: Request): Request {
  return new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: JSON.stringify({ url: 'https://conformance.invalid/x', name: 'grande', events: ['charge.paid'] }),
  });
}

async function run(mode: 'development' | 'production', fault: Fault, profile: Profile, over: Partial<ConformanceOptions>): Promise<RunContext> {
  const server = servers[mode]!;
  seen = [];
  const fetchFn = (async (url: string | URL | Request, init?: RequestInit) => {
    const request = new Request(url, init);
    seen.push({ method: request.method, path: new URL(request.url).pathname });
    return fault(request, async (r) => server.app.fetch(r));
  }) as typeof fetch;
  const ctx = new RunContext(testRunOptions({ apiKey: server.apiKey, profile, timeoutMs: 10_000, runId: 'confhard', ...over }), { fetch: fetchFn });
  giveFixtures(ctx, fixtures[mode]!);
  await hardeningCheck.run(ctx);
  return ctx;
}

function outcomes(ctx: RunContext, check: CheckName): Record<string, Outcome> {
  return Object.fromEntries(
    ctx.recorder
      .results(ctx.operations.map((op) => op.operationId))
      .filter((r) => r.check === check && r.outcome !== undefined)
      .map((r) => [r.operationId, r.outcome]),
  );
}

describe('bounded_input', () => {
  const cases: Array<[string, { fault: keyof typeof faults; profile: Profile; only: string[]; want: Record<string, Outcome> }]> = [
    [
      'the reference server refuses every oversized array at once',
      {
        fault: 'correct',
        profile: 'reference',
        only: ['createPaymentLink', 'createOrder', 'createWebhook', 'updateWebhook'],
        want: { createPaymentLink: 'pass', createOrder: 'pass', createWebhook: 'pass', updateWebhook: 'pass' },
      },
    ],
    [
      'a refusal that takes seconds fails (reference)',
      { fault: 'slowRefusal', profile: 'reference', only: ['createWebhook'], want: { createWebhook: 'fail' } },
    ],
    [
      '… and is information in the seed profile (the bound is D49)',
      { fault: 'slowRefusal', profile: 'seed', only: ['createWebhook'], want: { createWebhook: 'info' } },
    ],
    ['an oversized array accepted fails', { fault: 'acceptsOversized', profile: 'reference', only: ['createWebhook'], want: { createWebhook: 'fail' } }],
    [
      'a megabyte of nesting refused only after seconds fails',
      { fault: 'slowOnDeep', profile: 'reference', only: ['createWebhook'], want: { createWebhook: 'fail' } },
    ],
  ];
  test.each(cases)('%s', async (_name, { fault, profile, only, want }) => {
    const ctx = await run('development', faults[fault]!, profile, { only });
    expect(outcomes(ctx, 'bounded_input')).toEqual(want);
    // What was sent is named in the report, not copied into it.
    for (const exchange of ctx.exchanges.filter((e) => (e.request.body ?? '').startsWith('(')))
      expect(exchange.request.body).toMatch(/bytes: the valid body with (\d+ items|500,000 nested arrays) in \w+\)$/);
  });

  test('a registration the oversized body created is deleted before the run goes on', async () => {
    const before = (await servers.development!.api.GET('/webhook')).data!.length;
    await run('development', faults.acceptsOversized!, 'reference', { only: ['createWebhook'] });
    expect(seen.some((r) => r.method === 'DELETE' && r.path.startsWith('/webhook/'))).toBe(true);
    expect((await servers.development!.api.GET('/webhook')).data).toHaveLength(before);
  });

  test('--read-only: skipped', async () => {
    const ctx = await run('development', faults.correct!, 'reference', { only: ['createWebhook'], readOnly: true });
    expect(outcomes(ctx, 'bounded_input')).toEqual({ createWebhook: 'skip' });
  });
});

describe('webhook_url_policy', () => {
  test('a production deployment refuses every internal address', async () => {
    const ctx = await run('production', faults.correct!, 'reference', { only: ['createWebhook'], production: true });
    expect(outcomes(ctx, 'webhook_url_policy')).toEqual({ createWebhook: 'pass' });
    const sent = ctx.exchanges.filter((e) => e.operationId === 'createWebhook' && internalWebhookUrls.some((url) => e.request.body?.includes(url)));
    expect(sent).toHaveLength(internalWebhookUrls.length);
  });

  test('a deployment that accepts loopback receivers fails, and every registration it accepted is deleted at once', async () => {
    const server = servers.development!;
    const before = (await server.api.GET('/webhook')).data!.length;
    const ctx = await run('development', faults.correct!, 'reference', { only: ['createWebhook'], production: true });
    expect(outcomes(ctx, 'webhook_url_policy')).toEqual({ createWebhook: 'fail' });
    const result = ctx.recorder.results(['createWebhook']).find((r) => r.check === 'webhook_url_policy')!;
    expect(result.findings.filter((f) => f.outcome === 'fail').map((f) => f.message)).toEqual(
      expect.arrayContaining([expect.stringContaining('http://127.0.0.1:8080/hooks')]),
    );
    // Each accepted registration is deleted by the next request, before anything else is sent.
    const registrations = ctx.exchanges.filter((e) => e.operationId === 'createWebhook' && internalWebhookUrls.some((url) => e.request.body?.includes(url)));
    expect(registrations).toHaveLength(internalWebhookUrls.length);
    const accepted = registrations.filter((e) => e.response?.status === 201);
    expect(accepted.length).toBeGreaterThan(0);
    for (const exchange of accepted) {
      const next = ctx.exchanges[ctx.exchanges.indexOf(exchange) + 1];
      expect(next?.operationId).toBe('deleteWebhook');
      expect(next?.request.url).toContain((JSON.parse(exchange.response!.body) as { id: string }).id);
    }
    expect((await server.api.GET('/webhook')).data).toHaveLength(before);
  });

  test('in the seed profile it is information (registration is D40)', async () => {
    const ctx = await run('development', faults.correct!, 'seed', { only: ['createWebhook'], production: true });
    expect(outcomes(ctx, 'webhook_url_policy')).toEqual({ createWebhook: 'info' });
  });

  test('without --production: skipped, and nothing is registered', async () => {
    const ctx = await run('production', faults.correct!, 'reference', { only: ['createWebhook'] });
    expect(outcomes(ctx, 'webhook_url_policy')).toEqual({ createWebhook: 'skip' });
    expect(ctx.recorder.results(['createWebhook']).find((r) => r.check === 'webhook_url_policy')?.skipReason).toContain('--production');
  });
});

describe('auth_flood_limited', () => {
  test('limited once the announced quota is spent: pass, at the first 429', async () => {
    const ctx = await run('development', faults.limitsWrongKeys!, 'reference', { only: ['listClients'], flood: true });
    expect(outcomes(ctx, 'auth_flood_limited')).toEqual({ listClients: 'pass' });
    expect(seen.filter((r) => r.path === '/client')).toHaveLength(6);
  });

  test.each<[string, { retryAfter: string | undefined; want: 'pass' | RegExp }]>([
    ['Retry-After in seconds', { retryAfter: '60', want: 'pass' }],
    ['Retry-After as an HTTP-date', { retryAfter: 'Sat, 28 Nov 2026 14:31:00 GMT', want: 'pass' }],
    ['no Retry-After', { retryAfter: undefined, want: /^requests with a key nobody issued were limited \(429\) without Retry-After; a 429 says when/ }],
    ['a Retry-After that is no delay', { retryAfter: 'soon', want: /with a Retry-After that is neither seconds nor a date \("soon"\)/ }],
  ])('a 429 with %s: %s in the reference profile, information in the seed profile (D11)', async (_name, { retryAfter, want }) => {
    const ctx = await run('development', limitingWrongKeys(retryAfter), 'reference', { only: ['listClients'], flood: true });
    const [result] = ctx.recorder.results(['listClients']).filter((r) => r.check === 'auth_flood_limited');
    if (want === 'pass') {
      expect(result?.outcome).toBe('pass');
      return;
    }
    expect(result?.outcome).toBe('fail');
    expect(result?.findings.filter((f) => f.outcome === 'fail').map((f) => f.message)).toEqual([expect.stringMatching(want)]);
    const seed = await run('development', limitingWrongKeys(retryAfter), 'seed', { only: ['listClients'], flood: true });
    expect(outcomes(seed, 'auth_flood_limited')).toEqual({ listClients: 'info' });
  });

  test('never limited: fails after at most FLOOD_MAX requests, information in the seed profile', async () => {
    const ctx = await run('development', faults.correct!, 'reference', { only: ['listClients'], flood: true });
    expect(outcomes(ctx, 'auth_flood_limited')).toEqual({ listClients: 'fail' });
    expect(seen.filter((r) => r.path === '/client').length).toBeLessThanOrEqual(FLOOD_MAX);
    const seed = await run('development', faults.correct!, 'seed', { only: ['listClients'], flood: true });
    expect(outcomes(seed, 'auth_flood_limited')).toEqual({ listClients: 'info' });
  });

  test('without --flood: skipped, and nothing is sent', async () => {
    const ctx = await run('development', faults.correct!, 'reference', { only: ['listClients'] });
    expect(outcomes(ctx, 'auth_flood_limited')).toEqual({ listClients: 'skip' });
    expect(seen).toHaveLength(0);
  });

  test.each([
    ['"default";q=100;w=60', 100],
    ['"anonymous";w=60;q=7', 7],
    [undefined, undefined],
    ['"default";w=60', undefined],
  ] as const)('announcedQuota(%s) = %s', (header, want) => {
    expect(announcedQuota(header)).toBe(want);
  });
});

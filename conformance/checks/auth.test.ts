/**
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listOperations, loadBundledContract, resolvePointer } from '../../lib/contract/bundled.js';
import { parseApiKey } from '../../server/auth/api-keys.js';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { RunContext } from '../engine/context.js';
import type { ConformanceOptions, Outcome, Profile } from '../engine/types.js';
import { authCheck, malformedApiKey, statelessAuthReason, unknownApiKey } from './auth.js';
import { getOnlyReason as readOnlyReason } from './stateful.js';
import { giveFixtures, testRunOptions } from '../test-support/fixtures.js';

const contract = loadBundledContract();
const example = (name: string): unknown => structuredClone(resolvePointer(contract, `/components/examples/${name}/value`));

let server: TestServer;
let fixtures: { productId: string; subscriptionProductId: string; clientId: string };

beforeAll(async () => {
  server = await createTestServer();
  const post = async (path: string, body: unknown): Promise<string> => {
    const response = await server.request(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return ((await response.json()) as { id: string }).id;
  };
  const productId = await post('/product', example('ProductCreateRequest'));
  fixtures = { productId, subscriptionProductId: productId, clientId: await post('/client', example('ClientCreateRequest')) };
});
afterAll(async () => server.close());

/** Sends a request to the in-process reference server, through a fault when given. */
type Fault = (request: Request, next: (request: Request) => Promise<Response>) => Promise<Response>;

const withKey = (request: Request, key: string): Request => {
  const headers = new Headers(request.headers);
  headers.set('X-API-KEY', key);
  return new Request(request, { headers });
};
const problem = (status: number, title: string): Response =>
  new Response(JSON.stringify({ type: '/problems/x', title, status, detail: title }), { status, headers: { 'Content-Type': 'application/problem+json' } });

/** Faults a deployment can have, each a wrapper of the correct server. */
const faults: Record<string, Fault> = {
  correct: (request, next) => next(request),
  // Serves every request as the first company's, whatever key it carries.
  authIgnored: (request, next) => next(withKey(request, server.apiKey)),
  // Checks that a key is present, not that anybody issued it (what a mock does).
  presenceOnly: (request, next) => (request.headers.get('x-api-key') ? next(withKey(request, server.apiKey)) : next(request)),
  forbiddenNotUnauthorized: async (request, next) => {
    const response = await next(request);
    return response.status === 401 ? problem(403, 'Forbidden') : response;
  },
  // Looks the request up (404, 422) before it checks the key; refuses the valid ones.
  requestBeforeKey: async (request, next) => {
    const key = request.headers.get('x-api-key');
    if (key === server.apiKey) return next(request);
    const response = await next(withKey(request, server.apiKey));
    return response.status < 300 ? problem(401, 'Unauthorized') : response;
  },
};

function options(profile: Profile, over: Partial<ConformanceOptions> = {}): ConformanceOptions {
  return testRunOptions({ apiKey: server.apiKey, profile, timeoutMs: 5_000, runId: 'confauth', ...over });
}

async function run(profile: Profile, fault: Fault, over: Partial<ConformanceOptions> = {}): Promise<RunContext> {
  const fetchFn = ((url: string | URL | Request, init?: RequestInit) => fault(new Request(url, init), async (r) => server.app.fetch(r))) as typeof fetch;
  const ctx = new RunContext(options(profile, over), { fetch: fetchFn });
  giveFixtures(ctx, fixtures);
  await authCheck.run(ctx);
  // As a run does when its checks are done: the registrations it made go (a company has at most 16).
  await ctx.cleanUp();
  return ctx;
}

const outcomes = (ctx: RunContext): Record<string, Outcome> =>
  Object.fromEntries(
    ctx.recorder
      .results(ctx.operations.map((op) => op.operationId))
      .filter((r) => r.check === 'ignored_auth')
      .map((r) => [r.operationId, r.outcome]),
  );

/** Every operation a run sends requests to: all but those marked `x-resets-company` (D51), which it never sends. */
const everyOperation = (outcome: Outcome): Record<string, Outcome> =>
  Object.fromEntries(
    listOperations(contract)
      .filter((op) => op.operation['x-resets-company'] !== true)
      .map((op) => [op.operationId, outcome]),
  );

// Each case: a fault, and the outcome of ignored_auth per operation in each profile.
const cases: Array<[string, { given: keyof typeof faults; want: Record<Profile, Record<string, Outcome>> }]> = [
  ['a correct server refuses every bad key with 401', { given: 'correct', want: { seed: everyOperation('pass'), reference: everyOperation('pass') } }],
  [
    'auth ignored: fails where the seed requires the key; a decision on {base_url_alt}',
    {
      given: 'authIgnored',
      want: {
        // getWebhook's key is required by the seed: a webhook the run registered is served without one.
        seed: { listClients: 'fail', getCharge: 'fail', createPaymentLink: 'fail', getWebhook: 'fail', createClient: 'info', createProduct: 'info' },
        reference: { listClients: 'fail', getCharge: 'fail', createPaymentLink: 'fail', getWebhook: 'fail', createClient: 'fail', createProduct: 'fail' },
      },
    },
  ],
  [
    'only the presence of a key is checked',
    {
      given: 'presenceOnly',
      want: { seed: { listClients: 'fail', getCharge: 'fail', createClient: 'info' }, reference: { listClients: 'fail', createClient: 'fail' } },
    },
  ],
  [
    '403 instead of 401 departs from D02 only',
    { given: 'forbiddenNotUnauthorized', want: { seed: everyOperation('info'), reference: everyOperation('fail') } },
  ],
  [
    'the request is looked at before the key: 404 or 422 before 401',
    {
      given: 'requestBeforeKey',
      want: {
        // Every request is valid (the run registers a webhook for getWebhook), so the key is what is refused.
        seed: { listClients: 'pass', getCharge: 'pass', createPaymentLink: 'pass', updateSubscription: 'pass', getWebhook: 'pass' },
        reference: { listClients: 'pass', getCharge: 'pass', createPaymentLink: 'pass', updateSubscription: 'pass', getWebhook: 'pass' },
      },
    },
  ],
];

describe('authCheck', () => {
  test.each(cases)('%s', async (_name, { given, want }) => {
    for (const profile of ['seed', 'reference'] as const) {
      const ctx = await run(profile, faults[given]!);
      expect(outcomes(ctx), profile).toMatchObject(want[profile]);
    }
  });

  test('findings name the decision they depart from (seed profile)', async () => {
    const ctx = await run('seed', faults.authIgnored!);
    const results = ctx.recorder.results(ctx.operations.map((op) => op.operationId));
    const decisions = (op: string) => [...new Set(results.find((r) => r.operationId === op && r.check === 'ignored_auth')?.findings.map((f) => f.decision))];
    expect(decisions('createClient')).toEqual(['D03']);
    expect(decisions('getWebhook')).toEqual([undefined]);
    expect(decisions('listClients')).toEqual([undefined]);
    const failed = results.find((r) => r.operationId === 'listClients')!.findings;
    expect(failed.map((f) => f.message)).toEqual([
      'GET /client → 200 without a key: not refused, the key was not checked',
      'GET /client → 200 with an unknown key: not refused, the key was not checked',
      'GET /client → 200 with a malformed key: not refused, the key was not checked',
    ]);
  });

  test('the keys sent are masked in the recorded exchanges', async () => {
    const ctx = await run('reference', faults.correct!, { only: ['listClients'] });
    const sent = ctx.exchanges.map((e) => e.request.headers['X-API-KEY']);
    expect(sent[0]).toBeUndefined();
    expect(sent[1]).toMatch(/^sk_[a-z0-9]{3}…\*{4}$/);
    expect(sent[2]).toBe('no…****'); // a quarter of a 9-character key at most
  });

  test('--read-only sends GET requests only and skips the rest with the reason', async () => {
    const ctx = await run('reference', faults.correct!, { readOnly: true });
    expect(new Set(ctx.exchanges.map((e) => e.request.method))).toEqual(new Set(['GET']));
    const results = ctx.recorder.results(ctx.operations.map((op) => op.operationId));
    expect(results.find((r) => r.operationId === 'createPaymentLink')).toMatchObject({ outcome: 'skip', skipReason: readOnlyReason });
    expect(results.find((r) => r.operationId === 'listClients')?.outcome).toBe('pass');
  });

  test('--stateless sends only the keyless request (a mock cannot tell keys apart): not run in full, never ✓', async () => {
    const ctx = await run('reference', faults.presenceOnly!, { stateless: true });
    expect(ctx.exchanges).toHaveLength(ctx.operations.length);
    expect(outcomes(ctx)).toEqual(everyOperation('skip'));
    expect(ctx.recorder.results(['listClients'])[0]!.skipReason).toBe(`not run in full: ${statelessAuthReason}`);
  });

  test('--stateless: a keyless request that is served still fails', async () => {
    const ctx = await run('reference', faults.authIgnored!, { stateless: true, only: ['listClients'] });
    expect(ctx.recorder.results(['listClients'])[0]).toMatchObject({ check: 'ignored_auth', outcome: 'fail' });
  });

  test("a 5xx to the keyless request is not_a_server_error's finding: the 401s to the others do not make a ✓", async () => {
    const crashWithoutKey: Fault = (request, next) =>
      request.headers.get('x-api-key') ? next(request) : Promise.resolve(new Response('boom', { status: 500 }));
    const ctx = await run('reference', crashWithoutKey, { only: ['listClients'] });
    const [result] = ctx.recorder.results(['listClients']);
    expect(result).toMatchObject({
      check: 'ignored_auth',
      outcome: 'skip',
      skipReason: 'not run in full: without a key: no answer or a 5xx (see not_a_server_error)',
    });
  });

  test('a target that does not answer is skipped, not judged', async () => {
    const ctx = new RunContext(options('seed', { only: ['listClients'] }), {
      fetch: (async () => {
        throw new Error('connection refused');
      }) as typeof fetch,
    });
    await authCheck.run(ctx);
    expect(ctx.recorder.results(['listClients'])).toMatchObject([{ check: 'ignored_auth', outcome: 'skip' }]);
  });
});

describe('request material', () => {
  test('the unknown key has the shape of an issued key, and the malformed one does not', () => {
    expect(parseApiKey(unknownApiKey())).toBeDefined();
    expect(unknownApiKey()).not.toBe(unknownApiKey());
    expect(parseApiKey(malformedApiKey)).toBeUndefined();
  });

  test('the bodies sent are valid ones: fixtures, the run id, devMode', async () => {
    const ctx = await run('seed', faults.correct!, { only: ['createPaymentLink', 'createOrder'] });
    const sent = (op: string) =>
      ctx.exchanges
        .filter((e) => e.operationId === op && e.request.headers['X-API-KEY'] === undefined)
        .map((e) => JSON.parse(e.request.body!) as Record<string, unknown>);
    expect(sent('createPaymentLink')).toEqual([
      expect.objectContaining({ items: [{ productId: fixtures.productId, quantity: 2 }], devMode: true, externalId: expect.stringMatching(/-confauth-\d+$/) }),
    ]);
    expect(sent('createOrder')).toEqual([
      expect.objectContaining({
        clientId: fixtures.clientId,
        items: [expect.objectContaining({ productId: fixtures.productId })],
        name: expect.stringMatching(/ confauth$/),
      }),
    ]);
  });
});

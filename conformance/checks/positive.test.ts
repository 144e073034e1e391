/**
 * createFixtures and positive_data_acceptance against the in-process reference server
 * (pass in both profiles), against broken wrappers of it (a refused valid body fails; a
 * refused body whose left-out fields are optional only by decision D18 is info in the seed
 * profile), and in --read-only / --stateless runs.
 *
 * @operation-wide: it runs conformance checks over every operation of the contract, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { idOf } from '../data/fixtures.js';
import { RunContext } from '../engine/context.js';
import type { Profile } from '../engine/types.js';
import { validBodies } from '../data/bodies.js';
import { positiveCheck } from './positive.js';
import { getOnlyReason as readOnlyReason } from './stateful.js';
import { contextOn, is, serverPerTest, verdict, type Wrapper } from './stateful-test-support.js';

const check = 'positive_data_acceptance';

const server = serverPerTest();

const problem = (status: number, detail: string) =>
  new Response(JSON.stringify({ type: '/problems/validation', title: 'Invalid', status, detail }), {
    status,
    headers: { 'Content-Type': 'application/problem+json' },
  });

/** Answers `status` to requests matching `when` (method and path, and optionally the JSON body). */
function refuse(method: string, path: RegExp, when: (body: any) => boolean, status = 422): Wrapper {
  return async (request, next) => {
    if (!is(request, method, path)) return next(request);
    const body = JSON.parse(await request.clone().text()) as unknown;
    return when(body) ? problem(status, 'refused by the test wrapper') : next(request);
  };
}

describe('createFixtures', () => {
  test("creates what the contract's use links name (a product, a subscription product, a client) with each key, tagged with the run id", async () => {
    const ctx = await contextOn(server);
    const ids = (records: ReadonlyMap<string, { id: string }> | undefined) => Object.fromEntries([...(records ?? [])].map(([key, record]) => [key, record.id]));
    const want = {
      'createProduct(isSubscription=false)': expect.stringMatching(/^prod_/),
      'createProduct(isSubscription=true)': expect.stringMatching(/^prod_/),
      createClient: expect.stringMatching(/^clnt_/),
    };
    expect(ids(ctx.fixtures.own)).toEqual(want);
    expect(ids(ctx.fixtures.other)).toEqual(want);
    const own = await server.request('/client');
    const clients = (await own.json()) as Array<{ id: string; name: string }>;
    expect(clients.map((c) => c.id)).toEqual([ctx.fixtures.own.get('createClient')!.id]);
    expect(clients[0]!.name).toContain(ctx.runId);
    const other = (await (await server.request('/client', { apiKey: server.other.apiKey })).json()) as Array<{ id: string }>;
    expect(other.map((c) => c.id)).toEqual([ctx.fixtures.other!.get('createClient')!.id]);
    const products = ctx.exchanges.filter((e) => e.operationId === 'createProduct').map((e) => JSON.parse(e.response!.body));
    expect(products.map((p) => [p.isSubscription, p.sku.includes(ctx.runId)])).toEqual([
      [false, true],
      [true, true],
      [false, true],
      [true, true],
    ]);
  });

  test('without a second key, no fixtures of another company', async () => {
    const ctx = await contextOn(server, { secondApiKey: null });
    expect(ctx.fixtures.other).toBeUndefined();
    expect(ctx.fixtures.own.get('createClient')).toBeDefined();
  });

  test('a fixture the target refuses is a failure of positive_data_acceptance, and stays undefined', async () => {
    const ctx = await contextOn(server, { wrap: refuse('POST', /^\/client$/, () => true, 500) });
    expect(ctx.fixtures.own.get('createClient')).toBeUndefined();
    expect(ctx.fixtures.own.get('createProduct(isSubscription=false)')).toBeDefined();
    const got = verdict(ctx, 'createClient', check);
    expect(got.outcome).toBe('fail');
    expect(got.messages.join('\n')).toMatch(/creating the createClient fixture through createClient failed \(500: refused by the test wrapper\)/);
    expect(ctx.recorder.results(['createClient'])[0]!.findings[0]!.exchange?.response?.status).toBe(500);
  });
});

describe('positive_data_acceptance', () => {
  test.each<Profile>(['seed', 'reference'])(
    'passes on the reference server (%s profile), every operation, webhooks the run registers included',
    async (profile) => {
      const ctx = await contextOn(server, { profile });
      await positiveCheck.run(ctx);
      for (const op of ctx.operations) {
        const got = verdict(ctx, op.operationId, check);
        expect(got.outcome, `${op.operationId}:\n${got.messages.join('\n')}`).toBe('pass');
        expect(got.messages.length).toBeGreaterThanOrEqual(1);
      }
      expect(verdict(ctx, 'createPaymentLink', check).messages.length).toBe(7);
      // The charge read back is one the run created; the update changed the run's own subscription.
      const read = ctx.exchanges.find((e) => e.operationId === 'getCharge')!;
      const charges = ctx.exchanges.filter((e) => e.operationId === 'createPaymentLink').flatMap((e) => idOf(e) ?? []);
      expect(read.request.url).toBe(`http://ref.test/charge/${charges[0]}`);
      const updates = ctx.exchanges.filter((e) => e.operationId === 'updateSubscription');
      for (const update of updates) expect(JSON.parse(update.request.body!).id).toBe(ctx.fixtures.own.get('createSubscription')?.id);
    },
  );

  test.each<[string, { given: { profile: Profile; wrap: Wrapper; operationId: string }; want: { outcome: string; message: RegExp; decision?: string } }]>([
    [
      'a refused order body fails, in the seed profile too',
      {
        given: { profile: 'seed', operationId: 'createOrder', wrap: refuse('POST', /^\/order$/, (b) => b.notes !== undefined) },
        want: { outcome: 'fail', message: /example sedexDelivery: a valid body was refused \(422: refused by the test wrapper\)/ },
      },
    ],
    [
      'a 5xx on a valid client fails',
      {
        given: { profile: 'seed', operationId: 'createClient', wrap: refuse('POST', /^\/client$/, (b) => b.status === 'INACTIVE', 500) },
        want: { outcome: 'fail', message: /enumerated values shifted by 1: a valid body was refused \(500/ },
      },
    ],
    [
      'a payment link without a customer refused: departs from D18 only (seed profile)',
      {
        given: {
          profile: 'seed',
          operationId: 'createPaymentLink',
          wrap: refuse('POST', /^\/charge\/payment-link$/, (b) => b.customer === undefined && b.customerId === undefined),
        },
        want: { outcome: 'info', message: /required fields only: a valid body was refused \(422.*rests on decision D18/, decision: 'D18' },
      },
    ],
    [
      'the same refusal fails in the reference profile',
      {
        given: {
          profile: 'reference',
          operationId: 'createPaymentLink',
          wrap: refuse('POST', /^\/charge\/payment-link$/, (b) => b.customer === undefined && b.customerId === undefined),
        },
        want: { outcome: 'fail', message: /required fields only: a valid body was refused/ },
      },
    ],
    [
      'a client written with Brazilian punctuation refused: departs from D46 only (seed profile)',
      {
        given: { profile: 'seed', operationId: 'createClient', wrap: refuse('POST', /^\/client$/, (b) => /\D/.test(String(b.cpfCnpj))) },
        want: { outcome: 'info', message: /numbers written the Brazilian way: a valid body was refused \(422.*rests on decision D46/, decision: 'D46' },
      },
    ],
    [
      'the same refusal fails in the reference profile',
      {
        given: { profile: 'reference', operationId: 'createClient', wrap: refuse('POST', /^\/client$/, (b) => /\D/.test(String(b.cpfCnpj))) },
        want: { outcome: 'fail', message: /numbers written the Brazilian way: a valid body was refused/ },
      },
    ],
    [
      'a charge that cannot be read back fails getCharge',
      {
        given: { profile: 'seed', operationId: 'getCharge', wrap: async (r, next) => (is(r, 'GET', /^\/charge\//) ? problem(404, 'gone') : next(r)) },
        want: { outcome: 'fail', message: /GET with id=char_\w+: a valid request was refused \(404: gone\)/ },
      },
    ],
  ])('%s', async (_name, { given, want }) => {
    const ctx = await contextOn(server, { profile: given.profile, wrap: given.wrap });
    await positiveCheck.run(ctx);
    const got = verdict(ctx, given.operationId, check);
    expect(got.outcome, got.messages.join('\n')).toBe(want.outcome);
    expect(got.messages.join('\n')).toMatch(want.message);
    if (want.decision) expect(got.messages.join('\n')).toMatch(new RegExp(`^info \\(${want.decision}\\)`, 'm'));
  });

  test('a missing fixture makes the operations that need it skip with the reason', async () => {
    const ctx = await contextOn(server, { wrap: refuse('POST', /^\/product$/, (b) => b.isSubscription === true) });
    await positiveCheck.run(ctx);
    expect(verdict(ctx, 'createSubscription', check)).toMatchObject({
      outcome: 'skip',
      skipReason: expect.stringMatching(
        /no createProduct\(isSubscription=true\) fixture \(creating the createProduct\(isSubscription=true\) fixture through createProduct failed \(422/,
      ),
    });
    expect(verdict(ctx, 'updateSubscription', check)).toMatchObject({ outcome: 'skip', skipReason: expect.stringMatching(/no subscription to change/) });
  });

  test('bodies sent without the record they would name are not the whole check: not run in full, never ✓', async () => {
    const ctx = await contextOn(server, { wrap: refuse('POST', /^\/client$/, () => true, 500) });
    await positiveCheck.run(ctx);
    const got = verdict(ctx, 'createOrder', check);
    expect(got.outcome, got.messages.join('\n')).toBe('skip');
    expect(got.skipReason).toMatch(
      /^not run in full: bodies sent without what names a record the run lacks: \S*clientId removed, no createClient fixture \(creating the createClient fixture through createClient failed/,
    );
  });

  test('--only updateSubscription creates the subscription first; --only getCharge creates the charge first', async () => {
    const ctx = await contextOn(server, { only: ['updateSubscription', 'getCharge'] });
    await positiveCheck.run(ctx);
    expect(ctx.exchanges.map((e) => e.operationId).filter((id) => id !== 'createProduct' && id !== 'createClient')).toEqual([
      'createPaymentLink',
      'getCharge',
      'createSubscription',
      // One per valid body: with every enumerated value sent once (9 periods), more than the examples.
      ...Array(validBodies(ctx, 'updateSubscription').length).fill('updateSubscription'),
    ]);
    expect(verdict(ctx, 'updateSubscription', check).outcome).toBe('pass');
    expect(verdict(ctx, 'getCharge', check).outcome).toBe('pass');
  });

  test('--read-only: only GET requests; what needs a created record skips with the reason', async () => {
    const ctx = await contextOn(server, { readOnly: true });
    await positiveCheck.run(ctx);
    expect(ctx.exchanges.every((e) => e.request.method === 'GET')).toBe(true);
    expect(verdict(ctx, 'listClients', check).outcome).toBe('pass');
    expect(verdict(ctx, 'getCharge', check)).toMatchObject({ outcome: 'skip', skipReason: expect.stringMatching(/--read-only/) });
    for (const op of ['createPaymentLink', 'createClient', 'createProduct', 'createOrder', 'createSubscription', 'updateSubscription']) {
      expect(verdict(ctx, op, check)).toMatchObject({ outcome: 'skip', skipReason: readOnlyReason });
    }
  });

  test('--stateless: the contract examples as they are, and GETs with the parameter examples', async () => {
    const sent: Array<{ url: string; body: string }> = [];
    const fetchFn = (async (input: string, init?: RequestInit) => {
      sent.push({ url: input, body: String(init?.body ?? '') });
      return new Response('{}', { status: init?.method === 'GET' ? 200 : 201, headers: { 'Content-Type': 'application/json' } });
    }) as unknown as typeof fetch;
    const ctx = new RunContext(
      {
        baseUrl: 'http://mock.test',
        baseUrlAlt: 'http://mock.test',
        apiKey: 'k',
        profile: 'seed',
        readOnly: false,
        stateless: true,
        timeoutMs: 1000,
        runId: 'confstateless',
      },
      { fetch: fetchFn },
    );
    await positiveCheck.run(ctx);
    for (const op of ctx.operations) expect(verdict(ctx, op.operationId, check).outcome, op.operationId).toBe('pass');
    expect(sent.map((s) => s.url)).toContain('http://mock.test/webhook/wbhk_dc8jpm71g9rd6pigp0yzzvwd');
    expect(sent.map((s) => s.url)).toContain('http://mock.test/charge/char_ndvw35rd8w4vqozp8gqwwcxt');
    expect(JSON.parse(sent.find((s) => s.body.includes('"items"'))!.body).items[0].productId).toBe('prod_xwp2y3orwc5f5mau1k8yl3f1');
  });
});

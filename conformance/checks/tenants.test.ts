/**
 * tenant_isolation against the in-process reference server with its two companies (passes
 * in both profiles), against broken wrappers that let the second company act as the first
 * (fails; info in the seed profile where only D27's 404 is missed), and runs without a second
 * key, with a refused one, --stateless and --read-only (skips with the reason).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { TestServer } from '../../server/test-support/harness.js';
import type { Profile } from '../engine/types.js';
import { noSecondKeyReason, readOnlyReason, statelessReason } from './stateful.js';
import { contextOn, is, rewriteJson, startServer, verdict, withRequest, type Wrapper } from './stateful-test-support.js';
import { tenantCheck, tenantOperations } from './tenants.js';
import { loadBundledContract } from '../../lib/contract/bundled.js';

const check = 'tenant_isolation';
/** What the contract's links make the check try: reads, lists and creates that name a record. */
const operations = tenantOperations(loadBundledContract());
type Op = string;

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

/** Sends the second company's requests matching `method path` with the first company's key: the deployment mixes them up. */
function asFirstCompany(method: string, path: RegExp): Wrapper {
  return async (request, next) => {
    if (!is(request, method, path) || request.headers.get('x-api-key') !== server.other.apiKey) return next(request);
    return next(await withRequest(request, { headers: (h) => h.set('x-api-key', server.apiKey) }));
  };
}

/**
 * A deployment that does not check whose product a request names: in the second company's
 * requests, a product of the first company is taken as if it were one of the second's.
 */
function ignoresProductOwner(path: RegExp): Wrapper {
  let stand: string | undefined;
  return async (request, next) => {
    if (!is(request, 'POST', path) || request.headers.get('x-api-key') !== server.other.apiKey) return next(request);
    const text = await request.clone().text();
    const ids = text.match(/prod_[0-9a-z]+/g) ?? [];
    const firsts = [...(await server.deps.store.getProducts(server.companyId, ids)).keys()];
    if (firsts.length === 0) return next(request);
    stand ??= (
      await server.other.api.POST('/product', {
        body: { name: 'stand-in', description: 'stand-in', price: 10, sku: 'STAND-IN', displayId: '1', isSubscription: true },
      })
    ).data!.id;
    const swapped = firsts.reduce((body, id) => body.split(id).join(stand!), text);
    return next(await withRequest(request, { body: () => JSON.parse(swapped) }));
  };
}

describe('tenant_isolation', () => {
  test.each<Profile>(['seed', 'reference'])('passes on the reference server (%s profile)', async (profile) => {
    const ctx = await contextOn(server, { profile });
    await tenantCheck.run(ctx);
    for (const op of operations) {
      const got = verdict(ctx, op, check);
      expect(got, `${op}: ${got.messages.join('\n')} ${got.skipReason ?? ''}`).toMatchObject({ outcome: 'pass' });
    }
    expect(verdict(ctx, 'getCharge', check).messages.join()).toMatch(/is 404 for the second company/);
    expect(verdict(ctx, 'createPaymentLink', check).messages.join()).toMatch(/refused with 422; with its own product it was accepted/);
  });

  // A broken deployment, the operation whose check must see it, and what it reports per profile.
  const broken: Array<[string, { given: () => Wrapper; want: { op: Op; seed: string; reference: string; message: RegExp } }]> = [
    [
      "the second company reads the first's charge",
      {
        given: () => asFirstCompany('GET', /^\/charge\/[^/]+$/),
        want: { op: 'getCharge', seed: 'fail', reference: 'fail', message: /second company read the first company's charge/ },
      },
    ],
    [
      'a foreign charge is 403, not 404 (D27)',
      {
        given: () => async (request, next) => {
          const response = await next(request);
          return is(request, 'GET', /^\/charge\//) && response.status === 404
            ? rewriteJson(response, (p) => ({ ...(p as object), status: 403 }), 403)
            : response;
        },
        want: { op: 'getCharge', seed: 'info', reference: 'fail', message: /refused to the second company with 403, not 404/ },
      },
    ],
    [
      "the second company's list shows the first's clients",
      {
        given: () => asFirstCompany('GET', /^\/client$/),
        want: { op: 'listClients', seed: 'fail', reference: 'fail', message: /lists the first company's client\(s\) clnt_/ },
      },
    ],
    [
      "the first company's list shows the second's client",
      {
        given: () => async (request, next) => {
          const response = await next(request);
          if (!is(request, 'GET', /^\/client$/) || request.headers.get('x-api-key') !== server.apiKey) return response;
          const theirs = (await (await server.other.api.GET('/client')).data) ?? [];
          return rewriteJson(response, (list) => [...(list as unknown[]), ...theirs]);
        },
        want: { op: 'listClients', seed: 'fail', reference: 'fail', message: /first company's GET \/client lists the second company's client/ },
      },
    ],
    [
      "a payment link of the second company with the first's product is accepted",
      {
        given: () => ignoresProductOwner(/^\/charge\/payment-link$/),
        want: { op: 'createPaymentLink', seed: 'fail', reference: 'fail', message: /first company's product was accepted \(201\)/ },
      },
    ],
    [
      "a subscription of the second company to the first's product is accepted",
      {
        given: () => ignoresProductOwner(/^\/subscription$/),
        want: { op: 'createSubscription', seed: 'fail', reference: 'fail', message: /first company's product was accepted \(201\)/ },
      },
    ],
    [
      'a foreign product is a server error',
      {
        given: () => async (request, next) => {
          const response = await next(request);
          return is(request, 'POST', /^\/subscription$/) && response.status === 422 ? new Response('boom', { status: 500 }) : response;
        },
        want: { op: 'createSubscription', seed: 'fail', reference: 'fail', message: /answered 500, not a 4xx refusal/ },
      },
    ],
  ];
  describe.each<Profile>(['seed', 'reference'])('%s profile', (profile) => {
    test.each(broken)('%s', async (_name, { given, want }) => {
      const ctx = await contextOn(server, { profile, wrap: given() });
      await tenantCheck.run(ctx);
      const got = verdict(ctx, want.op, check);
      expect(got, got.messages.join('\n')).toMatchObject({ outcome: want[profile] });
      expect(got.messages.filter((m) => !m.startsWith('pass')).join('\n')).toMatch(want.message);
      if (want[profile] === 'info') expect(got.messages.filter((m) => m.startsWith('info')).every((m) => m.startsWith('info (D27)'))).toBe(true);
    });
  });

  test('a refusal that the second company also gets with its own product proves nothing: skip', async () => {
    // Every payment link of the second company is refused, whatever product it names.
    const ctx = await contextOn(server, {
      wrap: async (request, next) =>
        is(request, 'POST', /^\/charge\/payment-link$/) && request.headers.get('x-api-key') === server.other.apiKey
          ? new Response('{}', { status: 403 })
          : next(request),
    });
    await tenantCheck.run(ctx);
    expect(verdict(ctx, 'createPaymentLink', check)).toMatchObject({ outcome: 'skip', skipReason: expect.stringMatching(/own product answered 403 too/) });
  });

  test('a refusal without a product of the second company to control it proves nothing: skip, not pass', async () => {
    // The second company cannot create products, so the run has none of its own to compare with.
    const ctx = await contextOn(server, {
      wrap: async (request, next) =>
        is(request, 'POST', /^\/product$/) && request.headers.get('x-api-key') === server.other.apiKey ? new Response('{}', { status: 403 }) : next(request),
    });
    await tenantCheck.run(ctx);
    expect(ctx.fixtures.other?.get('createProduct(isSubscription=false)')).toBeUndefined();
    expect(verdict(ctx, 'createPaymentLink', check)).toMatchObject({
      outcome: 'skip',
      skipReason: expect.stringMatching(/refused with 422, but the second company has no product of its own for a control/),
    });
  });

  test('a 404 the first company gets for its own charge proves nothing: skip', async () => {
    const ctx = await contextOn(server, {
      wrap: async (request, next) => (is(request, 'GET', /^\/charge\//) ? new Response('{}', { status: 404 }) : next(request)),
    });
    await tenantCheck.run(ctx);
    expect(verdict(ctx, 'getCharge', check)).toMatchObject({ outcome: 'skip', skipReason: expect.stringMatching(/cannot read its own charge/) });
  });

  const skips: Array<[string, { given: { stateless?: boolean; readOnly?: boolean; secondApiKey?: string | null }; want: string | RegExp; sends: boolean }]> = [
    ['--stateless', { given: { stateless: true }, want: statelessReason, sends: false }],
    ['--read-only', { given: { readOnly: true }, want: readOnlyReason, sends: false }],
    ['no --second-api-key', { given: { secondApiKey: null }, want: noSecondKeyReason, sends: false }],
    [
      'a second key the target refuses',
      { given: { secondApiKey: 'not-a-real-key-0000' }, want: /^the second API key is not accepted: GET \/client with it answered 401/, sends: true },
    ],
  ];
  test.each(skips)('%s: every operation is skipped with the reason', async (_name, { given, want, sends }) => {
    const ctx = await contextOn(server, given);
    const before = ctx.exchanges.length;
    await tenantCheck.run(ctx);
    for (const op of operations) {
      const got = verdict(ctx, op, check);
      expect(got.outcome, op).toBe('skip');
      expect(got.skipReason).toMatch(want);
    }
    expect(ctx.exchanges.length > before).toBe(sends);
  });
});

/**
 * tenant_isolation against the in-process reference server with its two companies (passes
 * in both profiles), against broken wrappers that let the second company act as the first
 * (fails; info in the seed profile where only D27's 404 is missed), and runs without a second
 * key, with a refused one, --stateless and --read-only (skips with the reason).
 *
 * @operation-wide: it runs conformance checks over every operation of the contract, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import type { Profile } from '../engine/types.js';
import { noSecondKeyReason, readOnlyReason, statelessReason } from './stateful.js';
import { contextOn, is, rewriteJson, serverPerTest, verdict, withRequest, type Wrapper } from './stateful-test-support.js';
import { strangersIn, takeListBaselines, tenantCheck, tenantOperations, type ListEvidence } from './tenants.js';
import { loadBundledContract } from '../../lib/contract/bundled.js';
import { ContractView } from '../data/contract-view.js';

const check = 'tenant_isolation';
/** What the contract's links make the check try: reads, lists and creates that name a record. */
const operations = tenantOperations(new ContractView(loadBundledContract()));
type Op = string;

const server = serverPerTest();

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
    const ctx = await contextOn(server, { profile, before: takeListBaselines });
    await tenantCheck.run(ctx);
    for (const op of operations) {
      const got = verdict(ctx, op, check);
      expect(got, `${op}: ${got.messages.join('\n')} ${got.skipReason ?? ''}`).toMatchObject({ outcome: 'pass' });
    }
    expect(verdict(ctx, 'getCharge', check).messages.join()).toMatch(/is 404 for the second company/);
    expect(verdict(ctx, 'createPaymentLink', check).messages.join()).toMatch(/refused with 422; with its own product it was accepted/);
    expect(verdict(ctx, 'listClients', check).messages.join('\n')).toMatch(
      /the first company's GET \/client lists only the first company's clients \(\d+, of company comp_\w+\); each made by its requests in this run or listed before the run created anything \(this assumes no one else creates clients for the company while the run goes\)/,
    );
  });

  test('a client the company had before the run is its own; one someone else makes during the run is not', async () => {
    const earlier = await server.api.POST('/client', {
      body: { name: 'Cliente antigo', status: 'ACTIVE', cpfCnpj: '11144477735', email: 'antigo@example.com', phone: '1133334444' },
    });
    let made: string | undefined;
    const ctx = await contextOn(server, {
      before: takeListBaselines,
      // Once the run has listed the clients, someone else creates one for the same company.
      wrap: async (request, next) => {
        const response = await next(request);
        if (is(request, 'POST', /^\/client$/) && made === undefined)
          made = (
            await server.api.POST('/client', { body: { name: 'Outro', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'o@example.com', phone: '1133334444' } })
          ).data!.id;
        return response;
      },
    });
    await tenantCheck.run(ctx);
    const got = verdict(ctx, 'listClients', check);
    expect(got.outcome).toBe('fail');
    const failed = got.messages.filter((m) => m.startsWith('fail')).join('\n');
    expect(failed).toContain(
      `the first company's GET /client lists client ${made} of company ${server.companyId}, which no request of the first company made in this run and which was not listed before the run created anything (this assumes no one else creates clients for the company while the run goes)`,
    );
    expect(failed).not.toContain(earlier.data!.id);
  });

  test("without a second key, a client of a third company in the first company's list still fails", async () => {
    const stranger = { id: 'clnt_x1y2z3w4v5u6t7s8r9q0p1o2', companyId: 'comp_t1h2i3r4d5c6o7m8p9a0n1y2', name: 'Outra empresa' };
    const ctx = await contextOn(server, {
      secondApiKey: null,
      before: takeListBaselines,
      wrap: async (request, next) => {
        const response = await next(request);
        return is(request, 'GET', /^\/client$/) ? rewriteJson(response, (list) => [...(list as unknown[]), stranger]) : response;
      },
    });
    await tenantCheck.run(ctx);
    const got = verdict(ctx, 'listClients', check);
    expect(got.outcome).toBe('fail');
    expect(got.messages.join('\n')).toMatch(
      new RegExp(
        `^fail: the first company's GET /client lists client ${stranger.id} of company ${stranger.companyId}, not of its own company \\(${server.companyId}\\)$`,
        'm',
      ),
    );
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
        want: {
          op: 'listClients',
          seed: 'fail',
          reference: 'fail',
          message: /the second company's GET \/client lists the first company's client clnt_\w+ \(company comp_\w+, not its own comp_\w+\)/,
        },
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
      const ctx = await contextOn(server, { profile, wrap: given(), before: takeListBaselines });
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
    // Without a second key the first company's list is still judged (it holds only its own records), so requests go out.
    ['no --second-api-key', { given: { secondApiKey: null }, want: noSecondKeyReason, sends: true }],
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

describe("strangersIn: the records of a list that are not the caller's", () => {
  const evidence: ListEvidence = {
    ownIds: new Set(['clnt_own', 'comp_A']),
    otherIds: new Set(['clnt_theirs', 'comp_B']),
    companies: new Set(['comp_A']),
    baseline: new Set(['clnt_old']),
    sent: [{ name: 'Maria conf1', taxId: '52998224725', email: 'maria@example.com', phone: '11987654321' }],
  };
  const cases: Array<[string, { given: { entries: unknown[]; evidence?: Partial<ListEvidence> }; want: unknown[] }]> = [
    ['its own record', { given: { entries: [{ id: 'clnt_own', companyId: 'comp_A' }] }, want: [] }],
    [
      'a record of a third company',
      { given: { entries: [{ id: 'clnt_x', companyId: 'comp_Z' }] }, want: [{ id: 'clnt_x', company: 'comp_Z', rule: 'company', other: false }] },
    ],
    [
      "the other key's record",
      { given: { entries: [{ id: 'clnt_theirs', companyId: 'comp_B' }] }, want: [{ id: 'clnt_theirs', company: 'comp_B', rule: 'company', other: true }] },
    ],
    [
      "the other key's record showing the caller's company",
      { given: { entries: [{ id: 'clnt_theirs', companyId: 'comp_A' }] }, want: [{ id: 'clnt_theirs', company: 'comp_A', rule: 'unknown', other: true }] },
    ],
    [
      'an unknown id in a stateful run: no request of the caller made it and it was not listed before',
      { given: { entries: [{ id: 'clnt_new', companyId: 'comp_A' }] }, want: [{ id: 'clnt_new', company: 'comp_A', rule: 'unknown', other: false }] },
    ],
    ['a record listed before the run (the baseline)', { given: { entries: [{ id: 'clnt_old', companyId: 'comp_A' }] }, want: [] }],
    [
      "a record made from an object the caller sent (a payment link's customer)",
      {
        given: { entries: [{ id: 'clnt_c', companyId: 'comp_A', name: 'Maria conf1', taxId: '52998224725', email: 'maria@example.com', status: 'ACTIVE' }] },
        want: [],
      },
    ],
    [
      'a record sharing a name with what was sent but not its e-mail',
      {
        given: { entries: [{ id: 'clnt_c', companyId: 'comp_A', name: 'Maria conf1', email: 'someone@example.com' }] },
        want: [{ id: 'clnt_c', company: 'comp_A', rule: 'unknown', other: false }],
      },
    ],
    [
      'no baseline: a new record of its company is not judged',
      { given: { entries: [{ id: 'clnt_new', companyId: 'comp_A' }], evidence: { baseline: undefined } }, want: [] },
    ],
    [
      'the company its own listed records show, in another form than its create answers',
      {
        given: {
          entries: [
            { id: 'clnt_own', companyId: 'comp_listform' },
            { id: 'clnt_old', companyId: 'comp_listform' },
          ],
          evidence: { companies: new Set(['6f1c2b7e-uuid']) },
        },
        want: [],
      },
    ],
    ['a record showing no company', { given: { entries: [{ id: 'clnt_new' }] }, want: [{ id: 'clnt_new', rule: 'unknown', other: false }] }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(strangersIn(given.entries, { ...evidence, ...given.evidence })).toEqual(want);
  });
});

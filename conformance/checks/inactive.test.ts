/**
 * negative_data_rejection for D45 against the in-process reference server: a request naming an
 * INACTIVE client or product is refused with 422 and keyword `active` at each reference (pass in
 * both profiles); a deployment that accepts it, or refuses it without naming the field, departs
 * from D45 (info under seed, fail under reference); nothing is sent against a stateless target.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import type { Profile } from '../engine/types.js';
import { inactiveReferencesCheck, pointersOf } from './inactive.js';
import { contextOn, is, serverPerTest, verdict, type Wrapper } from './stateful-test-support.js';

const check = 'negative_data_rejection';
const referring = ['createPaymentLink', 'createOrder', 'createSubscription'];

const server = serverPerTest();

async function run(profile: Profile, wrap?: Wrapper) {
  const ctx = await contextOn(server, { profile, ...(wrap ? { wrap } : {}) });
  const before = ctx.exchanges.length;
  await inactiveReferencesCheck.run(ctx);
  return { ctx, sent: ctx.exchanges.slice(before) };
}

/** A service that ignores a record's INACTIVE status when it is named: each such request is served as if it were ACTIVE. */
const ignoresInactive: Wrapper = async (request, next) => {
  const response = await next(request.clone());
  if (response.status !== 422 || request.method !== 'POST' || !/^\/(charge\/payment-link|order|subscription)$/.test(new URL(request.url).pathname))
    return response;
  const problem = (await response.clone().json()) as { errors?: Array<{ keyword?: string }> };
  return problem.errors?.every((e) => e.keyword === 'active')
    ? new Response('{"id":"accepted"}', { status: 201, headers: { 'Content-Type': 'application/json' } })
    : response;
};

/** A service that refuses them as unknown references (D27's keyword), not naming the inactivity. */
const refusesAsUnknown: Wrapper = async (request, next) => {
  const response = await next(request);
  if (response.status !== 422) return response;
  const text = (await response.text()).replaceAll('"keyword":"active"', '"keyword":"exists"');
  return new Response(text, { status: 422, headers: response.headers });
};

/**
 * A service that looks at the products' status only once the client's has refused the request:
 * an INACTIVE product with an ACTIVE client is accepted (each product's refusal then carries no client error).
 */
const productCheckedOnlyWithClient: Wrapper = async (request, next) => {
  const response = await next(request.clone());
  if (response.status !== 422 || !is(request, 'POST', /^\/charge\/payment-link$/)) return response;
  const problem = (await response.clone().json()) as { errors?: Array<{ keyword?: string; pointer?: string }> };
  const active = problem.errors?.every((e) => e.keyword === 'active') ?? false;
  return active && !problem.errors!.some((e) => e.pointer === '/customerId')
    ? new Response('{"id":"accepted"}', { status: 201, headers: { 'Content-Type': 'application/json' } })
    : response;
};

describe('a request naming an INACTIVE product or client', () => {
  test.each<Profile>(['reference', 'seed'])('the reference server refuses it with 422, keyword active at each reference (%s)', async (profile) => {
    const { ctx, sent } = await run(profile);
    for (const opId of referring) {
      const v = verdict(ctx, opId, check);
      expect(v.outcome, v.messages.join('\n')).toBe('pass');
      expect(v.messages.join('\n')).toMatch(/refused with 422, keyword `active` at each/);
    }
    // Per operation, one request naming them all and, when they are of two kinds, one naming each
    // kind alone (three: every referring operation names a client and a product); at most one new
    // INACTIVE record of each kind.
    const named = sent.filter((e) => referring.includes(e.operationId));
    expect(named.map((e) => e.operationId).sort()).toEqual(referring.flatMap((op) => [op, op, op]).sort());
    // What the check sent besides the requests of the operations it judged: the INACTIVE records it made.
    const judged = new Set(ctx.operations.map((o) => o.operationId).filter((id) => ctx.recorder.results([id]).some((r) => r.check === check)));
    expect(sent.filter((e) => !judged.has(e.operationId)).length).toBeLessThanOrEqual(3);
    const payment = named.find((e) => e.operationId === 'createPaymentLink')!;
    expect(JSON.parse(payment.response!.body).errors.map((e: { pointer: string; keyword: string }) => `${e.pointer} ${e.keyword}`)).toContain(
      '/items/0/productId active',
    );
  });

  test.each<[Profile, string]>([
    ['seed', 'info'],
    ['reference', 'fail'],
  ])('accepted: a departure from D45 (%s → %s)', async (profile, outcome) => {
    const { ctx } = await run(profile, ignoresInactive);
    const v = verdict(ctx, 'createOrder', check);
    expect(v.outcome).toBe(outcome);
    expect(v.messages.join('\n')).toMatch(
      /a request naming `\/\S+` \(an INACTIVE (product|client)\).* was accepted \(201\); an INACTIVE record cannot be sold or billed \(D45\)/,
    );
  });

  test('refused without naming the inactivity: a departure naming the field and the errors given', async () => {
    const { ctx } = await run('reference', refusesAsUnknown);
    const v = verdict(ctx, 'createPaymentLink', check);
    expect(v.outcome).toBe('fail');
    expect(v.messages).toEqual([
      'fail: a request naming `/customerId` (an INACTIVE client), `/items/0/productId` (an INACTIVE product) was refused with 422, but no field error with keyword `active` names `/customerId`, `/items/0/productId` (errors: /customerId exists, /items/0/productId exists) (D45)',
      'fail: a request naming `/customerId` (an INACTIVE client) was refused with 422, but no field error with keyword `active` names `/customerId` (errors: /customerId exists) (D45)',
      'fail: a request naming `/items/0/productId` (an INACTIVE product) was refused with 422, but no field error with keyword `active` names `/items/0/productId` (errors: /items/0/productId exists) (D45)',
    ]);
  });

  test('an INACTIVE product with an ACTIVE client, and the other way round, each refused alone', async () => {
    const { ctx } = await run('reference');
    const v = verdict(ctx, 'createPaymentLink', check);
    expect(v.messages).toEqual(
      expect.arrayContaining([
        'pass: a request naming `/customerId` (an INACTIVE client) was refused with 422, keyword `active` at each',
        'pass: a request naming `/items/0/productId` (an INACTIVE product) was refused with 422, keyword `active` at each',
      ]),
    );
  });

  test("a product's status looked at only when the client's refuses the request: the product alone is accepted, a failure", async () => {
    const { ctx } = await run('reference', productCheckedOnlyWithClient);
    const v = verdict(ctx, 'createPaymentLink', check);
    expect(v.outcome).toBe('fail');
    expect(v.messages.filter((m) => m.startsWith('fail'))).toEqual([
      'fail: a request naming `/items/0/productId` (an INACTIVE product) was accepted (201); an INACTIVE record cannot be sold or billed (D45)',
    ]);
  });

  test('nothing is sent against a stateless target or with --read-only', async () => {
    for (const options of [{ stateless: true }, { readOnly: true }]) {
      const ctx = await contextOn(server, options);
      const before = ctx.exchanges.length;
      await inactiveReferencesCheck.run(ctx);
      expect(ctx.exchanges.length).toBe(before);
    }
  });
});

test('pointersOf: every place an id stands, as JSON Pointers', () => {
  expect(pointersOf({ items: [{ productId: 'p' }, { productId: 'q' }, { productId: 'p' }], 'a/b': 'p' }, 'p')).toEqual([
    '/items/0/productId',
    '/items/2/productId',
    '/a~1b',
  ]);
});

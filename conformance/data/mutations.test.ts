/**
 * Mutations against the current contract: each is invalid under the full contract, says
 * rightly whether the seed or only a decision forbids it (and which decision), names are
 * unique, the order is deterministic and the count bounded. The classification is read
 * from the contract's markings, not from a list.
 *
 * @operation-wide: it enumerates the contract's operations (each one's mutations), so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { RunContext } from '../engine/context.js';
import { validBodies } from './bodies.js';
import { mutationLimit, mutationsFor, parameterValue, type Mutation } from './mutations.js';
import { headerParametersOf, queryParametersOf, requestBodyOf } from './schema.js';
import { giveFixtures, offlineFixtures, testRunOptions } from '../test-support/fixtures.js';

function context(contract?: JsonObject): RunContext {
  const ctx = new RunContext(testRunOptions({ runId: 'confmut1' }), contract ? { contract } : {});
  giveFixtures(ctx, offlineFixtures);
  return ctx;
}

const ctx = context();
const bodyOperations = ctx.operations.filter((op) => requestBodyOf(ctx.contract, op)).map((op) => op.operationId);
const mutationsOf = (c: RunContext, operationId: string): Mutation[] =>
  mutationsFor(
    c,
    operationId,
    validBodies(c, operationId).map((b) => b.body),
  );

describe('mutationsFor against the current contract', () => {
  test.each(bodyOperations)('%s: bounded, unique, deterministic, every one invalid, rightly classified', (operationId) => {
    const bodies = validBodies(ctx, operationId).map((b) => b.body);
    const mutations = mutationsFor(ctx, operationId, bodies);
    // However small the body (simulatePayment's few optional fields), there is more than one way to be wrong.
    expect(mutations.length).toBeGreaterThan(1);
    expect(mutations.length).toBeLessThanOrEqual(mutationLimit);
    expect(new Set(mutations.map((m) => m.name)).size).toBe(mutations.length);
    expect(mutationsFor(ctx, operationId, bodies)).toEqual(mutations);
    const { pointer } = requestBodyOf(ctx.contract, ctx.operation(operationId))!;
    const headers = new Map(headerParametersOf(ctx.contract, ctx.operation(operationId)).map((h) => [h.name, h]));
    for (const m of mutations) {
      if (m.name.startsWith('header ')) {
        // A header mutation: the body stays valid, the header value breaks its schema.
        expect(ctx.full.at(pointer)(m.body), m.name).toBe(true);
        for (const [name, value] of Object.entries(m.headers ?? {})) expect(ctx.full.at(headers.get(name)!.pointer)(value), m.name).toBe(false);
        if (m.breaks === 'decision') expect(m.decision, m.name).toMatch(/^D\d\d$/);
        continue;
      }
      expect(ctx.full.at(pointer)(m.body), `${m.name} must be invalid`).toBe(false);
      expect(ctx.seed.at(pointer)(m.body), `${m.name} breaks ${m.breaks}`).toBe(m.breaks === 'decision');
      if (m.breaks === 'decision') expect(m.decision, m.name).toMatch(/^D\d\d$/);
      else expect(m).not.toHaveProperty('decision');
    }
  });

  test.each<[string, { given: { operationId: string; name: string }; want: { breaks: Mutation['breaks']; decision?: string; check?: (m: Mutation) => void } }]>(
    [
      [
        'a tax id with a wrong check digit breaks D23 only',
        {
          given: { operationId: 'createPaymentLink', name: '/customer/taxId: wrong check digit' },
          want: { breaks: 'decision', decision: 'D23', check: (m) => expect((m.body as any).customer.taxId).toBe('52998224726') },
        },
      ],
      [
        'a total below the seed minimum of 500 cents breaks the seed',
        {
          given: { operationId: 'createPaymentLink', name: '/total: below minimum 500' },
          want: { breaks: 'seed', check: (m) => expect((m.body as any).total).toBe(499) },
        },
      ],
      [
        'a payment link with neither total nor items breaks D18 (the anyOf)',
        {
          given: { operationId: 'createPaymentLink', name: '/: none of total, items' },
          want: { breaks: 'decision', decision: 'D18', check: (m) => expect(m.body).not.toHaveProperty('total') },
        },
      ],
      [
        'customer together with customerId breaks D18 (dependentSchemas)',
        { given: { operationId: 'createPaymentLink', name: '/: customer together with customerId' }, want: { breaks: 'decision', decision: 'D18' } },
      ],
      [
        'an unknown field breaks D22',
        { given: { operationId: 'createPaymentLink', name: '/: unknown property' }, want: { breaks: 'decision', decision: 'D22' } },
      ],
      [
        'an e-mail of a new customer breaks D24 (the seed says only "string")',
        { given: { operationId: 'createPaymentLink', name: '/customer/email: not an e-mail address' }, want: { breaks: 'decision', decision: 'D24' } },
      ],
      [
        'a malformed Idempotency-Key breaks D10',
        {
          given: { operationId: 'createPaymentLink', name: 'header Idempotency-Key: breaks pattern' },
          want: { breaks: 'decision', decision: 'D10', check: (m) => expect(m.headers).toEqual({ 'Idempotency-Key': expect.stringMatching(/ /) }) },
        },
      ],
      [
        'a client id of the wrong form in a request breaks D13 (the seed shows clnt_ for the client list only)',
        { given: { operationId: 'createPaymentLink', name: '/customerId: breaks pattern' }, want: { breaks: 'decision', decision: 'D13' } },
      ],
      [
        'a price with three decimals breaks D17',
        { given: { operationId: 'createProduct', name: '/price: 3 decimal places' }, want: { breaks: 'decision', decision: 'D17' } },
      ],
      [
        'a price of zero breaks D25',
        { given: { operationId: 'createProduct', name: '/price: not above exclusiveMinimum 0' }, want: { breaks: 'decision', decision: 'D25' } },
      ],
      [
        'a product without a name breaks the seed',
        { given: { operationId: 'createProduct', name: '/name: required property missing' }, want: { breaks: 'seed' } },
      ],
      [
        'a fractional quantity breaks D25',
        {
          given: { operationId: 'createOrder', name: '/items/0/quantity: fraction for integer' },
          want: { breaks: 'decision', decision: 'D25', check: (m) => expect((m.body as any).items[0].quantity).toBe(2.5) },
        },
      ],
      [
        'a decimal string as an amount breaks only D17 (the seed declares number but writes its samples as strings)',
        { given: { operationId: 'createOrder', name: '/subtotal: string instead of number' }, want: { breaks: 'decision', decision: 'D17' } },
      ],
      [
        'an order without subtotal breaks the seed',
        { given: { operationId: 'createOrder', name: '/subtotal: required property missing' }, want: { breaks: 'seed' } },
      ],
      [
        'a payment method outside the enum breaks the seed',
        { given: { operationId: 'createOrder', name: '/paymentMethod: not in enum' }, want: { breaks: 'seed' } },
      ],
      [
        'an update without id breaks D09',
        { given: { operationId: 'updateSubscription', name: '/id: required property missing' }, want: { breaks: 'decision', decision: 'D09' } },
      ],
      [
        'an update with only the id breaks D09 (minProperties)',
        { given: { operationId: 'updateSubscription', name: '/: fewer than 2 properties' }, want: { breaks: 'decision', decision: 'D09' } },
      ],
      ['a period outside the enum breaks the seed', { given: { operationId: 'createSubscription', name: '/period: not in enum' }, want: { breaks: 'seed' } }],
      [
        'a timestamp that is no date-time breaks the seed',
        { given: { operationId: 'createSubscription', name: '/expiresAt: not a date-time' }, want: { breaks: 'seed' } },
      ],
      // D46: a broken pattern is a character no Brazilian form writes, never a punctuated valid number.
      [
        'a tax id with a foreign character breaks D46 (the request pattern)',
        {
          given: { operationId: 'createClient', name: '/cpfCnpj: breaks pattern' },
          want: { breaks: 'decision', decision: 'D46', check: (m) => expect((m.body as any).cpfCnpj).toMatch(/[^0-9 ./-]|^$/) },
        },
      ],
      [
        'a phone with a foreign character breaks D46 (the request pattern)',
        {
          given: { operationId: 'createClient', name: '/phone: breaks pattern' },
          want: { breaks: 'decision', decision: 'D46', check: (m) => expect((m.body as any).phone).toMatch(/[^0-9 ().+-]|^$/) },
        },
      ],
      // The request pattern spells out where a phone's digits and separators go, so a wrong length breaks it first.
      [
        'a phone with too many digits breaks D46 (the request pattern) as well as D24 (format phone-br)',
        {
          given: { operationId: 'createClient', name: '/phone: too many digits for a phone' },
          want: { breaks: 'decision', decision: 'D46', check: (m) => expect((m.body as any).phone).toMatch(/^[0-9]{12,13}$/) },
        },
      ],
      [
        'a client status outside the enum breaks D47 (the seed says only "string" in the create request)',
        { given: { operationId: 'createClient', name: '/status: not in enum' }, want: { breaks: 'decision', decision: 'D47' } },
      ],
    ],
  )('%s', (_name, { given, want }) => {
    const mutation = mutationsOf(ctx, given.operationId).find((m) => m.name === given.name);
    expect(mutation, `${given.operationId} has no mutation ${given.name}`).toBeDefined();
    expect(mutation!.breaks).toBe(want.breaks);
    expect(mutation!.decision).toBe(want.decision);
    want.check?.(mutation!);
  });

  test('the limit keeps the most telling first: dropped required properties', () => {
    const first = mutationsFor(
      ctx,
      'createOrder',
      validBodies(ctx, 'createOrder').map((b) => b.body),
      4,
    );
    expect(first.map((m) => m.name)).toEqual([
      '/subtotal: required property missing',
      '/total: required property missing',
      '/items/0/productId: required property missing',
      '/items/0/quantity: required property missing',
    ]);
  });

  test('no mutation of a development charge touches devMode, whatever the limit (a lax live target would create a real charge)', () => {
    const all = mutationsFor(
      ctx,
      'createPaymentLink',
      validBodies(ctx, 'createPaymentLink').map((b) => b.body),
      10_000,
    );
    expect(all.length).toBeGreaterThan(mutationLimit);
    for (const m of all) expect((m.body as { devMode?: unknown }).devMode, m.name).toBe(true);
    expect(all.map((m) => m.name)).not.toContain('/devMode: string instead of boolean');
  });

  test('no valid body, no body mutation', () => {
    expect(mutationsFor(ctx, 'createProduct', [])).toEqual([]);
  });

  const queryOperations = ctx.operations.filter((op) => queryParametersOf(ctx.contract, op).length > 0).map((op) => op.operationId);
  test('listClients: limit below its minimum, above its maximum, a fraction and a word, each breaking D48 only', () => {
    expect(queryOperations).toContain('listClients');
    const limits = mutationsOf(ctx, 'listClients').filter((m) => m.query?.limit !== undefined);
    expect(limits.map((m) => [m.query!.limit, m.breaks, m.decision])).toEqual([
      ['0', 'decision', 'D48'],
      ['1001', 'decision', 'D48'],
      ['100.5', 'decision', 'D48'],
      ['ten', 'decision', 'D48'],
    ]);
  });
  test.each(queryOperations)(
    '%s: every query parameter is broken one at a time, each value invalid as its schema reads it, and named with it',
    (operationId) => {
      const parameters = queryParametersOf(ctx.contract, ctx.operation(operationId));
      const mutations = mutationsOf(ctx, operationId).filter((m) => m.query);
      for (const parameter of parameters)
        expect(
          mutations.some((m) => m.query![parameter.name] !== undefined),
          parameter.name,
        ).toBe(true);
      for (const m of mutations) {
        const entries = Object.entries(m.query!);
        expect(entries.length, m.name).toBe(1);
        const [name, value] = entries[0]!;
        const parameter = parameters.find((p) => p.name === name)!;
        expect(ctx.full.at(parameter.pointer)(parameterValue(ctx, parameter, value)), m.name).toBe(false);
        expect(m.name.startsWith(`query ${name}=`), m.name).toBe(true);
        // The paging parameters are a decision as a whole (D48): the seed shows no query parameter of GET /client.
        if (m.breaks === 'decision') expect(m.decision, m.name).toMatch(/^D\d\d$/);
        else expect(ctx.seed.at(parameter.pointer)(parameterValue(ctx, parameter, value)), m.name).toBe(false);
      }
    },
  );
});

describe("the classification follows the contract's markings", () => {
  test.each<[string, { given: (contract: any) => void; want: { name: string; breaks: Mutation['breaks']; decision?: string } }]>([
    [
      'without x-decided format on Amount, three decimals break the seed',
      { given: (c) => delete c.components.schemas.Amount['x-decided'].format, want: { name: '/price: 3 decimal places', breaks: 'seed' } },
    ],
    [
      'the decision id is the one marked on the failing keyword',
      {
        given: (c) => (c.components.schemas.Amount['x-decided'].format = 'D98'),
        want: { name: '/price: 3 decimal places', breaks: 'decision', decision: 'D98' },
      },
    ],
    [
      'with additionalProperties not decided, an unknown field breaks the seed',
      { given: (c) => delete c.components.schemas.ProductCreate['x-decided'].additionalProperties, want: { name: '/: unknown property', breaks: 'seed' } },
    ],
  ])('%s', (_name, { given, want }) => {
    const contract = structuredClone(loadBundledContract());
    given(contract);
    const changed = context(contract);
    const mutation = mutationsOf(changed, 'createProduct').find((m) => m.name === want.name);
    expect(mutation).toMatchObject({ breaks: want.breaks, ...(want.decision ? { decision: want.decision } : {}) });
  });
});

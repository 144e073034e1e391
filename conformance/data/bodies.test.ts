/**
 * Valid bodies against the current contract: none is dropped, every one validates, they are
 * the run's own (fixture ids, run-id tags, devMode) and make sense in the domain (order
 * amounts add up, D29); against the stateless mock the examples come back unchanged.
 *
 * @operation-wide: it enumerates the contract's operations with a body (each one's valid bodies), so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { RunContext } from '../engine/context.js';
import type { ConformanceOptions } from '../engine/types.js';
import { judgeBody, validBodies, validBodiesWithNotes } from './bodies.js';
import { itemsOf, keywordOf, propertiesOf, requestBodyOf, viewOf, type SchemaView } from './schema.js';
import { giveFixtures, offlineFixtures, testRunOptions } from '../test-support/fixtures.js';
import { tagFormats } from './templates.js';

const { price, ...ids } = offlineFixtures;

function context(options: Partial<ConformanceOptions> = {}, fixtures: Partial<typeof ids> = ids, contract?: JsonObject): RunContext {
  const ctx = new RunContext(testRunOptions({ runId: 'confbodies1', ...options }), contract ? { contract } : {});
  giveFixtures(ctx, { ...fixtures, price });
  return ctx;
}

const ctx = context();
const bodyOperations = ctx.operations.filter((op) => requestBodyOf(ctx.contract, op)).map((op) => op.operationId);

/** Every string value in a body, at any depth, by key. */
function valuesOf(body: unknown, key: string): unknown[] {
  if (Array.isArray(body)) return body.flatMap((item) => valuesOf(item, key));
  if (!body || typeof body !== 'object') return [];
  return Object.entries(body).flatMap(([k, v]) => (k === key ? [v] : valuesOf(v, key)));
}

/** Every field of an operation's request schema, at any depth (`[]` for array items), with its path, name and schema. */
function requestFields(operationId: string): Array<{ path: string; name: string; view: SchemaView }> {
  const info = requestBodyOf(ctx.contract, ctx.operation(operationId));
  if (!info) return [];
  const found: Array<{ path: string; name: string; view: SchemaView }> = [];
  const visit = (view: SchemaView, path: string, name: string, depth: number): void => {
    if (depth > 6) return;
    found.push({ path, name, view });
    const items = itemsOf(ctx.contract, view);
    if (items) visit(items, `${path}[]`, name, depth + 1);
    for (const [key, property] of propertiesOf(ctx.contract, view)) visit(property, `${path}/${key}`, key, depth + 1);
  };
  visit(viewOf(ctx.contract, info.schema), '', '', 0);
  return found;
}

/** Every enumerated field of an operation's request schema, at any depth, with its values. */
function requestEnums(operationId: string): Array<{ path: string; values: unknown[] }> {
  return requestFields(operationId).flatMap(({ path, view }) => {
    const values = keywordOf(view, 'enum')?.value;
    return Array.isArray(values) ? [{ path, values }] : [];
  });
}

/** The values found at a path of `requestEnums` in a body. */
function valuesAt(body: unknown, path: string): unknown[] {
  const steps = path.match(/\/[^/[]+|\[\]/g) ?? [];
  let nodes: unknown[] = [body];
  for (const step of steps) {
    nodes = nodes.flatMap((node) => {
      if (step === '[]') return Array.isArray(node) ? node : [];
      return node && typeof node === 'object' && !Array.isArray(node) && step.slice(1) in node ? [(node as Record<string, unknown>)[step.slice(1)]] : [];
    });
  }
  return nodes;
}

describe('validBodies against the current contract', () => {
  test('every operation whose contract declares a request body is covered', () => {
    // A property of the contract, not a roster: a new operation with a body is covered with no edit here.
    expect(bodyOperations).toEqual(ctx.operations.filter((op) => op.operation.requestBody !== undefined).map((op) => op.operationId));
    expect(bodyOperations).toEqual(expect.arrayContaining(['createClient', 'createPaymentLink', 'simulatePayment', 'updateWebhook']));
  });

  test.each(bodyOperations)('%s: nothing is dropped, every body validates, names are unique, the examples come first', (operationId) => {
    const { bodies, dropped } = validBodiesWithNotes(ctx, operationId);
    expect(dropped).toEqual([]);
    const examples = requestBodyOf(ctx.contract, ctx.operation(operationId))!.examples;
    // More than the examples where a body has optional fields or enumerations; a body of required fields alone may have only its example.
    expect(bodies.length).toBeGreaterThanOrEqual(examples.length);
    // Examples, their required-only and filled forms, a shift per other value of the longest enum, the Brazilian writing (D46).
    const longest = Math.max(1, ...requestEnums(operationId).map((e) => e.values.length));
    expect(bodies.length).toBeLessThanOrEqual(3 * examples.length + longest);
    expect(bodies.slice(0, examples.length).map((b) => b.name)).toEqual(examples.map((e) => `example ${e.name}`));
    expect(new Set(bodies.map((b) => b.name)).size).toBe(bodies.length);
    const validate = ctx.full.at(requestBodyOf(ctx.contract, ctx.operation(operationId))!.pointer);
    for (const { name, body } of bodies) expect(validate(body), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true);
  });

  test.each(bodyOperations)('%s: every value of every enumerated request field is sent at least once', (operationId) => {
    const bodies = validBodies(ctx, operationId).map((b) => b.body);
    const enums = requestEnums(operationId);
    const missing = enums.flatMap(({ path, values }) => {
      const sent = new Set(bodies.flatMap((body) => valuesAt(body, path)).flat());
      return values.filter((value) => !sent.has(value)).map((value) => `${path || '/'} = ${String(value)}`);
    });
    expect(missing).toEqual([]);
  });

  test.each(bodyOperations)("%s: ids are the run's fixtures, names and external ids carry the run id", (operationId) => {
    const known = new Set(Object.values(ids));
    // A create is a POST on a path without an id; an update or a simulation creates nothing.
    const { method, path } = ctx.operation(operationId);
    const taggable = method === 'post' && !path.includes('{') && requestFields(operationId).some((field) => tagFormats.has(field.name));
    for (const { name, body } of validBodies(ctx, operationId)) {
      for (const key of ['productId', 'clientId', 'customerId', 'companyId']) {
        for (const value of valuesOf(body, key)) expect(known, `${name}: ${key} ${String(value)}`).toContain(value);
      }
      for (const key of ['name', 'externalId', 'sku']) {
        for (const value of valuesOf(body, key)) expect(String(value), `${name}: ${key}`).toContain('confbodies1');
      }
      // Every record the run creates can be found by the run id, wherever its body has a field
      // that carries it (templates.ts `tagFormats`); a body with none (a subscription's) has
      // nowhere to put it.
      if (taggable) expect(JSON.stringify(body), `${name} carries the run id`).toContain('confbodies1');
    }
  });

  test.each(['createPaymentLink', 'createProduct'])(
    '%s: identifier tags are unique across bodies and calls (a service may hold them unique)',
    (operationId) => {
      const sent = [...validBodies(ctx, operationId), ...validBodies(ctx, operationId)].map((b) => b.body);
      const tags = ['externalId', 'sku', 'displayId'].flatMap((key) => sent.flatMap((body) => valuesOf(body, key)));
      expect(tags.length).toBeGreaterThanOrEqual(sent.length);
      expect(new Set(tags).size).toBe(tags.length);
    },
  );

  test.each<[string, { given: string; want: (bodies: Array<{ name: string; body: any; decision?: string }>) => void }]>([
    [
      'payment links: development mode always, items of the fixture product, a minimal form resting on D18',
      {
        given: 'createPaymentLink',
        want: (bodies) => {
          for (const { body } of bodies) expect(body.devMode).toBe(true);
          expect(bodies[0]!.body.items).toEqual([{ productId: ids.productId, quantity: 2 }]);
          expect(bodies.find((b) => b.name === 'example withTotal')!.body.customerId).toBe(ids.clientId);
          const minimal = bodies.filter((b) => b.name.endsWith('required fields only'));
          // The smallest forms keep the run's tag (externalId): every charge created is findable.
          expect(minimal.map((b) => Object.keys(b.body).sort())).toEqual([
            ['devMode', 'externalId', 'items'],
            ['devMode', 'externalId', 'total'],
          ]);
          for (const b of minimal) expect(b.decision).toBe('D18');
          // customerId and customer exclude each other (D18): no body has both.
          for (const { body } of bodies) expect(body.customer !== undefined && body.customerId !== undefined).toBe(false);
        },
      },
    ],
    [
      'orders: total = subtotal − discount + shippingCost and subtotal = Σ price × quantity (D29)',
      {
        given: 'createOrder',
        want: (bodies) => {
          const cents = (n: unknown) => Math.round(Number(n ?? 0) * 100);
          for (const { name, body } of bodies) {
            expect(cents(body.total), name).toBe(cents(body.subtotal) - cents(body.discount) + cents(body.shippingCost));
            if (Array.isArray(body.items))
              expect(cents(body.subtotal), name).toBe(body.items.reduce((sum: number, i: any) => sum + cents(price) * i.quantity, 0));
          }
          const every = bodies.find((b) => b.name.endsWith('every optional field'))!.body;
          expect(every).toMatchObject({ companyId: ids.companyId, trackingCode: expect.any(String), isStorefrontOrder: false });
          expect(every.items[0]).not.toHaveProperty('orderId'); // deprecated: not sent
        },
      },
    ],
    [
      'subscriptions: the subscription product, enumerated values varied',
      {
        given: 'createSubscription',
        want: (bodies) => {
          for (const { body } of bodies) expect(body.productId).toBe(ids.subscriptionProductId);
          expect(new Set(bodies.map((b) => b.body.period)).size).toBeGreaterThanOrEqual(3);
          expect(bodies.find((b) => b.name.endsWith('required fields only'))!.body).not.toHaveProperty('clientId');
        },
      },
    ],
    [
      'subscription updates: the subscription of the run',
      {
        given: 'updateSubscription',
        want: (bodies) => {
          for (const { body } of bodies) expect(body.id).toBe(ids.subscriptionId);
          expect(bodies[0]!.body).toEqual({ id: ids.subscriptionId, status: 'CANCELLED' });
        },
      },
    ],
    [
      'clients: the example, tagged; a required-only form without the address',
      {
        given: 'createClient',
        want: (bodies) => {
          expect(bodies[0]!.body.name).toBe('Maria Silva Souza confbodies1');
          expect(Object.keys(bodies.find((b) => b.name.endsWith('required fields only'))!.body).sort()).toEqual([
            'cpfCnpj',
            'email',
            'name',
            'phone',
            'status',
          ]);
        },
      },
    ],
    [
      'clients: every optional field, the numbers written with Brazilian masks, resting on D46',
      {
        given: 'createClient',
        want: (bodies) => {
          const every = bodies.find((b) => b.name.endsWith('every optional field'))!;
          const written = bodies.find((b) => b.name.endsWith('numbers written the Brazilian way'))!;
          expect(written.decision).toBe('D46');
          expect(written.body.cpfCnpj).toMatch(/^\d{3}\.\d{3}\.\d{3}-\d{2}$|^\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}$/);
          expect(written.body.phone).toMatch(/^\+55 \(\d{2}\) \d{4,5}-\d{4}$/);
          expect(written.body.postalCode).toMatch(/^\d{5}-\d{3}$/);
          // Only the masks differ: the digits are those of the filled body.
          const digits = (value: unknown) => String(value).replace(/^\+55/, '').replace(/\D/g, '');
          for (const key of ['cpfCnpj', 'phone', 'postalCode']) expect(digits(written.body[key]), key).toBe(every.body[key]);
          expect({ ...written.body, cpfCnpj: 0, phone: 0, postalCode: 0 }).toEqual({
            ...every.body,
            cpfCnpj: 0,
            phone: 0,
            postalCode: 0,
            name: expect.any(String),
          });
        },
      },
    ],
  ])('%s', (_name, { given, want }) => {
    want(validBodies(ctx, given) as never);
  });
});

describe('validBodies in other situations', () => {
  test.each(bodyOperations)('stateless (the mock): %s starts with the contract examples unchanged', (operationId) => {
    const stateless = context({ stateless: true }, {});
    const examples = requestBodyOf(stateless.contract, stateless.operation(operationId))!.examples;
    const { bodies, dropped } = validBodiesWithNotes(stateless, operationId);
    expect(dropped).toEqual([]);
    expect(bodies.slice(0, examples.length).map((b) => b.body)).toEqual(examples.map((e) => e.value));
  });

  test.each<[string, { given: { operationId: string; missing: Partial<typeof ids> }; want: { count: 'none' | 'some'; dropped: RegExp } }]>([
    [
      'no client fixture: the payment link for an existing client loses customerId',
      {
        given: { operationId: 'createPaymentLink', missing: { clientId: undefined } },
        want: { count: 'some', dropped: /customerId removed, no createClient fixture/ },
      },
    ],
    [
      'no subscription product: no subscription body is valid',
      {
        given: { operationId: 'createSubscription', missing: { subscriptionProductId: undefined } },
        want: { count: 'none', dropped: /productId removed, no createProduct\(isSubscription=true\) fixture/ },
      },
    ],
    [
      'no subscription yet: no update body',
      {
        given: { operationId: 'updateSubscription', missing: { subscriptionId: undefined } },
        want: { count: 'none', dropped: /id removed, no createSubscription fixture/ },
      },
    ],
  ])('%s', (_name, { given, want }) => {
    const partial = context({}, { ...ids, ...given.missing });
    const { bodies, dropped } = validBodiesWithNotes(partial, given.operationId);
    expect(bodies.length > 0 ? 'some' : 'none').toBe(want.count);
    expect(dropped.join('\n')).toMatch(want.dropped);
    for (const { body } of bodies) expect(JSON.stringify(body)).not.toMatch(/"customerId"|"id"/);
  });

  test('a body the contract refuses is dropped with the reason, not returned', () => {
    const contract = structuredClone(loadBundledContract());
    const example = ((contract.components as any).examples as any).ProductCreateRequest.value;
    example.price = 'not a number';
    const broken = context({}, ids, contract);
    const { bodies, dropped } = validBodiesWithNotes(broken, 'createProduct');
    expect(bodies.map((b) => b.name)).not.toContain('example subscriptionProduct');
    expect(dropped.join('\n')).toMatch(/example subscriptionProduct: the contract refuses it \(\/price must be number/);
  });

  test.each<[string, { profile: 'seed' | 'reference'; want: { productIds: string[]; decisions: Array<string | undefined>; dropped: RegExp | undefined } }]>([
    [
      'seed profile: kept after the others, marked with the id decision (D13)',
      { profile: 'seed', want: { productIds: ['4711'], decisions: ['D13'], dropped: undefined } },
    ],
    [
      'reference profile: dropped, the full contract is the bar',
      { profile: 'reference', want: { productIds: [], decisions: [], dropped: /productId must match pattern/ } },
    ],
  ])('a target whose own ids the contract does not admit (a numeric product id): %s', (_name, { profile, want }) => {
    const foreign = context({ profile }, { ...ids, subscriptionProductId: '4711' });
    const { bodies, dropped } = validBodiesWithNotes(foreign, 'createSubscription');
    expect([...new Set(bodies.map((b) => (b.body as { productId?: string }).productId))]).toEqual(want.productIds);
    expect([...new Set(bodies.map((b) => b.decision))]).toEqual(want.decisions);
    if (want.dropped) expect(dropped.join('\n')).toMatch(want.dropped);
    else expect(dropped).toEqual([]);
  });

  test.each<[string, { profile: 'seed' | 'reference'; want: { ids: string[]; decisions: Array<string | undefined>; dropped: RegExp | undefined } }]>([
    [
      'seed profile: every update body is sent with it, marked with the id decision (D13)',
      { profile: 'seed', want: { ids: ['01JFOREIGNSUBSCRIPTION0000'], decisions: ['D13'], dropped: undefined } },
    ],
    [
      'reference profile: dropped, the full contract is the bar',
      { profile: 'reference', want: { ids: [], decisions: [], dropped: /\/id must match pattern/ } },
    ],
  ])('an update naming the subscription by the id the target gave it, not of the `subs_` form: %s', (_name, { profile, want }) => {
    const foreign = context({ profile }, { ...ids, subscriptionProductId: '4711', subscriptionId: '01JFOREIGNSUBSCRIPTION0000' });
    const { bodies, dropped } = validBodiesWithNotes(foreign, 'updateSubscription');
    expect([...new Set(bodies.map((b) => (b.body as { id?: string }).id))]).toEqual(want.ids);
    expect([...new Set(bodies.map((b) => b.decision))]).toEqual(want.decisions);
    if (want.dropped) expect(dropped.join('\n')).toMatch(want.dropped);
    else expect(dropped).toEqual([]);
  });

  test.each<[string, { id: string; valid: boolean }]>([
    ['an id the target gave the run', { id: '01JFOREIGNSUBSCRIPTION0000', valid: true }],
    ['an id of another form the run was never given', { id: '01JSOMEONEELSESUBSCRIPTION', valid: false }],
  ])('judgeBody in the seed profile: the full contract refusing only %s', (_name, { id, valid }) => {
    const foreign = context({ profile: 'seed' }, { ...ids, subscriptionId: '01JFOREIGNSUBSCRIPTION0000' });
    const { pointer } = requestBodyOf(foreign.contract, foreign.operation('updateSubscription'))!;
    expect(judgeBody(foreign, pointer, { id, status: 'SUSPENDED' }).valid).toBe(valid);
  });

  test('operations without a request body have none', () => {
    expect(validBodies(ctx, 'listClients')).toEqual([]);
  });
});

/**
 * D27 and D02 together: a body may name several records the company does not have; the
 * 422 names every one of them at once, and nothing is stored.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { clientBody, productBody, sendJson, subscriptionBody } from '../test-support/fixtures.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';

let server: TestServer;
let productId: string;
let foreignProductId: string;
let foreignClientId: string;

beforeEach(async () => {
  server = await createTestServer();
  productId = (await server.api.POST('/product', { body: productBody() })).data!.id;
  foreignProductId = (await server.other.api.POST('/product', { body: productBody() })).data!.id;
  foreignClientId = (await server.other.api.POST('/client', { body: clientBody() })).data!.id;
});

afterEach(async () => {
  expect(server.violations).toEqual([]);
  await server.close();
});

const cases: Array<[string, { given: () => { method: string; path: string; body: unknown }; want: string[] }]> = [
  [
    'subscription: unknown product and foreign client',
    {
      given: () => ({ method: 'POST', path: '/subscription', body: subscriptionBody(foreignProductId, { clientId: foreignClientId }) }),
      want: ['/productId', '/clientId'],
    },
  ],
  [
    'payment link: foreign customer and a foreign product among known ones',
    {
      given: () => ({
        method: 'POST',
        path: '/charge/payment-link',
        body: {
          customerId: foreignClientId,
          items: [
            { productId, quantity: 1 },
            { productId: foreignProductId, quantity: 1 },
          ],
        },
      }),
      want: ['/customerId', '/items/1/productId'],
    },
  ],
  [
    'order: foreign client and a foreign product',
    {
      given: () => ({
        method: 'POST',
        path: '/order',
        body: { subtotal: 64.95, total: 64.95, clientId: foreignClientId, items: [{ productId: foreignProductId, quantity: 1 }] },
      }),
      want: ['/clientId', '/items/0/productId'],
    },
  ],
];

test.each(cases)('%s: every unknown reference is named in one 422', async (_name, { given, want }) => {
  const { method, path, body } = given();
  const answer = await sendJson(server, method, path, body);
  expect(answer.status).toBe(422);
  const errors = (answer.json as { errors: Array<{ pointer: string; keyword: string }> }).errors;
  expect(errors.map((e) => e.pointer)).toEqual(want);
  expect(errors.every((e) => e.keyword === 'exists')).toBe(true);
  expect((await server.api.GET('/client')).data).toEqual([]);
});

/**
 * D45: an INACTIVE product or client is refused like an unknown one, with a 422 naming each
 * such field; the same request with ACTIVE records is accepted.
 */
describe('INACTIVE products and clients are refused (D45)', () => {
  let inactiveProductId: string;
  let inactiveClientId: string;
  let activeClientId: string;
  let subscriptionId: string;
  beforeEach(async () => {
    inactiveProductId = (await server.api.POST('/product', { body: productBody({ status: 'INACTIVE' }) })).data!.id;
    inactiveClientId = (await server.api.POST('/client', { body: clientBody({ status: 'INACTIVE' }) })).data!.id;
    activeClientId = (await server.api.POST('/client', { body: clientBody() })).data!.id;
    subscriptionId = (await server.api.POST('/subscription', { body: subscriptionBody(productId, { clientId: activeClientId }) })).data!.id;
  });

  type Refs = { product: string; client: string };
  const cases: Array<[string, { given: (r: Refs) => { method: string; path: string; body: unknown }; want: string[] }]> = [
    [
      'payment link: an INACTIVE product among ACTIVE ones',
      {
        given: (r) => ({
          method: 'POST',
          path: '/charge/payment-link',
          body: {
            items: [
              { productId, quantity: 1 },
              { productId: r.product, quantity: 1 },
            ],
          },
        }),
        want: ['/items/1/productId'],
      },
    ],
    [
      'payment link: an INACTIVE customer',
      { given: (r) => ({ method: 'POST', path: '/charge/payment-link', body: { total: 1000, customerId: r.client } }), want: ['/customerId'] },
    ],
    [
      'order: an INACTIVE product and client',
      {
        given: (r) => ({
          method: 'POST',
          path: '/order',
          body: { subtotal: 64.95, total: 64.95, clientId: r.client, items: [{ productId: r.product, quantity: 1 }] },
        }),
        want: ['/clientId', '/items/0/productId'],
      },
    ],
    [
      'new subscription: an INACTIVE product',
      { given: (r) => ({ method: 'POST', path: '/subscription', body: subscriptionBody(r.product) }), want: ['/productId'] },
    ],
    [
      'new subscription: an INACTIVE client',
      { given: (r) => ({ method: 'POST', path: '/subscription', body: subscriptionBody(productId, { clientId: r.client }) }), want: ['/clientId'] },
    ],
    [
      'subscription update: an INACTIVE product and client',
      {
        given: (r) => ({ method: 'PUT', path: '/subscription', body: { id: subscriptionId, productId: r.product, clientId: r.client } }),
        want: ['/productId', '/clientId'],
      },
    ],
  ];

  test.each(cases)('%s: 422 naming the field', async (_name, { given, want }) => {
    const { method, path, body } = given({ product: inactiveProductId, client: inactiveClientId });
    const answer = await sendJson(server, method, path, body);
    expect(answer.status, answer.text).toBe(422);
    const problem = answer.json as { type: string; errors: Array<{ pointer: string; keyword: string; detail: string }> };
    expect(problem.type).toBe('/problems/validation-error');
    expect(problem.errors.map((e) => e.pointer)).toEqual(want);
    for (const error of problem.errors) expect(error).toMatchObject({ keyword: 'active', detail: expect.stringContaining('INACTIVE') });
  });

  test.each(cases)('%s: accepted with ACTIVE records instead', async (_name, { given }) => {
    const { method, path, body } = given({ product: productId, client: activeClientId });
    const answer = await sendJson(server, method, path, body);
    expect(answer.status, answer.text).toBe(method === 'PUT' ? 200 : 201);
  });

  test('a subscription keeps the references it has: sending them again is not refused, even once INACTIVE', async () => {
    // Records made before D45 (or by the store itself) may hold an INACTIVE reference; a full PUT must still cancel them.
    const current = (await server.deps.store.getSubscription(server.companyId, subscriptionId))!;
    await server.deps.store.replaceSubscription(server.companyId, { ...current, productId: inactiveProductId, clientId: inactiveClientId });
    const answer = await sendJson(server, 'PUT', '/subscription', {
      id: subscriptionId,
      productId: inactiveProductId,
      clientId: inactiveClientId,
      status: 'CANCELLED',
    });
    expect(answer.status, answer.text).toBe(200);
    expect(answer.json).toMatchObject({ status: 'CANCELLED', productId: inactiveProductId, clientId: inactiveClientId });
  });

  test('nothing is stored by a refused request', async () => {
    await sendJson(server, 'POST', '/order', { subtotal: 64.95, total: 64.95, clientId: inactiveClientId, items: [{ productId, quantity: 1 }] });
    const next = await sendJson(server, 'POST', '/order', { subtotal: 64.95, total: 64.95 });
    expect((next.json as { orderNumber: string }).orderNumber).toBe('000001');
    const unchanged = await sendJson(server, 'PUT', '/subscription', { id: subscriptionId, clientId: inactiveClientId });
    expect(unchanged.status).toBe(422);
    const current = await server.deps.store.getSubscription(server.companyId, subscriptionId);
    expect(current?.clientId).toBe(activeClientId);
  });
});

test('HEAD on a GET path answers as GET without a body (RFC 9110, D37)', async () => {
  const head = await server.request('/client', { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(await head.text()).toBe('');
  const unknown = await server.request('/order', { method: 'HEAD' });
  expect(unknown.status).toBe(405);
});

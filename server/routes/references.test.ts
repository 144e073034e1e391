/**
 * D27 and D02 together: a body may name several records the company does not have; the
 * 422 names every one of them at once, and nothing is stored.
 */
import { afterEach, beforeEach, expect, test } from 'vitest';
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
  ['subscription: unknown product and foreign client', { given: () => ({ method: 'POST', path: '/subscription', body: subscriptionBody(foreignProductId, { clientId: foreignClientId }) }), want: ['/productId', '/clientId'] }],
  ['payment link: foreign customer and a foreign product among known ones', { given: () => ({ method: 'POST', path: '/charge/payment-link', body: { customerId: foreignClientId, items: [{ productId, quantity: 1 }, { productId: foreignProductId, quantity: 1 }] } }), want: ['/customerId', '/items/1/productId'] }],
  ['order: foreign client and a foreign product', { given: () => ({ method: 'POST', path: '/order', body: { subtotal: 64.95, total: 64.95, clientId: foreignClientId, items: [{ productId: foreignProductId, quantity: 1 }] } }), want: ['/clientId', '/items/0/productId'] }],
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

test('HEAD on a GET path answers as GET without a body (RFC 9110, D37)', async () => {
  const head = await server.request('/client', { method: 'HEAD' });
  expect(head.status).toBe(200);
  expect(await head.text()).toBe('');
  const unknown = await server.request('/order', { method: 'HEAD' });
  expect(unknown.status).toBe(405);
});

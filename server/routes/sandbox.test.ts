/**
 * `POST /sandbox/reset` (D51): a development deployment deletes every record of the caller's
 * company and answers how many; the company's key goes on working on the empty company, and
 * the other company's records are untouched. A production deployment refuses with a 403 problem
 * and deletes nothing.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { clientBody, created, expectProblem, postPaymentLink, productBody, subscriptionBody } from '../test-support/fixtures.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Api = TestServer['api'];

/** A record of every kind through the API, a charge paid in the sandbox and a webhook that gets its events; what to read them back by. */
async function populate(api: Api, key: string, own: TestServer) {
  const client = await api.POST('/client', { body: clientBody() });
  const product = await api.POST('/product', { body: productBody({ price: 39.9 }) });
  const productId = product.data!.id;
  const subscription = await api.POST('/subscription', { body: subscriptionBody(productId, { clientId: client.data!.id }) });
  const order = await api.POST('/order', { body: { subtotal: 79.8, total: 79.8, items: [{ productId, quantity: 2 }] } });
  const webhook = await api.POST('/webhook', { body: { url: 'https://shop.example.com/hooks/pix', name: 'Shop', events: ['charge.pending', 'charge.paid'] } });
  const charge = created(await postPaymentLink(own, { items: [{ productId, quantity: 1 }], devMode: true }, { apiKey: key, key: 'reset-test-1' })).data;
  await api.POST('/charge/{id}/simulate-payment', { params: { path: { id: charge.id } }, body: { until: 'PAID' } });
  for (const made of [client, product, subscription, order, webhook]) expect(made.response.status).toBe(201);
  return { chargeId: charge.id, productId, orderId: order.data!.id, subscriptionId: subscription.data!.id, webhookId: webhook.data!.id };
}

/** What a company can read of the records `populate` made: each read's status, and the lists' lengths. */
async function whatIsLeft(api: Api, ids: Awaited<ReturnType<typeof populate>>) {
  return {
    charge: (await api.GET('/charge/{id}', { params: { path: { id: ids.chargeId } } })).response.status,
    product: (await api.GET('/product/{id}', { params: { path: { id: ids.productId } } })).response.status,
    order: (await api.GET('/order/{id}', { params: { path: { id: ids.orderId } } })).response.status,
    subscription: (await api.GET('/subscription/{id}', { params: { path: { id: ids.subscriptionId } } })).response.status,
    webhook: (await api.GET('/webhook/{id}', { params: { path: { id: ids.webhookId } } })).response.status,
    clients: (await api.GET('/client')).data?.length,
    webhooks: (await api.GET('/webhook')).data?.length,
  };
}

describe('POST /sandbox/reset on a development deployment', () => {
  test("deletes the caller's records and counts them; its key still works; the other company's records stay", async () => {
    server = await createTestServer();
    const own = await populate(server.api, server.apiKey, server);
    const other = await populate(server.other.api, server.other.apiKey, server);
    const everything = { charge: 200, product: 200, order: 200, subscription: 200, webhook: 200, clients: 1, webhooks: 1 };
    expect(await whatIsLeft(server.api, own)).toEqual(everything);

    const reset = await server.api.POST('/sandbox/reset');
    expect(reset.response.status).toBe(200);
    expect(reset.data).toEqual({
      companyId: server.companyId,
      deleted: { charges: 1, clients: 1, products: 1, subscriptions: 1, orders: 1, webhooks: 1 },
    });

    expect(await whatIsLeft(server.api, own)).toEqual({ charge: 404, product: 404, order: 404, subscription: 404, webhook: 404, clients: 0, webhooks: 0 });
    expect(await whatIsLeft(server.other.api, other)).toEqual(everything);

    // The same Idempotency-Key makes a new charge rather than replaying one that is gone.
    const again = await postPaymentLink(server, { total: 1_000, devMode: true }, { key: 'reset-test-1' });
    expect(created(again).data.id).not.toBe(own.chargeId);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    // Order numbers start again.
    const product = await server.api.POST('/product', { body: productBody({ price: 10 }) });
    const order = await server.api.POST('/order', { body: { subtotal: 10, total: 10, items: [{ productId: product.data!.id, quantity: 1 }] } });
    expect(order.data?.orderNumber).toBe('000001');

    const second = await server.api.POST('/sandbox/reset');
    expect(second.data?.deleted).toEqual({ charges: 1, clients: 0, products: 1, subscriptions: 0, orders: 1, webhooks: 0 });
    expect(server.violations).toEqual([]);
  });

  test('without a key it is a 401 and deletes nothing', async () => {
    server = await createTestServer();
    await server.api.POST('/product', { body: productBody() });
    await expectProblem(await server.request('/sandbox/reset', { method: 'POST', apiKey: null }), 401, '/problems/unauthorized', '/sandbox/reset');
    expect((await server.api.POST('/sandbox/reset')).data?.deleted.products).toBe(1);
  });
});

describe('POST /sandbox/reset on a production deployment', () => {
  test('is a 403 problem that says why, and deletes nothing', async () => {
    server = await createTestServer({ config: { mode: 'production' } });
    const own = await populate(server.api, server.apiKey, server);
    const p = await expectProblem(await server.request('/sandbox/reset', { method: 'POST' }), 403, '/problems/sandbox-only', '/sandbox/reset');
    expect(p.detail).toMatch(/production/);
    expect(p.detail).toMatch(/development deployment/);
    expect(p.detail).toMatch(/Nothing was deleted/);
    expect(await whatIsLeft(server.api, own)).toEqual({ charge: 200, product: 200, order: 200, subscription: 200, webhook: 200, clients: 1, webhooks: 1 });
    expect(server.violations).toEqual([]);
  });

  test('a server in development on a database recorded as production (D51) refuses too: 403, nothing deleted', async () => {
    server = await createTestServer({ config: { mode: 'development' } });
    const own = await populate(server.api, server.apiKey, server);
    // Recorded behind this server's back (its start would have refused): the reset reads the database's mode.
    expect(await server.deps.store.recordDeploymentMode('production', new Date())).toBe('production');
    const p = await expectProblem(await server.request('/sandbox/reset', { method: 'POST' }), 403, '/problems/sandbox-only', '/sandbox/reset');
    expect(p.detail).toMatch(/^This database is recorded as a production deployment's, .* Nothing was deleted\./);
    expect(p.detail).toContain('npm run keys -- mode development --change');
    expect(await whatIsLeft(server.api, own)).toEqual({ charge: 200, product: 200, order: 200, subscription: 200, webhook: 200, clients: 1, webhooks: 1 });
    expect(server.violations).toEqual([]);
  });
});

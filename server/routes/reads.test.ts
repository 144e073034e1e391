/**
 * The reads by id of what a company created (D37): `GET /product/{id}`, `/order/{id}` and
 * `/subscription/{id}` answer the record as its create answered it, and `404` with a problem for
 * another company's id or an unknown one (D27). One row per read.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { expectProblem, productBody, subscriptionBody, unknownId } from '../test-support/fixtures.js';

let server: TestServer;

beforeEach(async () => {
  server = await createTestServer();
});

afterEach(async () => {
  expect(server.violations).toEqual([]);
  await server.close();
});

async function product(isSubscription = false) {
  const { data, response } = await server.api.POST('/product', { body: productBody({ isSubscription }) });
  expect(response.status).toBe(201);
  return data!;
}

type Row = [string, { given: () => Promise<{ id: string; created: unknown }>; want: { path: string; prefix: string } }];

describe('a read by id answers the created record, and 404 to anyone else', () => {
  test.each<Row>([
    ['GET /product/{id}', { given: async () => ((created) => ({ id: created.id, created }))(await product()), want: { path: '/product', prefix: 'prod' } }],
    [
      'GET /order/{id}',
      {
        given: async () => {
          const { id, price } = await product();
          const { data, response } = await server.api.POST('/order', { body: { subtotal: price, total: price, items: [{ productId: id, quantity: 1 }] } });
          expect(response.status).toBe(201);
          return { id: data!.id, created: data };
        },
        want: { path: '/order', prefix: 'ordr' },
      },
    ],
    [
      'GET /subscription/{id}',
      {
        given: async () => {
          const { data, response } = await server.api.POST('/subscription', { body: subscriptionBody((await product(true)).id) });
          expect(response.status).toBe(201);
          return { id: data!.id, created: data };
        },
        want: { path: '/subscription', prefix: 'subs' },
      },
    ],
  ])('%s', async (_name, { given, want }) => {
    const { id, created } = await given();
    const own = await server.request(`${want.path}/${id}`);
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual(created);

    for (const [asked, apiKey] of [
      [id, server.other.apiKey],
      [unknownId(want.prefix), server.apiKey],
    ] as const) {
      const refused = await expectProblem(await server.request(`${want.path}/${asked}`, { apiKey }), 404, '/problems/not-found', `${want.path}/${asked}`);
      expect(refused.detail).toContain(asked);
    }
  });
});

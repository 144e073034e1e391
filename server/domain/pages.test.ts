/**
 * A whole list (of clients, here) past its at-once size is streamed in keyset parts (D48): the stream is the
 * same JSON array as the list read at once, on either engine, with every client once and in order.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { client, later } from '../store/test-records.js';
import { wholeList } from './pages.js';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(async () => {
  await server?.close();
});

async function text(answer: string | Uint8Array | ReadableStream<Uint8Array>): Promise<string> {
  if (typeof answer === 'string') return answer;
  return new Response(answer).text();
}

describe('wholeList of clients', () => {
  const companyOf = () => server.companyId;

  const sizes = { atOnce: 10, part: 7 };
  test.for([
    ['no client', { given: 0, streamed: false }],
    ['as many as read at once', { given: 10, streamed: false }],
    ['one more: streamed, in parts that end on a part boundary', { given: 14, streamed: true }],
    ['streamed in parts with a short last one', { given: 25, streamed: true }],
  ] as const)('%s', async ([, { given, streamed }]) => {
    const store = server.deps.store;
    const companyId = companyOf();
    const existing = JSON.parse(await text((await store.listPageJson('clients', companyId, 1_000_000)).json)) as unknown[];
    // Timestamps apart, so the order of the list is known.
    for (let i = existing.length; i < given; i++) await store.insertClient(client(companyId, `Cliente ${i}`, { createdAt: later(i), updatedAt: later(i) }));
    const answer = await wholeList(store, 'clients', companyId, 1000, sizes);
    expect(answer.body instanceof ReadableStream).toBe(streamed);
    expect(answer.next).toBeUndefined();
    const listed = JSON.parse(await text(answer.body)) as Array<{ name: string }>;
    expect(listed.map((c) => c.name)).toEqual(Array.from({ length: given }, (_, i) => `Cliente ${i}`));
    expect(await text(answer.body instanceof ReadableStream ? (await wholeList(store, 'clients', companyId, 1000, sizes)).body : answer.body)).toBe(
      await text((await store.listPageJson('clients', companyId, 1_000_000)).json),
    );
  });

  // The 25 clients of the cases above are there: a bound of 20, 25 and 5 (under the at-once size).
  test.for([
    ['past the bound: the first 20, and where the list goes on', { max: 20, listed: 20, next: 'Cliente 19' }],
    ['exactly at the bound: all, and no next', { max: 25, listed: 25, next: undefined }],
    ['a bound under the at-once size', { max: 5, listed: 5, next: 'Cliente 4' }],
  ] as const)('a list holds at most its bound (D49): %s', async ([, { max, listed, next }]) => {
    const store = server.deps.store;
    const answer = await wholeList(store, 'clients', companyOf(), max, sizes);
    const clients = JSON.parse(await text(answer.body)) as Array<{ name: string; id: string; createdAt: string }>;
    expect(clients.map((c) => c.name)).toEqual(Array.from({ length: listed }, (_, i) => `Cliente ${i}`));
    const last = clients.at(-1)!;
    expect(answer.next).toEqual(next === undefined ? undefined : { createdAt: last.createdAt, id: last.id });
  });
});

/**
 * Issue 34: an unpaged `GET /client` streamed to a client that never reads holds one part, not
 * the list: the next part is read from the store only when the socket has taken the one before
 * (backpressure), and a company has at most `WHOLE_LISTS_PER_COMPANY` such lists in flight; one
 * more is a 429 problem with `Retry-After` until one ends. Over real sockets on the loopback; the
 * store is made to hold an endless list of 4 MB parts, so a server that read ahead of its reader
 * would read parts for ever.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import { WHOLE_LISTS_PER_COMPANY } from '../domain/pages.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { serveOnLoopback, type Listening } from '../test-support/loopback.js';

let server: TestServer;
let http: Listening;
const sockets: Socket[] = [];
beforeAll(async () => {
  server = await createTestServer();
  http = await serveOnLoopback(server.app.fetch);
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  // The slots of the destroyed sockets are given back once their connections have closed: every
  // slot streams an answer again.
  await until(async () => {
    const heads = await Promise.all(Array.from({ length: WHOLE_LISTS_PER_COMPANY }, () => rawGet('/client')));
    return heads.every((head) => head.startsWith('HTTP/1.1 200'));
  });
  vi.restoreAllMocks();
});
afterAll(async () => {
  await http?.close();
  await server?.close();
});

const PART_BYTES = 4 * 1024 * 1024;

/** The store holds an endless list: every part is 4 MB and another follows. Returns the spy counting the parts read. */
function endlessList() {
  const store = server.deps.store;
  vi.spyOn(store, 'listPositionAt').mockResolvedValue(undefined);
  const item = `{"name":"${'x'.repeat(PART_BYTES - 20)}"}`;
  const json = new TextEncoder().encode(`[${item}]`);
  return vi.spyOn(store, 'listPageJson').mockImplementation(async () => ({ json, next: { createdAt: '2026-01-01T00:00:00.000Z', id: 'x' } }));
}

/** A connection that sends `GET path` and never reads (its buffers fill, then the server's). */
function nonReadingGet(path: string): Socket {
  const socket = connect({ port: http.port, host: '127.0.0.1' });
  socket.on('error', () => {});
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${server.apiKey}\r\n\r\n`);
  socket.pause();
  sockets.push(socket);
  return socket;
}

/** The head of the answer to `GET path` (status line and headers), read on a connection of its own. */
function rawGet(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port: http.port, host: '127.0.0.1' });
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${server.apiKey}\r\nConnection: close\r\n\r\n`);
  });
}

/** Waits until `settled` holds (polled), failing after 15 s. */
async function until(settled: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (await settled()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the condition did not hold within 15 s');
}

/** The count once it has stopped changing for a second. */
async function settledCount(count: () => number): Promise<number> {
  let last = -1;
  let stable = 0;
  await until(() => {
    const now = count();
    stable = now === last ? stable + 1 : 0;
    last = now;
    return now > 0 && stable >= 10;
  });
  return last;
}

test('a reader that stops: the server reads one part past what the socket buffers took, then waits; the rest flows once it reads', async () => {
  const parts = endlessList();
  const socket = nonReadingGet('/client');
  // Loopback buffers take a few MB; an endless list read without backpressure would never stop.
  const held = await settledCount(() => parts.mock.calls.length);
  expect(held).toBeLessThanOrEqual(4);
  // Reading 40 MB makes the server read at least ten more parts, as the socket drains.
  let received = 0;
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
  });
  socket.resume();
  await until(() => received > 10 * PART_BYTES);
  expect(parts.mock.calls.length).toBeGreaterThan(held + 5);
});

test(`a company has at most ${WHOLE_LISTS_PER_COMPANY} unpaged lists in flight: one more is a 429 problem with Retry-After; pages are not bound; a closed one frees its slot`, async () => {
  const parts = endlessList();
  const held = Array.from({ length: WHOLE_LISTS_PER_COMPANY }, () => nonReadingGet('/client'));
  await until(() => parts.mock.calls.length >= WHOLE_LISTS_PER_COMPANY);
  const refused = await new Promise<{ status: number; retryAfter: string | null; type: string; detail: string }>((resolve, reject) => {
    fetch(`${http.base}/client`, { headers: { 'X-API-KEY': server.apiKey } })
      .then(async (response) => {
        const body = (await response.json()) as { type: string; detail: string };
        resolve({ status: response.status, retryAfter: response.headers.get('retry-after'), type: body.type, detail: body.detail });
      })
      .catch(reject);
  });
  expect(refused).toMatchObject({ status: 429, retryAfter: '1', type: '/problems/rate-limited' });
  expect(refused.detail).toMatch(/unpaged client lists/);
  // A page is no unpaged list: served meanwhile.
  expect(await rawGet('/client?limit=2')).toMatch(/^HTTP\/1\.1 200/);
  // One closed: its slot is free again, and the next unpaged list streams.
  held[0]!.destroy();
  await until(async () => (await rawGet('/client')).startsWith('HTTP/1.1 200'));
});

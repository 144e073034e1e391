/**
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deref, listOperations, loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { ResponseChecker } from '../test-support/contract-check.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { postPaymentLink, created } from '../test-support/fixtures.js';
import { exchange, rawRequest, type Exchange } from '../test-support/raw-http.js';
import { serveOnLoopback, type Listening } from '../test-support/loopback.js';

const checker = new ResponseChecker();

/** Operations a client may call without a body: no `requestBody`, or one that is not required; reads aside. */
const bodyless = listOperations()
  .filter((op) => op.method !== 'get')
  .filter((op) => deref<JsonObject | undefined>(loadBundledContract(), op.operation.requestBody)?.required !== true);

/** How to reach each of them: a record of the caller's that the operation can act on. */
const targets: Record<string, (server: TestServer) => Promise<string>> = {
  simulatePayment: async (server) => `/charge/${await devCharge(server)}/simulate-payment`,
  simulateExpiration: async (server) => `/charge/${await devCharge(server)}/simulate-expiration`,
  // D51: the caller's whole company; the records the other targets make are made just before their calls.
  resetSandbox: async () => '/sandbox/reset',
  deleteWebhook: async (server) => {
    const { data } = await server.api.POST('/webhook', { body: { url: 'https://shop.example.com/hooks/pix', name: 'Shop', events: ['charge.paid'] } });
    return `/webhook/${data!.id}`;
  },
};

async function devCharge(server: TestServer): Promise<string> {
  return created(await postPaymentLink(server, { total: 1_000, devMode: true })).data.id;
}

/** The documented success status of an operation (its one 2xx). */
function successStatus(operationId: string): number {
  const op = bodyless.find((o) => o.operationId === operationId)!;
  return Number(Object.keys(op.operation.responses as JsonObject).find((status) => status.startsWith('2')));
}

let server: TestServer;
let http: Listening;
let port: number;
beforeAll(async () => {
  server = await createTestServer();
  http = await serveOnLoopback(server.app.fetch);
  port = http.port;
});
afterAll(async () => {
  await http.close();
  await server.close();
});

async function expectDocumentedSuccess(
  method: string,
  path: string,
  answer: Pick<Exchange, 'status' | 'headers' | 'body'>,
  operationId: string,
): Promise<void> {
  expect(answer.status, answer.body).toBe(successStatus(operationId));
  const response = new Response(answer.status === 204 ? null : answer.body, { status: answer.status!, headers: answer.headers });
  expect(await checker.check(method, path, response)).toEqual([]);
}

test('every operation callable without a body has a target here', () => {
  expect(bodyless.map((op) => op.operationId).sort()).toEqual(Object.keys(targets).sort());
});

describe.each(bodyless.map((op) => [op.operationId, op] as const))('%s without a body', (operationId, op) => {
  test('over a raw socket, with the bytes curl writes (no Content-Length, Transfer-Encoding or Content-Type)', async () => {
    const path = await targets[operationId]!(server);
    const method = op.method.toUpperCase();
    const request = rawRequest(method, path, { 'User-Agent': 'curl/7.88.1', Accept: '*/*', 'X-API-KEY': server.apiKey });
    expect(request).not.toMatch(/content-length|transfer-encoding|content-type/i);
    const answer = await exchange(port, request);
    await expectDocumentedSuccess(method, path, answer, operationId);
  });

  test("with Content-Length: 0 and a JSON Content-Type (curl -d '')", async () => {
    const path = await targets[operationId]!(server);
    const method = op.method.toUpperCase();
    const answer = await exchange(port, rawRequest(method, path, { 'X-API-KEY': server.apiKey, 'Content-Type': 'application/json', 'Content-Length': '0' }));
    await expectDocumentedSuccess(method, path, answer, operationId);
  });
});

const curl = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    console.warn('NOTICE: curl is not installed: the body-less requests are sent over a raw socket only.');
    return false;
  }
})();

describe.skipIf(!curl)('curl itself', () => {
  test.each(bodyless.map((op) => [op.operationId, op] as const))('%s: curl -X METHOD URL with no -d', async (operationId, op) => {
    const path = await targets[operationId]!(server);
    const method = op.method.toUpperCase();
    // Not execFileSync: the server answering curl runs in this very process.
    const { stdout } = await promisify(execFile)(
      'curl',
      ['-s', '-X', method, `http://127.0.0.1:${port}${path}`, '-H', `X-API-KEY: ${server.apiKey}`, '-o', '/dev/null', '-w', '%{http_code}'],
      { encoding: 'utf8' },
    );
    expect(Number(stdout)).toBe(successStatus(operationId));
  });
});

test('a body without a media type is still refused (415), and a non-JSON one too', async () => {
  const path = await targets.simulatePayment!(server);
  const untyped = await exchange(port, rawRequest('POST', path, { 'X-API-KEY': server.apiKey, 'Content-Length': '2' }, '{}'));
  expect(untyped.status).toBe(415);
  expect(JSON.parse(untyped.body)).toMatchObject({ type: '/problems/unsupported-media-type', detail: expect.stringContaining('no Content-Type') });
  const text = await exchange(port, rawRequest('POST', path, { 'X-API-KEY': server.apiKey, 'Content-Type': 'text/plain', 'Content-Length': '2' }, '{}'));
  expect(text.status).toBe(415);
});

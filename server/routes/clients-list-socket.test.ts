/**
 * `GET /client` without paging, over a real socket with curl, as an integrator calls it: the
 * list read at once (sent as one body with its length) and the list streamed in parts (past
 * `WHOLE_LIST_AT_ONCE` clients; forced here by the store reading pages of at most 5) are the same
 * JSON array (D48).
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { clientBody } from '../test-support/fixtures.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { serveOnLoopback, type Listening } from '../test-support/loopback.js';

const curlHere = spawnSync('curl', ['--version']).status === 0;
if (!curlHere) console.warn('NOTICE: curl is not installed: the socket test of GET /client is skipped.');

let server: TestServer;
let http: Listening | undefined;
beforeAll(async () => {
  server = await createTestServer();
  for (let i = 0; i < 12; i++) {
    const { response } = await server.api.POST('/client', { body: clientBody({ name: `Cliente ${i}` }) });
    expect(response.status).toBe(201);
  }
  http = await serveOnLoopback(server.app.fetch);
});
afterAll(async () => {
  await http?.close();
  await server?.close();
});

async function curlList(): Promise<{ headers: string; body: string }> {
  const { stdout } = await promisify(execFile)('curl', ['-sS', '-D', '-', '-H', `X-API-KEY: ${server.apiKey}`, `${http!.base}/client`]);
  const split = stdout.indexOf('\r\n\r\n');
  return { headers: stdout.slice(0, split), body: stdout.slice(split + 4) };
}

test.skipIf(!curlHere)('the whole list, read at once or streamed, is the same JSON array', async () => {
  const atOnce = await curlList();
  expect(atOnce.headers).toMatch(/^HTTP\/1\.1 200/);
  expect(atOnce.headers).toMatch(/content-length: \d+/i);
  const names = (JSON.parse(atOnce.body) as Array<{ name: string }>).map((c) => c.name);
  expect(names).toEqual(expect.arrayContaining(Array.from({ length: 12 }, (_, i) => `Cliente ${i}`)));

  const store = server.deps.store;
  const read = store.listPageJson.bind(store);
  const spy = vi.spyOn(store, 'listPageJson').mockImplementation((table, companyId, limit, after) => read(table, companyId, Math.min(limit, 5), after));
  try {
    const streamed = await curlList();
    expect(spy).toHaveBeenCalled();
    expect(streamed.headers).toMatch(/^HTTP\/1\.1 200/);
    expect(streamed.headers).toMatch(/transfer-encoding: chunked/i);
    expect(streamed.headers).toMatch(/content-type: application\/json/i);
    expect(streamed.body).toBe(atOnce.body);
  } finally {
    spy.mockRestore();
  }
});

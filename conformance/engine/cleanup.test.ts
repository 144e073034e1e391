/**
 * A run leaves nothing it may delete behind: every webhook registration it made is deleted when
 * its checks are done, also when the target stops answering in the middle. Left behind, each
 * would be retried for hours and count against the company's 16 registrations (D49), so a few
 * runs would block the next ones.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { testRunOptions } from '../test-support/fixtures.js';
import { RunContext } from './context.js';
import { runConformance, TargetUnreachableError } from './run.js';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(async () => server.close());

const registrations = async () => (await server.api.GET('/webhook')).data!.map((w) => w.id);
const only = ['createWebhook', 'getWebhook', 'updateWebhook', 'listWebhooks', 'listWebhookDeliveries'];

test('a run deletes every registration it made', async () => {
  const before = await registrations();
  const sent: string[] = [];
  const report = await runConformance(testRunOptions({ apiKey: server.apiKey, profile: 'reference', only, timeoutMs: 5_000 }), {
    fetch: async (input, init) => {
      const request = new Request(input as string, init);
      sent.push(request.method);
      return server.app.fetch(request);
    },
  });
  expect(report.results.filter((r) => r.outcome === 'fail')).toEqual([]);
  expect(sent.filter((m) => m === 'POST').length).toBeGreaterThan(1);
  expect(await registrations()).toEqual(before);
});

test('… also when the target stops answering in the middle of the run', async () => {
  const before = await registrations();
  let registered = 0;
  const run = runConformance(testRunOptions({ apiKey: server.apiKey, profile: 'reference', only, timeoutMs: 2_000 }), {
    fetch: async (input, init) => {
      const request = new Request(input as string, init);
      // Everything goes through until two webhooks are registered; then nothing but the deletes is answered.
      if (request.method === 'DELETE' || registered < 2) {
        const response = await server.app.fetch(request);
        if (request.method === 'POST' && new URL(request.url).pathname === '/webhook' && response.status === 201) registered += 1;
        return response;
      }
      throw new TypeError('fetch failed');
    },
  });
  await expect(run).rejects.toBeInstanceOf(TargetUnreachableError);
  expect(registered).toBe(2);
  expect(await registrations()).toEqual(before);
});

test('… and when the deletes get no answer either, the error and its report name the requests that would delete what is left', async () => {
  const before = await registrations();
  let registered = 0;
  let stopped = false;
  const run = runConformance(testRunOptions({ apiKey: server.apiKey, profile: 'reference', only, timeoutMs: 2_000 }), {
    fetch: async (input, init) => {
      const request = new Request(input as string, init);
      // As a proxy killed in the middle of the run: once two webhooks are registered, nothing is answered.
      if (!stopped) {
        const response = await server.app.fetch(request);
        if (request.method === 'POST' && new URL(request.url).pathname === '/webhook' && response.status === 201) stopped = ++registered === 2;
        return response;
      }
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:80'), { code: 'ECONNREFUSED' }) });
    },
  });
  const error = (await run.catch((e: unknown) => e)) as TargetUnreachableError;
  expect(error).toBeInstanceOf(TargetUnreachableError);
  const left = (await registrations()).filter((id) => !before.includes(id));
  expect(left).toHaveLength(2);
  const deletes = left.map((id) => `DELETE http://ref.test/webhook/${id}`).sort();
  expect(error.message).toMatch(
    /got no answer \(last: connection refused: .*\); the run stops; 2 records it made could not be deleted; to delete them, send \(with the run's API key unless marked\): DELETE /,
  );
  for (const request of deletes) expect(error.message).toContain(request);
  // The report of what it had found: why it stopped, what is left, the checks it had not finished skipped.
  const report = error.report!;
  expect(report.stopped).toBe(`target unreachable: ${error.message}`);
  expect([...report.leftBehind!].sort()).toEqual(deletes);
  expect(report.results.length).toBeGreaterThan(0);
  expect(report.results.filter((r) => r.outcome === 'pass').map((r) => r.check)).not.toContain('not_a_server_error');
  expect(report.results.filter((r) => r.outcome === 'skip').map((r) => r.skipReason)).toEqual(
    expect.arrayContaining([expect.stringMatching(/^not run in full: the run stopped in the middle of this check: the target stopped answering/)]),
  );
  // Only the checks that ran are counted: none is reported for a check the run never reached.
  expect(report.results.map((r) => r.skipReason ?? '').filter((reason) => reason.includes('the run stopped before this check'))).toEqual([]);
  // What the note says works: those requests delete them.
  for (const id of left) expect((await server.api.DELETE('/webhook/{id}', { params: { path: { id } } })).response.status).toBe(204);
  expect(await registrations()).toEqual(before);
});

test("a run never sends the sandbox reset (x-resets-company): the company's records stay, and the report says why", async () => {
  const product = await server.api.POST('/product', { body: { name: 'Kept', description: 'Made before the run', price: 10, sku: 'KEPT', displayId: 'kept' } });
  const paths: string[] = [];
  const report = await runConformance(testRunOptions({ apiKey: server.apiKey, profile: 'reference', only: ['resetSandbox', 'getProduct'], timeoutMs: 5_000 }), {
    fetch: async (input, init) => {
      const request = new Request(input as string, init);
      paths.push(`${request.method} ${new URL(request.url).pathname}`);
      return server.app.fetch(request);
    },
  });
  expect(paths.length).toBeGreaterThan(1);
  expect(paths.filter((sent) => sent.includes('/sandbox/'))).toEqual([]);
  expect(report.operations).toEqual(['getProduct', 'resetSandbox']);
  expect(report.results.filter((r) => r.operationId === 'resetSandbox')).toEqual([
    expect.objectContaining({ check: 'positive_data_acceptance', outcome: 'skip', skipReason: expect.stringMatching(/^never sent: it deletes every record/) }),
  ]);
  expect((await server.api.GET('/product/{id}', { params: { path: { id: product.data!.id } } })).response.status).toBe(200);
});

test("a registration made with the second company's key is deleted with that key", async () => {
  const others = async () => (await server.other.api.GET('/webhook')).data!.map((w) => w.id);
  const before = await others();
  const ctx = new RunContext(testRunOptions({ apiKey: server.apiKey, secondApiKey: server.other.apiKey, profile: 'reference', timeoutMs: 5_000 }), {
    fetch: async (input, init) => server.app.fetch(new Request(input as string, init)),
  });
  const made = await ctx.request('createWebhook', {
    apiKey: server.other.apiKey,
    body: { url: 'https://conformance.invalid/hook', name: 'Second company', events: ['charge.paid'] },
  });
  expect(made.response?.status).toBe(201);
  expect(await others()).toHaveLength(before.length + 1);
  await ctx.cleanUp();
  expect(ctx.notCleanedUp).toEqual([]);
  expect(await others()).toEqual(before);
});

test('… and when the deletes are rate limited (the flood check spent the quota), each waits out Retry-After and is sent again', async () => {
  const before = await registrations();
  let limited = 0;
  const ctx = new RunContext(testRunOptions({ apiKey: server.apiKey, profile: 'reference', timeoutMs: 5_000 }), {
    fetch: async (input, init) => {
      const request = new Request(input as string, init);
      // The first answer to each delete is the quota's 429, as after auth_flood_limited.
      if (request.method === 'DELETE' && limited++ % 2 === 0) {
        return new Response(JSON.stringify({ type: '/problems/rate-limited', title: 'Too many requests', status: 429 }), {
          status: 429,
          headers: { 'content-type': 'application/problem+json', 'retry-after': '0' },
        });
      }
      return server.app.fetch(request);
    },
  });
  for (const name of ['Limited one', 'Limited two']) {
    const made = await ctx.request('createWebhook', { body: { url: 'https://conformance.invalid/hook', name, events: ['charge.paid'] } });
    expect(made.response?.status).toBe(201);
  }
  await ctx.cleanUp();
  expect(limited).toBe(4);
  expect(ctx.notCleanedUp).toEqual([]);
  expect(await registrations()).toEqual(before);
});

/**
 * The webhook checks on the in-process reference server with its delivery worker on a fast
 * schedule: when they run and when they skip (with the reason), a target without the sandbox
 * control, and the `seed` profile, which holds no deployment to the contract's delivery decisions.
 * (The faults each check catches: conformance/faults/faults.test.ts.)
 *
 * @operation-wide: it runs conformance checks over every operation of the contract, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import type { TestServer } from '../../server/test-support/harness.js';
import { startWebhookWorker, type WebhookWorker } from '../../server/webhooks/worker.js';
import type { ConformanceOptions } from '../engine/types.js';
import type { RunContext } from '../engine/context.js';
import { freePort } from '../../lib/net/free-port.js';
import { deliveryFaults } from '../faults/deployments.js';
import { contextOn, is, startServer, verdict, type ContextOptions } from './stateful-test-support.js';
import { webhookCheck } from './webhooks.js';
import { groupFindings, groupTitle } from '../report/groups.js';

const receiving: Partial<ConformanceOptions> = { webhookReceiver: { host: '127.0.0.1', port: 0 }, webhookWaitMs: 5_000 };
const only = ['createWebhook', 'createPaymentLink', 'simulatePayment', 'deleteWebhook'];
let server: TestServer | undefined;
let worker: WebhookWorker | undefined;

afterEach(async () => {
  await worker?.stop();
  await server?.close();
  worker = undefined;
  server = undefined;
});

async function checked(options: ContextOptions, send: typeof fetch = fetch, before: (ctx: RunContext) => Promise<unknown> = async () => {}) {
  server = await startServer();
  worker = startWebhookWorker(server.deps, { pollMs: 50, scheduleSeconds: [0.3, 0.3], fetch: send });
  const ctx = await contextOn(server, { only, ...options });
  await before(ctx);
  await webhookCheck.run(ctx);
  return (check: 'webhook_signature' | 'webhook_schema' | 'webhook_delivery') => verdict(ctx, 'createWebhook', check);
}

describe('skipped, with the reason', () => {
  const cases: Array<[string, ContextOptions, RegExp]> = [
    ['without --webhook-receiver', {}, /^no --webhook-receiver: the run receives no deliveries$/],
    ['--read-only', { readOnly: true, more: receiving }, /needs a POST \(--read-only\)/],
    ['--stateless', { stateless: true, more: receiving }, /--stateless/],
  ];
  test.each(cases)('%s', async (_name, options, reason) => {
    const result = await checked(options);
    for (const check of ['webhook_signature', 'webhook_schema', 'webhook_delivery'] as const) {
      expect(result(check).outcome).toBe('skip');
      expect(result(check).skipReason).toMatch(reason);
    }
  });

  test('a receiver address in use', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as { port: number };
    try {
      const result = await checked({ more: { ...receiving, webhookReceiver: { host: '127.0.0.1', port } } });
      expect(result('webhook_delivery')).toMatchObject({ outcome: 'skip', skipReason: `the receiver cannot listen on 127.0.0.1:${port}: EADDRINUSE` });
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

test('the reference server passes all three, the retry after the 500 included', async () => {
  const result = await checked({ profile: 'reference', more: receiving });
  for (const check of ['webhook_signature', 'webhook_schema', 'webhook_delivery'] as const)
    expect(result(check).outcome, result(check).messages.join('\n')).toBe('pass');
  expect(result('webhook_delivery').messages).toEqual([
    expect.stringMatching(
      /^pass: charge\.pending, charge\.processing, charge\.paid, charge\.received of charge \S+ arrived once each, in order; the delivery answered 500 came again with the same webhook-id$/,
    ),
  ]);
  // Five deliveries: charge.pending refused, then again, then the three moves.
  expect(result('webhook_signature').messages).toHaveLength(5);
});

test("behind --webhook-url (a tunnel): only the receiver's own registration is judged, though the run's other webhooks point at the same address", async () => {
  const port = await freePort();
  const webhookUrl = `http://127.0.0.1:${port}/hooks`;
  const other = async (ctx: RunContext) => {
    const created = await ctx.request('createWebhook', {
      body: { url: webhookUrl, name: 'another registration of the run', events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received'] },
    });
    expect(created.response?.status).toBe(201);
  };
  const result = await checked({ profile: 'reference', more: { ...receiving, webhookReceiver: { host: '127.0.0.1', port }, webhookUrl } }, fetch, other);
  for (const check of ['webhook_signature', 'webhook_schema', 'webhook_delivery'] as const)
    expect(result(check).outcome, result(check).messages.join('\n')).toBe('pass');
  // The receiver's five (charge.pending refused and again, then the three moves), none of the other registration's.
  expect(result('webhook_signature').messages).toHaveLength(5);
});

test('a target without the sandbox control: charge.pending only, so webhook_delivery is not run in full (never ✓)', async () => {
  const result = await checked({
    profile: 'reference',
    more: receiving,
    wrap: (request, next) => (is(request, 'POST', /\/simulate-payment$/) ? Promise.resolve(new Response(null, { status: 404 })) : next(request)),
  });
  expect(result('webhook_delivery'), result('webhook_delivery').messages.join('\n')).toMatchObject({
    outcome: 'skip',
    skipReason:
      'not run in full: charge.processing, charge.paid, charge.received not checked: simulatePayment answered 404 (the target has no sandbox control to move a charge), so only charge.pending was',
  });
  // What could be checked was: the deliveries of charge.pending are signed and valid.
  for (const check of ['webhook_signature', 'webhook_schema'] as const) expect(result(check).outcome, result(check).messages.join('\n')).toBe('pass');
});

describe('the receiver cannot be registered: skipped, saying what to do', () => {
  const refuse = (status: number, body: unknown) => (request: Request, next: (request: Request) => Promise<Response>) =>
    is(request, 'POST', /^\/webhook$/)
      ? Promise.resolve(new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/problem+json' } }))
      : next(request);
  const cases: Array<[string, { status: number; body: unknown; reason: RegExp }]> = [
    [
      'refused as a production deployment refuses a loopback address (D40)',
      {
        status: 422,
        body: { status: 422, title: 'Invalid request', detail: 'url must be an https URL (http only to localhost in development).' },
        reason:
          /^the target refused to register the receiver at http:\/\/127\.0\.0\.1:\d+\/\S+ \(422: url must be an https URL \(http only to localhost in development\)\.\): a production deployment sends webhooks only to https at a public name \(D40\); put a tunnel or a TLS-terminating proxy in front of the receiver and give its https address as --webhook-url$/,
      },
    ],
    [
      'refused at the registration limit: no tunnel advice, the limit named (deleted registrations still counted are the likely bug)',
      {
        status: 409,
        body: { status: 409, title: 'Conflict', detail: 'This company already has 16 webhook registrations, the most allowed.' },
        reason:
          /^the target refused to register the receiver at http:\/\/127\.0\.0\.1:\d+\/\S+ \(409: This company already has 16 webhook registrations, the most allowed\.\): the company holds the most webhook registrations it may; list them \(GET \/webhook\) and delete those no one uses\. If the list holds fewer than the limit, deleted registrations are still counted against it$/,
      },
    ],
    [
      'a target without webhook registrations',
      {
        status: 404,
        body: { error: 'Not Found' },
        reason: /^the target has no webhook registration \(POST \/webhook answered 404\), so no delivery can be received$/,
      },
    ],
  ];
  test.each(cases)('%s', async (_name, { status, body, reason }) => {
    const result = await checked({ profile: 'reference', more: receiving, wrap: refuse(status, body) });
    for (const check of ['webhook_signature', 'webhook_schema', 'webhook_delivery'] as const) {
      expect(result(check).outcome).toBe('skip');
      expect(result(check).skipReason).toMatch(reason);
    }
  });
});

test('the seed profile reports a bad signature as information naming the decision (the seed shows no signing)', async () => {
  const fault = deliveryFaults.find((f) => f.expect.check === 'webhook_signature')!;
  const result = await checked({ profile: 'seed', more: receiving }, fault.deliveries!(fetch, new Map()));
  expect(result('webhook_signature').outcome).toBe('info');
  expect(result('webhook_signature').messages[0]).toMatch(/^info \(D14\): delivery: webhook-signature does not verify/);
});

test('a bad signature on every delivery is one finding, not one per event: the same message, each delivery named in its detail with an offline check', async () => {
  const fault = deliveryFaults.find((f) => f.expect.check === 'webhook_signature')!;
  const result = await checked({ profile: 'reference', more: receiving }, fault.deliveries!(fetch, new Map()));
  const failures = result('webhook_signature').messages.filter((m) => m.startsWith('fail'));
  expect(failures.length).toBeGreaterThan(1);
  expect(new Set(failures).size).toBe(1);
  expect(failures[0]).toMatch(/^fail: delivery: webhook-signature does not verify/);
});

test('no delivery arriving is one cause: one group in the reports naming the three checks with a count, the create that should have caused it as its reproduction', async () => {
  server = await startServer();
  // The worker "delivers" without sending: the receiver hears nothing.
  worker = startWebhookWorker(server.deps, { pollMs: 50, scheduleSeconds: [0.3, 0.3], fetch: async () => new Response(null, { status: 204 }) });
  const ctx = await contextOn(server, { only, profile: 'reference', more: { ...receiving, webhookWaitMs: 1_000 } });
  await webhookCheck.run(ctx);
  const results = ctx.recorder.results(ctx.operations.map((op) => op.operationId));
  for (const check of ['webhook_signature', 'webhook_schema', 'webhook_delivery'] as const)
    expect(verdict(ctx, 'createWebhook', check).messages).toEqual([
      expect.stringMatching(/^fail: no delivery arrived at \S+ within 1 s of creating charge \S+$/),
    ]);
  const groups = groupFindings(results, 'fail', ctx.runId);
  expect(groups.map(groupTitle)).toEqual(['createWebhook › webhook_signature, webhook_schema, webhook_delivery × 3']);
  expect(groups[0]!.members[0]!.finding.exchange?.operationId).toBe('createPaymentLink');
});

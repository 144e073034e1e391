/**
 * The charge state machine (D05, D39) through the sandbox controls, and the events each
 * move writes to the outbox (D14, D15).
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { applyMoves, canMove, expireDueCharges } from '../domain/charge-lifecycle.js';
import { newId } from '../domain/ids.js';
import { ProblemError } from '../http/problems.js';
import { fakeClock, read, sendJson, type FakeClock } from '../test-support/fixtures.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';

type PaymentStatus = components['schemas']['ChargePaymentStatus'];

let server: TestServer | undefined;
let clock: FakeClock;

afterEach(async () => {
  if (!server) return;
  expect(server.violations).toEqual([]);
  await server.close();
  server = undefined;
});

/** The running server of the current test. */
function s(): TestServer {
  if (!server) throw new Error('no server started');
  return server;
}

async function start(): Promise<void> {
  clock = fakeClock();
  server = await createTestServer({ now: clock.now });
}

async function charge(devMode = true, api = s().api): Promise<string> {
  const created = await api.POST('/charge/payment-link', { body: { total: 1990, devMode } });
  expect(created.response.status).toBe(201);
  return created.data!.data.id;
}

/** A webhook of company A subscribed to every event, so the outbox keeps a delivery per event. */
async function subscribeAll(): Promise<string> {
  const id = newId('webhook');
  const at = clock.iso();
  await s().deps.store.insertWebhook(
    { id, url: 'http://127.0.0.1:9/hook', name: 'all', companyId: s().companyId, status: 'ACTIVE', events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received', 'charge.expired'], createdAt: at, updatedAt: at },
    'whsec_sdHVuaqPLHO1xPKa7ZAxbXS82mz8j25qG3HIcpNsgdM=',
  );
  return id;
}

/** The event types waiting for delivery, in order, by draining the webhook's queue one event at a time. */
async function queuedEvents(): Promise<string[]> {
  const types: string[] = [];
  const far = '2999-01-01T00:00:00.000Z';
  for (;;) {
    const [due] = await s().deps.store.claimDueDeliveries(far, far, 1);
    if (!due) return types;
    types.push(due.type);
    const at = clock.iso();
    await s().deps.store.recordAttempt({
      companyId: due.companyId,
      state: 'DELIVERED',
      attempt: { id: newId('webhook').replace('wbhk_', 'dlvr_'), eventId: due.eventId, eventType: due.type, webhookId: due.webhookId, attempt: due.attempts + 1, status: 'SUCCEEDED', httpStatus: 200, requestedAt: at, durationMs: 1 },
    });
  }
}

describe('the state machine', () => {
  const all: PaymentStatus[] = ['PENDING', 'PROCESSING', 'PAID', 'RECEIVED', 'EXPIRED'];
  const allowed = new Set(['PENDING>PROCESSING', 'PENDING>PAID', 'PENDING>EXPIRED', 'PROCESSING>PAID', 'PROCESSING>EXPIRED', 'PAID>RECEIVED']);
  test.each(all.flatMap((from) => all.map((to) => [`${from} → ${to}`, { from, to, want: allowed.has(`${from}>${to}`) }] as const)))('%s', (_name, { from, to, want }) => {
    expect(canMove(from, to)).toBe(want);
  });

  test('status follows paymentStatus, paymentDate is set on PAID, and each move has its event', () => {
    const at = new Date('2026-11-21T14:40:00.000Z');
    const base = { id: 'char_x', status: 'OPEN', paymentStatus: 'PENDING' } as components['schemas']['Charge'];
    const { charge, events } = applyMoves(base, ['PROCESSING', 'PAID', 'RECEIVED'], at);
    expect([charge.status, charge.paymentStatus, charge.paymentDate]).toEqual(['PAID', 'RECEIVED', at.toISOString()]);
    expect(events.map((e) => e.type)).toEqual(['charge.processing', 'charge.paid', 'charge.received']);
    expect(events.map((e) => (JSON.parse(e.body) as { data: { paymentStatus: string } }).data.paymentStatus)).toEqual(['PROCESSING', 'PAID', 'RECEIVED']);
    expect(() => applyMoves(charge, ['EXPIRED'], at)).toThrow(ProblemError);
  });
});

describe('POST /charge/{id}/simulate-payment', () => {
  const cases: Array<[string, { given: { body?: unknown }; want: { status: string; paymentStatus: string; events: string[] } }]> = [
    ['no body: paid and settled', { given: {}, want: { status: 'PAID', paymentStatus: 'RECEIVED', events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received'] } }],
    ['settle true', { given: { body: { settle: true } }, want: { status: 'PAID', paymentStatus: 'RECEIVED', events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received'] } }],
    ['settle false stops at PAID', { given: { body: { settle: false } }, want: { status: 'PAID', paymentStatus: 'PAID', events: ['charge.pending', 'charge.processing', 'charge.paid'] } }],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    await start();
    await subscribeAll();
    const id = await charge();
    clock.advance(60_000);
    const answer = given.body === undefined
      ? await read(await s().request(`/charge/${id}/simulate-payment`, { method: 'POST' }))
      : await sendJson(s(), 'POST', `/charge/${id}/simulate-payment`, given.body);
    expect(answer.status).toBe(200);
    const data = (answer.json as { data: components['schemas']['Charge'] }).data;
    expect([data.status, data.paymentStatus, data.paymentDate]).toEqual([want.status, want.paymentStatus, clock.iso()]);
    const read_ = await s().api.GET('/charge/{id}', { params: { path: { id } } });
    expect(read_.data?.data).toEqual(data);
    expect(await queuedEvents()).toEqual(want.events);
  });

  const pay = async (id: string): Promise<void> => void (await s().api.POST('/charge/{id}/simulate-payment', { params: { path: { id } } }));
  const expire = async (id: string): Promise<void> => void (await s().api.POST('/charge/{id}/simulate-expiration', { params: { path: { id } } }));
  test.each([
    ['a second payment', pay, 409, '/problems/invalid-transition'],
    ['a payment after expiry', expire, 409, '/problems/invalid-transition'],
  ] as const)('refuses %s', async (_name, before, status, type) => {
    await start();
    const id = await charge();
    await before(id);
    const answer = await s().api.POST('/charge/{id}/simulate-payment', { params: { path: { id } } });
    expect(answer.response.status).toBe(status);
    expect(answer.error).toMatchObject({ type, status });
  });

  test('refuses a live charge (403), an unknown or foreign one (404), a bad body (422) and no key (401)', async () => {
    await start();
    const live = await charge(false);
    expect((await s().api.POST('/charge/{id}/simulate-payment', { params: { path: { id: live } } })).error).toMatchObject({ type: '/problems/live-charge', status: 403 });
    const foreign = await charge(true, s().other.api);
    expect((await s().api.POST('/charge/{id}/simulate-payment', { params: { path: { id: foreign } } })).response.status).toBe(404);
    expect((await s().api.POST('/charge/{id}/simulate-payment', { params: { path: { id: 'char_nope' } } })).response.status).toBe(404);
    const dev = await charge();
    const bad = await sendJson(s(), 'POST', `/charge/${dev}/simulate-payment`, { settle: 'yes' });
    expect(bad.status).toBe(422);
    expect((await sendJson(s(), 'POST', `/charge/${dev}/simulate-payment`, {}, { apiKey: null })).status).toBe(401);
    // None of the refusals moved anything.
    expect((await s().api.GET('/charge/{id}', { params: { path: { id: dev } } })).data?.data.paymentStatus).toBe('PENDING');
    expect((await s().other.api.GET('/charge/{id}', { params: { path: { id: foreign } } })).data?.data.paymentStatus).toBe('PENDING');
  });
});

describe('expiry', () => {
  test('POST /charge/{id}/simulate-expiration expires now and emits charge.expired; a paid charge cannot expire', async () => {
    await start();
    await subscribeAll();
    const id = await charge();
    const expired = await s().api.POST('/charge/{id}/simulate-expiration', { params: { path: { id } } });
    expect([expired.data?.data.status, expired.data?.data.paymentStatus]).toEqual(['EXPIRED', 'EXPIRED']);
    expect(await queuedEvents()).toEqual(['charge.pending', 'charge.expired']);
    const paid = await charge();
    await s().api.POST('/charge/{id}/simulate-payment', { params: { path: { id: paid } } });
    expect((await s().api.POST('/charge/{id}/simulate-expiration', { params: { path: { id: paid } } })).response.status).toBe(409);
  });

  test('charges expire by themselves at expiresAt, live ones too, paid ones not', async () => {
    await start();
    const live = await charge(false);
    const dev = await charge(true);
    const paid = await charge(true);
    await s().api.POST('/charge/{id}/simulate-payment', { params: { path: { id: paid } } });
    clock.advance(59 * 60_000);
    expect(await expireDueCharges(s().deps)).toBe(0);
    clock.advance(60_000);
    expect(await expireDueCharges(s().deps)).toBe(2);
    expect(await expireDueCharges(s().deps)).toBe(0);
    const status = async (id: string) => (await s().api.GET('/charge/{id}', { params: { path: { id } } })).data?.data.paymentStatus;
    expect([await status(live), await status(dev), await status(paid)]).toEqual(['EXPIRED', 'EXPIRED', 'RECEIVED']);
  });
});

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
    {
      id,
      url: 'http://127.0.0.1:9/hook',
      name: 'all',
      companyId: s().companyId,
      status: 'ACTIVE',
      events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received', 'charge.expired'],
      createdAt: at,
      updatedAt: at,
    },
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
      attempt: {
        id: newId('webhook').replace('wbhk_', 'dlvr_'),
        eventId: due.eventId,
        eventType: due.type,
        webhookId: due.webhookId,
        attempt: due.attempts + 1,
        status: 'SUCCEEDED',
        httpStatus: 200,
        requestedAt: at,
        durationMs: 1,
      },
    });
  }
}

describe('the state machine', () => {
  const all: PaymentStatus[] = ['PENDING', 'PROCESSING', 'PAID', 'RECEIVED', 'EXPIRED'];
  const allowed = new Set(['PENDING>PROCESSING', 'PENDING>PAID', 'PENDING>EXPIRED', 'PROCESSING>PAID', 'PROCESSING>EXPIRED', 'PAID>RECEIVED']);
  test.each(all.flatMap((from) => all.map((to) => [`${from} → ${to}`, { from, to, want: allowed.has(`${from}>${to}`) }] as const)))(
    '%s',
    (_name, { from, to, want }) => {
      expect(canMove(from, to)).toBe(want);
    },
  );

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
    [
      'no body: paid and settled',
      { given: {}, want: { status: 'PAID', paymentStatus: 'RECEIVED', events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received'] } },
    ],
    [
      'settle true',
      {
        given: { body: { settle: true } },
        want: { status: 'PAID', paymentStatus: 'RECEIVED', events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received'] },
      },
    ],
    [
      'settle false stops at PAID',
      { given: { body: { settle: false } }, want: { status: 'PAID', paymentStatus: 'PAID', events: ['charge.pending', 'charge.processing', 'charge.paid'] } },
    ],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    await start();
    await subscribeAll();
    const id = await charge();
    clock.advance(60_000);
    const answer =
      given.body === undefined
        ? await read(await s().request(`/charge/${id}/simulate-payment`, { method: 'POST' }))
        : await sendJson(s(), 'POST', `/charge/${id}/simulate-payment`, given.body);
    expect(answer.status).toBe(200);
    const data = (answer.json as { data: components['schemas']['Charge'] }).data;
    expect([data.status, data.paymentStatus, data.paymentDate]).toEqual([want.status, want.paymentStatus, clock.iso()]);
    const read_ = await s().api.GET('/charge/{id}', { params: { path: { id } } });
    expect(read_.data?.data).toEqual(data);
    expect(await queuedEvents()).toEqual(want.events);
  });

  test('a pending charge stopped at PROCESSING reads back OPEN/PROCESSING, on the API and on its payment page, and stays there', async () => {
    await start();
    const id = await charge();
    const stopped = await sendJson(s(), 'POST', `/charge/${id}/simulate-payment`, { until: 'PROCESSING' });
    expect(stopped.status).toBe(200);
    clock.advance(30 * 60_000);
    const read_ = await s().api.GET('/charge/{id}', { params: { path: { id } } });
    expect(read_.data?.data).toMatchObject({ status: 'OPEN', paymentStatus: 'PROCESSING' });
    expect(read_.data?.data).not.toHaveProperty('paymentDate');
    // The payment page is outside the contract: asked of the app itself, past the harness's contract checker.
    expect((await read(await s().app.request(`/pay/${id}/status`))).json).toMatchObject({ status: 'OPEN', paymentStatus: 'PROCESSING' });
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
    expect((await s().api.POST('/charge/{id}/simulate-payment', { params: { path: { id: live } } })).error).toMatchObject({
      type: '/problems/live-charge',
      status: 403,
    });
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

/**
 * Every move of D05, each made by a sandbox call (D39): the steps, the state each step leaves the
 * charge in as GET /charge/{id} reads it, and the events queued for a webhook subscribed to all.
 */
describe('every D05 move is reachable by a sandbox call, with its event', () => {
  type Step = { call: 'pay'; body?: Record<string, unknown> } | { call: 'expire' } | { call: 'sweep' };
  const cases: Array<[string, { given: Step[]; want: { states: string[]; events: string[] } }]> = [
    ['PENDING → PROCESSING', { given: [{ call: 'pay', body: { until: 'PROCESSING' } }], want: { states: ['OPEN/PROCESSING'], events: ['charge.processing'] } }],
    ['PENDING → PAID', { given: [{ call: 'pay', body: { until: 'PAID', skipProcessing: true } }], want: { states: ['PAID/PAID'], events: ['charge.paid'] } }],
    [
      'PROCESSING → PAID',
      {
        given: [
          { call: 'pay', body: { until: 'PROCESSING' } },
          { call: 'pay', body: { until: 'PAID' } },
        ],
        want: { states: ['OPEN/PROCESSING', 'PAID/PAID'], events: ['charge.processing', 'charge.paid'] },
      },
    ],
    [
      'PAID → RECEIVED',
      {
        given: [{ call: 'pay', body: { until: 'PAID', skipProcessing: true } }, { call: 'pay' }],
        want: { states: ['PAID/PAID', 'PAID/RECEIVED'], events: ['charge.paid', 'charge.received'] },
      },
    ],
    ['PENDING → EXPIRED', { given: [{ call: 'expire' }], want: { states: ['EXPIRED/EXPIRED'], events: ['charge.expired'] } }],
    [
      'PROCESSING → EXPIRED (simulate-expiration)',
      {
        given: [{ call: 'pay', body: { until: 'PROCESSING' } }, { call: 'expire' }],
        want: { states: ['OPEN/PROCESSING', 'EXPIRED/EXPIRED'], events: ['charge.processing', 'charge.expired'] },
      },
    ],
    [
      'PROCESSING → EXPIRED (at expiresAt)',
      {
        given: [{ call: 'pay', body: { until: 'PROCESSING' } }, { call: 'sweep' }],
        want: { states: ['OPEN/PROCESSING', 'EXPIRED/EXPIRED'], events: ['charge.processing', 'charge.expired'] },
      },
    ],
    [
      'PENDING → PROCESSING → PAID → RECEIVED, one call each',
      {
        given: [
          { call: 'pay', body: { until: 'PROCESSING' } },
          { call: 'pay', body: { until: 'PAID' } },
          { call: 'pay', body: { until: 'RECEIVED' } },
        ],
        want: { states: ['OPEN/PROCESSING', 'PAID/PAID', 'PAID/RECEIVED'], events: ['charge.processing', 'charge.paid', 'charge.received'] },
      },
    ],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    await start();
    await subscribeAll();
    const id = await charge();
    const states: string[] = [];
    for (const step of given) {
      clock.advance(60_000);
      if (step.call === 'sweep') {
        clock.advance(60 * 60_000);
        expect(await expireDueCharges(s().deps)).toBe(1);
      } else {
        const path = `/charge/${id}/simulate-${step.call === 'pay' ? 'payment' : 'expiration'}`;
        const answer =
          step.call === 'pay' && step.body ? await sendJson(s(), 'POST', path, step.body) : await read(await s().request(path, { method: 'POST' }));
        expect(answer.status, answer.text).toBe(200);
      }
      const now = (await s().api.GET('/charge/{id}', { params: { path: { id } } })).data!.data;
      states.push(`${now.status}/${now.paymentStatus}`);
    }
    expect(states).toEqual(want.states);
    expect(await queuedEvents()).toEqual(['charge.pending', ...want.events]);
  });

  test('a charge continued from PROCESSING gets the paymentDate of its PAID move, not of the first call', async () => {
    await start();
    const id = await charge();
    await sendJson(s(), 'POST', `/charge/${id}/simulate-payment`, { until: 'PROCESSING' });
    clock.advance(5_000);
    const paidAt = clock.iso();
    await sendJson(s(), 'POST', `/charge/${id}/simulate-payment`, {});
    expect((await s().api.GET('/charge/{id}', { params: { path: { id } } })).data?.data).toMatchObject({
      status: 'PAID',
      paymentStatus: 'RECEIVED',
      paymentDate: paidAt,
    });
  });

  type Before = Array<Record<string, unknown> | 'expire'>;
  const refusals: Array<[string, { given: { before: Before; body: Record<string, unknown> }; want: { status: number; type: string; stays?: string } }]> = [
    [
      'until PROCESSING on a PROCESSING charge',
      {
        given: { before: [{ until: 'PROCESSING' }], body: { until: 'PROCESSING' } },
        want: { status: 409, type: '/problems/invalid-transition', stays: 'PROCESSING' },
      },
    ],
    [
      'until PROCESSING on a PAID charge',
      { given: { before: [{ until: 'PAID' }], body: { until: 'PROCESSING' } }, want: { status: 409, type: '/problems/invalid-transition', stays: 'PAID' } },
    ],
    [
      'until PAID on a PAID charge',
      { given: { before: [{ until: 'PAID' }], body: { until: 'PAID' } }, want: { status: 409, type: '/problems/invalid-transition', stays: 'PAID' } },
    ],
    ['anything on a RECEIVED charge', { given: { before: [{}], body: {} }, want: { status: 409, type: '/problems/invalid-transition', stays: 'RECEIVED' } }],
    [
      'a payment of a charge expired while PROCESSING',
      {
        given: { before: [{ until: 'PROCESSING' }, 'expire'], body: { until: 'PAID' } },
        want: { status: 409, type: '/problems/invalid-transition', stays: 'EXPIRED' },
      },
    ],
    [
      'skipProcessing with until PROCESSING',
      {
        given: { before: [], body: { until: 'PROCESSING', skipProcessing: true } },
        want: { status: 422, type: '/problems/validation-error', stays: 'PENDING' },
      },
    ],
    [
      'settle together with until',
      { given: { before: [], body: { until: 'PAID', settle: false } }, want: { status: 422, type: '/problems/validation-error', stays: 'PENDING' } },
    ],
    [
      'an until outside the payment line',
      { given: { before: [], body: { until: 'EXPIRED' } }, want: { status: 422, type: '/problems/validation-error', stays: 'PENDING' } },
    ],
  ];
  test.each(refusals)('refuses %s', async (_name, { given, want }) => {
    await start();
    const id = await charge();
    for (const before of given.before) {
      const answer =
        before === 'expire'
          ? await read(await s().request(`/charge/${id}/simulate-expiration`, { method: 'POST' }))
          : await sendJson(s(), 'POST', `/charge/${id}/simulate-payment`, before);
      expect(answer.status).toBe(200);
    }
    const answer = await sendJson(s(), 'POST', `/charge/${id}/simulate-payment`, given.body);
    expect(answer.status).toBe(want.status);
    expect(answer.json).toMatchObject({ type: want.type, status: want.status, detail: expect.any(String) });
    expect((await s().api.GET('/charge/{id}', { params: { path: { id } } })).data?.data.paymentStatus).toBe(want.stays);
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

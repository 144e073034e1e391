/**
 * The webhook delivery worker (D14, D15, D41) and its retry schedule. The schedule, jitter and
 * `Retry-After` parsing are pure functions, tested by table. The worker runs against the
 * in-memory reference server; events are produced through the public API (a payment link with
 * `devMode`, then a simulated payment) and received by a local HTTP endpoint on 127.0.0.1 that
 * verifies every signature with the `standardwebhooks` library, as an integrator would.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, test } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { ConfigError, loadConfig, type Config, type ConfigEnv } from '../config.js';
import type { Deps } from '../deps.js';
import { simulatePayment } from '../domain/charge-lifecycle.js';
import { newId } from '../domain/ids.js';
import type { ChargeEventType, WebhookDeliveryDoc } from '../store/types.js';
import { fakeClock, type FakeClock } from '../test-support/fixtures.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { freePort } from '../test-support/processes.js';
import { JITTER, MAX_RETRY_AFTER_MS, parseRetryAfter, retryDelayMs, withJitter, type FailedAttempt } from './retry-schedule.js';
import { describeFailure, startWebhookWorker, type WebhookWorker, type WebhookWorkerOptions } from './worker.js';

type WebhookEvent = components['schemas']['WebhookEvent'];

const NOW = new Date('2026-11-21T14:30:00.000Z');
const DEFAULT_SCHEDULE = [5, 300, 1800, 7200, 18000, 36000, 36000];
/** Fast retries for the worker tests: 50 ms, then 100 ms, then given up (three attempts). */
const FAST_SCHEDULE = [0.05, 0.1];

describe('retry schedule: the delay after a failed attempt', () => {
  const middle = () => 0.5; // no jitter
  test.each<[string, { given: { schedule: readonly number[]; failed: FailedAttempt; random?: () => number }; want: number | undefined }]>([
    ['attempt 1 failed → the first entry (5 s)', { given: { schedule: DEFAULT_SCHEDULE, failed: { attempt: 1, httpStatus: 500 } }, want: 5_000 }],
    ['attempt 2 failed → 5 min', { given: { schedule: DEFAULT_SCHEDULE, failed: { attempt: 2 } }, want: 300_000 }],
    ['attempt 7 failed → the last entry (10 h)', { given: { schedule: DEFAULT_SCHEDULE, failed: { attempt: 7, httpStatus: 502 } }, want: 36_000_000 }],
    ['attempt 8 failed → schedule used up: given up', { given: { schedule: DEFAULT_SCHEDULE, failed: { attempt: 8, httpStatus: 500 } }, want: undefined }],
    ['compressed schedule, attempt 2 → 100 ms', { given: { schedule: FAST_SCHEDULE, failed: { attempt: 2 } }, want: 100 }],
    ['compressed schedule, attempt 3 → given up', { given: { schedule: FAST_SCHEDULE, failed: { attempt: 3 } }, want: undefined }],
    ['a one-entry schedule, attempt 2 → given up', { given: { schedule: [1], failed: { attempt: 2 } }, want: undefined }],
    ['lowest jitter → 80 %', { given: { schedule: DEFAULT_SCHEDULE, failed: { attempt: 1 }, random: () => 0 }, want: 4_000 }],
    ['highest jitter → just under 120 %', { given: { schedule: DEFAULT_SCHEDULE, failed: { attempt: 1 }, random: () => 0.999_999 }, want: 6_000 }],
    [
      '429 with Retry-After longer than the schedule → Retry-After',
      { given: { schedule: DEFAULT_SCHEDULE, failed: { attempt: 1, httpStatus: 429, retryAfter: '120' } }, want: 120_000 },
    ],
    [
      '503 with Retry-After longer than the schedule → Retry-After',
      { given: { schedule: FAST_SCHEDULE, failed: { attempt: 1, httpStatus: 503, retryAfter: '2' } }, want: 2_000 },
    ],
    [
      '429 with Retry-After shorter than the schedule → the schedule',
      { given: { schedule: DEFAULT_SCHEDULE, failed: { attempt: 2, httpStatus: 429, retryAfter: '1' } }, want: 300_000 },
    ],
    [
      '429 with an HTTP-date Retry-After → until that date',
      { given: { schedule: FAST_SCHEDULE, failed: { attempt: 1, httpStatus: 429, retryAfter: 'Sat, 21 Nov 2026 14:31:00 GMT' } }, want: 60_000 },
    ],
    ['429 without Retry-After → the schedule', { given: { schedule: FAST_SCHEDULE, failed: { attempt: 1, httpStatus: 429, retryAfter: null } }, want: 50 }],
    [
      '500 with Retry-After → ignored, the schedule',
      { given: { schedule: FAST_SCHEDULE, failed: { attempt: 1, httpStatus: 500, retryAfter: '120' } }, want: 50 },
    ],
    [
      '429 with Retry-After once the schedule is used up → still given up',
      { given: { schedule: FAST_SCHEDULE, failed: { attempt: 3, httpStatus: 429, retryAfter: '1' } }, want: undefined },
    ],
  ])('%s', (_name, { given, want }) => {
    expect(retryDelayMs(given.schedule, given.failed, NOW, given.random ?? middle)).toBe(want);
  });

  test('jitter stays within ±20 % and spreads the retries', () => {
    let seed = 42;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const delays = Array.from({ length: 500 }, () => withJitter(10_000, random));
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(10_000 * (1 - JITTER));
    expect(Math.max(...delays)).toBeLessThanOrEqual(10_000 * (1 + JITTER));
    // Spread over most of the range, on both sides of the nominal delay.
    expect(Math.min(...delays)).toBeLessThan(8_500);
    expect(Math.max(...delays)).toBeGreaterThan(11_500);
    expect(new Set(delays).size).toBeGreaterThan(100);
  });
});

describe('Retry-After parsing (RFC 9110 §10.2.3)', () => {
  test.each<[string, { given: string | null; want: number | undefined }]>([
    ['delay-seconds', { given: '120', want: 120_000 }],
    ['zero seconds', { given: '0', want: 0 }],
    ['surrounding spaces', { given: ' 7 ', want: 7_000 }],
    ['IMF-fixdate in the future', { given: 'Sat, 21 Nov 2026 14:30:30 GMT', want: 30_000 }],
    ['obsolete RFC 850 date', { given: 'Saturday, 21-Nov-26 14:30:30 GMT', want: 30_000 }],
    ['obsolete asctime date', { given: 'Sat Nov 21 14:30:30 2026', want: 30_000 }],
    ['a date in the past → no wait', { given: 'Fri, 20 Nov 2026 14:30:00 GMT', want: 0 }],
    ['a year of seconds → capped at a day', { given: '31536000', want: MAX_RETRY_AFTER_MS }],
    ['a date a year away → capped at a day', { given: 'Sun, 21 Nov 2027 14:30:00 GMT', want: MAX_RETRY_AFTER_MS }],
    ['absent', { given: null, want: undefined }],
    ['empty', { given: '', want: undefined }],
    ['negative', { given: '-5', want: undefined }],
    ['fractional', { given: '1.5', want: undefined }],
    ['a bare number is delay-seconds, never a year', { given: '2027', want: 2_027_000 }],
    ['garbage', { given: 'soon', want: undefined }],
    ['a weekday but no date', { given: 'Sat, tomorrow GMT', want: undefined }],
  ])('%s', (_name, { given, want }) => {
    expect(parseRetryAfter(given, NOW)).toBe(want);
  });
});

describe('configuration of the worker', () => {
  test.each<[string, { given: ConfigEnv; want: Partial<Config> }]>([
    [
      'defaults (D14)',
      {
        given: {},
        want: {
          webhookRetryScheduleSeconds: DEFAULT_SCHEDULE,
          webhookPollMs: 250,
          webhookTimeoutMs: 15_000,
          webhookConnectTimeoutMs: 5_000,
          webhookConcurrency: 64,
          webhookCompanyConcurrency: 4,
        },
      },
    ],
    ['an answer time-out under 5 s bounds the connect time-out', { given: { WEBHOOK_TIMEOUT_MS: '2000' }, want: { webhookConnectTimeoutMs: 2_000 } }],
    [
      'slots and connect time-out set',
      {
        given: { WEBHOOK_CONCURRENCY: '8', WEBHOOK_COMPANY_CONCURRENCY: '2', WEBHOOK_CONNECT_TIMEOUT_MS: '1000' },
        want: { webhookConcurrency: 8, webhookCompanyConcurrency: 2, webhookConnectTimeoutMs: 1_000 },
      },
    ],
    [
      'empty means unset',
      { given: { WEBHOOK_RETRY_SCHEDULE: '', WEBHOOK_POLL_MS: '' }, want: { webhookRetryScheduleSeconds: DEFAULT_SCHEDULE, webhookPollMs: 250 } },
    ],
    ['a compressed schedule for tests', { given: { WEBHOOK_RETRY_SCHEDULE: '0.05,0.1' }, want: { webhookRetryScheduleSeconds: [0.05, 0.1] } }],
    ['spaces after commas', { given: { WEBHOOK_RETRY_SCHEDULE: '1, 2, 3' }, want: { webhookRetryScheduleSeconds: [1, 2, 3] } }],
    ['set values', { given: { WEBHOOK_POLL_MS: '50', WEBHOOK_TIMEOUT_MS: '2000' }, want: { webhookPollMs: 50, webhookTimeoutMs: 2_000 } }],
  ])('%s', (_name, { given, want }) => {
    expect(loadConfig(given)).toMatchObject(want);
  });

  test.each<[string, { given: ConfigEnv; want: string }]>([
    ['a word in the schedule', { given: { WEBHOOK_RETRY_SCHEDULE: '5,soon' }, want: 'WEBHOOK_RETRY_SCHEDULE' }],
    ['a negative delay', { given: { WEBHOOK_RETRY_SCHEDULE: '-1' }, want: 'WEBHOOK_RETRY_SCHEDULE' }],
    ['an empty entry', { given: { WEBHOOK_RETRY_SCHEDULE: '1,,2' }, want: 'WEBHOOK_RETRY_SCHEDULE' }],
    ['more than 20 entries', { given: { WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 21 }, () => '1').join(',') }, want: 'WEBHOOK_RETRY_SCHEDULE' }],
    ['a delay over a week', { given: { WEBHOOK_RETRY_SCHEDULE: '5,700000' }, want: 'WEBHOOK_RETRY_SCHEDULE' }],
    ['a poll interval under 10 ms', { given: { WEBHOOK_POLL_MS: '5' }, want: 'WEBHOOK_POLL_MS' }],
    ['a fractional poll interval', { given: { WEBHOOK_POLL_MS: '2.5' }, want: 'WEBHOOK_POLL_MS' }],
    ['a timeout that is not a number', { given: { WEBHOOK_TIMEOUT_MS: '15s' }, want: 'WEBHOOK_TIMEOUT_MS' }],
    ['a timeout over two minutes', { given: { WEBHOOK_TIMEOUT_MS: '600000' }, want: 'WEBHOOK_TIMEOUT_MS' }],
    ['a connect time-out longer than the answer time-out', { given: { WEBHOOK_CONNECT_TIMEOUT_MS: '20000' }, want: 'WEBHOOK_CONNECT_TIMEOUT_MS' }],
    ['a company share of every slot', { given: { WEBHOOK_CONCURRENCY: '4', WEBHOOK_COMPANY_CONCURRENCY: '4' }, want: 'WEBHOOK_COMPANY_CONCURRENCY' }],
    ['one slot in all', { given: { WEBHOOK_CONCURRENCY: '1' }, want: 'WEBHOOK_CONCURRENCY' }],
    ['no slot for a company', { given: { WEBHOOK_COMPANY_CONCURRENCY: '0' }, want: 'WEBHOOK_COMPANY_CONCURRENCY' }],
  ])('%s → one-line ConfigError naming the variable', (_name, { given, want }) => {
    let error: unknown;
    try {
      loadConfig(given);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(want);
    expect((error as Error).message).not.toContain('\n');
  });
});

describe('describeFailure: why an attempt got no answer, in words', () => {
  test.each<[string, { given: unknown; want: string }]>([
    ['timeout', { given: new DOMException('The operation was aborted due to timeout', 'TimeoutError'), want: 'no answer within 15 s' }],
    [
      'refused (undici: cause)',
      { given: new TypeError('fetch failed', { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }), want: 'connection refused' },
    ],
    [
      'refused (both addresses of localhost)',
      {
        given: new TypeError('fetch failed', { cause: new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]) }),
        want: 'connection refused',
      },
    ],
    [
      'reset',
      {
        given: new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'UND_ERR_SOCKET' }) }),
        want: 'connection closed before an answer',
      },
    ],
    ['unknown host', { given: new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'ENOTFOUND' }) }), want: 'host not found' }],
    [
      'TLS',
      {
        given: new TypeError('fetch failed', { cause: Object.assign(new Error('x'), { code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' }) }),
        want: 'TLS failure (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
      },
    ],
    ['anything else', { given: new Error('boom'), want: 'request failed' }],
  ])('%s', (_name, { given, want }) => {
    expect(describeFailure(given, 15_000)).toBe(want);
  });
});

// ——— The worker against the reference server and a local receiver ———

/** One request the receiver got, with the outcome of verifying its signature. */
interface Received {
  id: string;
  timestamp: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The verified event, or undefined when the signature did not verify. */
  event: WebhookEvent | undefined;
  verifyError?: string;
  /** When it arrived (ms, this process's clock). */
  at: number;
  /** The status the receiver answered; 0 when it never answered. */
  answered: number;
}

interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Never answer (for timeouts and shutdown). */
  hang?: boolean;
  /** Answer this long after the request arrived (a slow receiver). */
  delayMs?: number;
}

/** A webhook endpoint on 127.0.0.1 that verifies every request with the registration's secret. */
interface Receiver {
  url: string;
  received: Received[];
  /** The events acknowledged with 2xx, each webhook-id once (what an integrator processes after de-duplication). */
  processed: () => WebhookEvent[];
  close: () => Promise<void>;
}

async function startReceiver(
  secret: string,
  answer: (request: { type: string | undefined; index: number; ofThisId: number }) => Answer = () => ({ status: 200 }),
  path = '/hooks/pix',
): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const id = String(req.headers['webhook-id']);
      let event: WebhookEvent | undefined;
      let verifyError: string | undefined;
      try {
        event = new Webhook(secret).verify(body, req.headers as Record<string, string>) as WebhookEvent;
      } catch (error) {
        verifyError = (error as Error).message;
      }
      const reply = answer({ type: event?.type, index: received.length, ofThisId: received.filter((r) => r.id === id).length });
      received.push({
        id,
        timestamp: String(req.headers['webhook-timestamp']),
        headers: req.headers,
        body,
        event,
        ...(verifyError ? { verifyError } : {}),
        at: Date.now(),
        answered: reply.hang ? 0 : reply.status,
      });
      if (reply.hang) {
        hanging.add(() => res.destroy());
        return;
      }
      const respond = (): void => {
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end('ok');
      };
      if (reply.delayMs === undefined) respond();
      else setTimeout(respond, reply.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    processed: () => {
      const seen = new Set<string>();
      const events: WebhookEvent[] = [];
      for (const r of received) {
        if (r.answered < 200 || r.answered > 299 || !r.event || seen.has(r.id)) continue;
        seen.add(r.id);
        events.push(r.event);
      }
      return events;
    },
    close: async () => {
      for (const destroy of hanging) destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

let server: TestServer | undefined;
let clock: FakeClock | undefined;
const workers: WebhookWorker[] = [];
const receivers: Receiver[] = [];

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  for (const receiver of receivers.splice(0)) await receiver.close();
  if (server) {
    const violations = server.violations;
    await server.close();
    server = undefined;
    expect(violations).toEqual([]);
  }
  clock = undefined;
});

async function start(config: Partial<Config> = {}, now?: () => Date): Promise<TestServer> {
  server = await createTestServer({
    config: { webhookRetryScheduleSeconds: FAST_SCHEDULE, webhookTimeoutMs: 2_000, webhookPollMs: 10, ...config },
    ...(now ? { now } : {}),
  });
  return server;
}

function worker(deps: Deps, options: WebhookWorkerOptions = {}): WebhookWorker {
  const started = startWebhookWorker(deps, options);
  workers.push(started);
  return started;
}

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

/** Registers a webhook of company A directly in the store (the registration routes are another change). */
async function registerWebhook(
  s: TestServer,
  url: string,
  secret: string,
  events: ChargeEventType[] = ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received', 'charge.expired'],
  companyId = s.companyId,
): Promise<string> {
  const at = s.deps.now().toISOString();
  const id = newId('webhook');
  await s.deps.store.insertWebhook({ id, url, name: 'Pedidos da loja', companyId, status: 'ACTIVE', events, createdAt: at, updatedAt: at }, secret);
  return id;
}

/** A development payment link through the public API (of company A, or of `as`); returns its id. */
async function createDevCharge(s: TestServer, as: Pick<TestServer, 'api'> = s): Promise<string> {
  const { data, response } = await as.api.POST('/charge/payment-link', { body: { total: 1500, devMode: true } });
  expect(response.status).toBe(201);
  return data!.data.id;
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Attempts of a webhook, oldest first, each checked against the contract's WebhookDelivery schema. */
async function attempts(s: TestServer, webhookId: string): Promise<WebhookDeliveryDoc[]> {
  const list = (await s.deps.store.listDeliveryAttempts(s.companyId, webhookId, 100)).reverse();
  const validate = s.deps.validator.at('/components/schemas/WebhookDelivery');
  for (const doc of list) expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  return list;
}

const LIFECYCLE: ChargeEventType[] = ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received'];

describe('delivery of charge events (D14, D15)', () => {
  test('a paid charge: pending, processing, paid, received in order, each once, every signature valid, retries with a stable webhook-id', async () => {
    const s = await start();
    const secret = newSecret();
    // The first attempt of every event fails: order must hold across retries.
    const endpoint = await receiver(secret, ({ ofThisId }) => ({ status: ofThisId === 0 ? 500 : 200 }));
    const webhookId = await registerWebhook(s, endpoint.url, secret);
    const chargeId = await createDevCharge(s);
    await simulatePayment(s.deps, s.companyId, chargeId);

    worker(s.deps);
    await waitFor('four events processed', () => endpoint.processed().length === 4);
    await waitFor('eight attempts recorded', async () => (await attempts(s, webhookId)).length === 8);
    await new Promise((resolve) => setTimeout(resolve, 150)); // nothing more arrives

    expect(endpoint.received.map((r) => r.verifyError)).toEqual(endpoint.received.map(() => undefined));
    expect(endpoint.processed().map((e) => e.type)).toEqual(LIFECYCLE);
    // Every request, retries included, in order: each event twice (failed, then acknowledged), never interleaved.
    expect(endpoint.received.map((r) => r.event?.type)).toEqual(LIFECYCLE.flatMap((type) => [type, type]));
    const ids = endpoint.received.map((r) => r.id);
    for (let i = 0; i < ids.length; i += 2) expect(ids[i + 1]).toBe(ids[i]);
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(id).toMatch(/^msg_[a-z][0-9a-z]{1,31}$/);

    // The body is the WebhookEvent of the contract, its data the charge in each state.
    const validateEvent = s.deps.validator.at('/components/schemas/WebhookEvent');
    for (const r of endpoint.received) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.timestamp).toMatch(/^[0-9]{10}$/);
      expect(Math.abs(Number(r.timestamp) - Date.now() / 1000)).toBeLessThan(60);
      expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
      expect(validateEvent(JSON.parse(r.body)), JSON.stringify(validateEvent.errors)).toBe(true);
    }
    const processed = endpoint.processed();
    expect(processed.map((e) => [e.data.id, e.data.paymentStatus, e.data.status])).toEqual([
      [chargeId, 'PENDING', 'OPEN'],
      [chargeId, 'PROCESSING', 'OPEN'],
      [chargeId, 'PAID', 'PAID'],
      [chargeId, 'RECEIVED', 'PAID'],
    ]);

    // D41: every attempt recorded, in the contract's shape.
    const recorded = await attempts(s, webhookId);
    expect(recorded.map((a) => [a.eventType, a.attempt, a.status, a.httpStatus])).toEqual(
      LIFECYCLE.flatMap((type) => [
        [type, 1, 'FAILED', 500],
        [type, 2, 'SUCCEEDED', 200],
      ]),
    );
    expect(recorded.map((a) => a.eventId)).toEqual(ids);
    for (const a of recorded) {
      expect(a.webhookId).toBe(webhookId);
      expect(a.id).toMatch(/^dlvr_[a-z][0-9a-z]{1,31}$/);
      expect(a.nextAttemptAt === undefined).toBe(a.status === 'SUCCEEDED');
    }
  });

  test('a receiver answering 500 twice, then 200: delivered on attempt 3, every attempt recorded', async () => {
    const s = await start();
    const secret = newSecret();
    const endpoint = await receiver(secret, ({ index }) => ({ status: index < 2 ? 500 : 200 }));
    const webhookId = await registerWebhook(s, endpoint.url, secret);
    await createDevCharge(s);

    worker(s.deps);
    await waitFor('three requests', () => endpoint.received.length === 3);
    await waitFor('the third attempt recorded', async () => (await attempts(s, webhookId)).length === 3);

    expect(endpoint.received.map((r) => [r.event?.type, r.answered])).toEqual([
      ['charge.pending', 500],
      ['charge.pending', 500],
      ['charge.pending', 200],
    ]);
    expect(new Set(endpoint.received.map((r) => r.id)).size).toBe(1);
    const recorded = await attempts(s, webhookId);
    expect(recorded.map((a) => [a.attempt, a.status, a.httpStatus])).toEqual([
      [1, 'FAILED', 500],
      [2, 'FAILED', 500],
      [3, 'SUCCEEDED', 200],
    ]);
    // The retries waited about as long as the schedule says (50 ms, then 100 ms, ±20 %).
    const [first, second, third] = recorded;
    expect(Date.parse(first!.nextAttemptAt!) - Date.parse(first!.requestedAt)).toBeGreaterThanOrEqual(40);
    expect(Date.parse(second!.nextAttemptAt!) - Date.parse(second!.requestedAt)).toBeGreaterThanOrEqual(80);
    expect(Date.parse(third!.requestedAt)).toBeGreaterThanOrEqual(Date.parse(second!.nextAttemptAt!));
    expect(third!.nextAttemptAt).toBeUndefined();
  });

  test('a receiver that never succeeds: given up once the schedule is used up, and the next event goes on', async () => {
    const s = await start();
    const secret = newSecret();
    // charge.pending always fails; the later events succeed once the pending one is given up.
    const endpoint = await receiver(secret, ({ type }) => ({ status: type === 'charge.pending' ? 502 : 204 }));
    const webhookId = await registerWebhook(s, endpoint.url, secret);
    const chargeId = await createDevCharge(s);
    await simulatePayment(s.deps, s.companyId, chargeId);

    worker(s.deps);
    await waitFor('the three later events processed', () => endpoint.processed().length === 3);
    await waitFor('six attempts recorded', async () => (await attempts(s, webhookId)).length === 6);

    expect(endpoint.received.map((r) => r.event?.type)).toEqual([
      'charge.pending',
      'charge.pending',
      'charge.pending',
      'charge.processing',
      'charge.paid',
      'charge.received',
    ]);
    const recorded = await attempts(s, webhookId);
    expect(recorded.slice(0, 3).map((a) => [a.attempt, a.status, a.httpStatus, a.nextAttemptAt === undefined])).toEqual([
      [1, 'FAILED', 502, false],
      [2, 'FAILED', 502, false],
      // Given up: no next attempt.
      [3, 'FAILED', 502, true],
    ]);
    expect(recorded.slice(3).map((a) => [a.eventType, a.status, a.httpStatus])).toEqual([
      ['charge.processing', 'SUCCEEDED', 204],
      ['charge.paid', 'SUCCEEDED', 204],
      ['charge.received', 'SUCCEEDED', 204],
    ]);
    // Still ACTIVE: giving up an event does not disable the registration.
    const { data } = await s.api.GET('/webhook/{id}', { params: { path: { id: webhookId } } });
    expect(data?.status).toBe('ACTIVE');
  });

  test('410 Gone: the delivery is given up and the registration becomes INACTIVE; nothing more is sent', async () => {
    const s = await start();
    const secret = newSecret();
    const endpoint = await receiver(secret, () => ({ status: 410 }));
    const webhookId = await registerWebhook(s, endpoint.url, secret);
    const chargeId = await createDevCharge(s);

    const w = worker(s.deps, { polling: false });
    await w.tick();
    expect(endpoint.received.map((r) => [r.event?.type, r.answered])).toEqual([['charge.pending', 410]]);
    const { data, response } = await s.api.GET('/webhook/{id}', { params: { path: { id: webhookId } } });
    expect(response.status).toBe(200);
    expect(data?.status).toBe('INACTIVE');
    expect((await attempts(s, webhookId)).map((a) => [a.attempt, a.status, a.httpStatus, a.nextAttemptAt])).toEqual([[1, 'FAILED', 410, undefined]]);

    // Later events are not sent to an INACTIVE registration.
    await simulatePayment(s.deps, s.companyId, chargeId);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await w.tick();
    await w.tick();
    expect(endpoint.received).toHaveLength(1);
  });

  test('429 with Retry-After: the retry waits at least that long', async () => {
    const s = await start();
    const secret = newSecret();
    const endpoint = await receiver(secret, ({ index }) => (index === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    const webhookId = await registerWebhook(s, endpoint.url, secret);
    await createDevCharge(s);

    worker(s.deps);
    await waitFor('the retry', () => endpoint.received.length === 2, 5_000);

    const [first, second] = endpoint.received;
    expect(first!.id).toBe(second!.id);
    // The schedule says 50 ms; Retry-After says 1 s.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(950);
    await waitFor('the second attempt recorded', async () => (await attempts(s, webhookId)).length === 2);
    const [failed] = await attempts(s, webhookId);
    expect(failed).toMatchObject({ attempt: 1, status: 'FAILED', httpStatus: 429 });
    expect(Date.parse(failed!.nextAttemptAt!) - Date.parse(failed!.requestedAt)).toBeGreaterThanOrEqual(1_000);
  });

  test('a webhook subscribed only to charge.paid gets only charge.paid, another gets everything', async () => {
    const s = await start();
    const [secretAll, secretPaid] = [newSecret(), newSecret()];
    const all = await receiver(secretAll);
    const paidOnly = await receiver(secretPaid);
    await registerWebhook(s, all.url, secretAll);
    await registerWebhook(s, paidOnly.url, secretPaid, ['charge.paid']);
    const chargeId = await createDevCharge(s);
    await simulatePayment(s.deps, s.companyId, chargeId);

    worker(s.deps);
    await waitFor('all four events at the first receiver', () => all.processed().length === 4);
    await waitFor('charge.paid at the second', () => paidOnly.processed().length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect(all.processed().map((e) => e.type)).toEqual(LIFECYCLE);
    expect(paidOnly.received.map((r) => [r.event?.type, r.verifyError])).toEqual([['charge.paid', undefined]]);
    // The same event has the same webhook-id at both receivers.
    expect(paidOnly.received[0]!.id).toBe(all.received.find((r) => r.event?.type === 'charge.paid')!.id);
  });

  test("another company's events never reach a company's webhook", async () => {
    const s = await start();
    const secret = newSecret();
    const endpoint = await receiver(secret);
    await registerWebhook(s, endpoint.url, secret);
    const { response } = await s.other.api.POST('/charge/payment-link', { body: { total: 1500, devMode: true } });
    expect(response.status).toBe(201);

    const w = worker(s.deps, { polling: false });
    await w.tick();
    expect(endpoint.received).toEqual([]);
  });

  test('a charge past its expiresAt expires on the next tick and emits charge.expired', async () => {
    // The charge is created an hour and a minute ago; then the clock is set to now (the
    // receiver checks webhook-timestamp against its own clock, as Standard Webhooks says).
    clock = fakeClock(new Date(Date.now() - 61 * 60_000).toISOString());
    const s = await start({}, clock.now);
    const secret = newSecret();
    const endpoint = await receiver(secret);
    const webhookId = await registerWebhook(s, endpoint.url, secret);
    const chargeId = await createDevCharge(s);
    clock.set(new Date().toISOString());

    const w = worker(s.deps, { polling: false });
    await w.tick();

    expect(endpoint.received.map((r) => [r.event?.type, r.verifyError])).toEqual([
      ['charge.pending', undefined],
      ['charge.expired', undefined],
    ]);
    expect(endpoint.received[1]!.event!.data).toMatchObject({ id: chargeId, status: 'EXPIRED', paymentStatus: 'EXPIRED' });
    const { data } = await s.api.GET('/charge/{id}', { params: { path: { id: chargeId } } });
    expect(data?.data).toMatchObject({ status: 'EXPIRED', paymentStatus: 'EXPIRED' });
    // The clock stood still, so both attempts have the same requestedAt: compared without their order.
    const recorded = (await attempts(s, webhookId)).map((a) => [a.eventType, a.status]);
    expect(recorded).toHaveLength(2);
    expect(recorded).toEqual(
      expect.arrayContaining([
        ['charge.pending', 'SUCCEEDED'],
        ['charge.expired', 'SUCCEEDED'],
      ]),
    );
  });

  test('a redirect is not followed and is a failure', async () => {
    // The retry a minute away: one tick makes exactly one attempt however slow the store is.
    const s = await start({ webhookRetryScheduleSeconds: [60, 60] });
    const secret = newSecret();
    const target = await receiver(secret);
    const endpoint = await receiver(secret, () => ({ status: 307, headers: { location: target.url } }));
    const webhookId = await registerWebhook(s, endpoint.url, secret);
    await createDevCharge(s);

    await worker(s.deps, { polling: false }).tick();
    expect(endpoint.received).toHaveLength(1);
    expect(target.received).toEqual([]);
    expect((await attempts(s, webhookId)).map((a) => [a.status, a.httpStatus, a.nextAttemptAt !== undefined])).toEqual([['FAILED', 307, true]]);
  });

  test.each<[string, { timeoutMs: number; want: string }]>([
    ['a refused connection', { timeoutMs: 2_000, want: 'connection refused' }],
    ['no answer in time', { timeoutMs: 200, want: 'no answer within 0.2 s' }],
  ])('%s is recorded as an error without a status code, and retried', async (name, { timeoutMs, want }) => {
    const s = await start({ webhookTimeoutMs: timeoutMs, webhookRetryScheduleSeconds: [60, 60] });
    const secret = newSecret();
    let url: string;
    if (want === 'connection refused') {
      url = `http://127.0.0.1:${await freePort()}/hooks`;
    } else {
      url = (await receiver(secret, () => ({ status: 200, hang: true }))).url;
    }
    const webhookId = await registerWebhook(s, url, secret);
    await createDevCharge(s);

    await worker(s.deps, { polling: false }).tick();
    const [attempt] = await attempts(s, webhookId);
    expect(attempt, name).toMatchObject({ attempt: 1, status: 'FAILED', error: want });
    expect(attempt!.httpStatus).toBeUndefined();
    expect(attempt!.nextAttemptAt).toEqual(expect.any(String));
    if (timeoutMs === 200) expect(attempt!.durationMs).toBeGreaterThanOrEqual(190);
  });

  test('stop() aborts a request in flight without recording it; the next worker sends the event again once the lease ends', async () => {
    const s = await start({ webhookTimeoutMs: 1_500 });
    const secret = newSecret();
    let hang = true;
    const endpoint = await receiver(secret, () => (hang ? { status: 200, hang: true } : { status: 200 }));
    const webhookId = await registerWebhook(s, endpoint.url, secret);
    await createDevCharge(s);

    const first = startWebhookWorker(s.deps);
    await waitFor('the request in flight', () => endpoint.received.length === 1);
    const stopping = Date.now();
    await first.stop();
    // Well before the request's own timeout.
    expect(Date.now() - stopping).toBeLessThan(1_000);
    expect(await attempts(s, webhookId)).toEqual([]);

    hang = false;
    worker(s.deps);
    // The lease (timeout + margin) keeps the claimed delivery from being sent at once.
    await waitFor('the delivery after the lease', () => endpoint.processed().length === 1, 5_000);
    await waitFor('the attempt recorded', async () => (await attempts(s, webhookId)).length === 1);
    expect(endpoint.received.map((r) => r.id)).toEqual([endpoint.received[0]!.id, endpoint.received[0]!.id]);
    expect((await attempts(s, webhookId)).map((a) => [a.attempt, a.status])).toEqual([[1, 'SUCCEEDED']]);
  });

  test('logs name the delivery but never the secret, the URL or the body', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const s = await start();
    const secret = newSecret();
    const endpoint = await receiver(secret, ({ index }) => ({ status: index === 0 ? 500 : 200 }), '/hooks/tok_pathsecret');
    const webhookId = await registerWebhook(s, endpoint.url, secret);
    const chargeId = await createDevCharge(s);

    worker({ ...s.deps, logger: pino({ level: 'trace' }, sink) });
    await waitFor('the event processed', () => endpoint.processed().length === 1);
    await waitFor('the success logged', () => lines.some((line) => line.includes('"msg":"webhook delivered"')));

    const log = lines.join('');
    expect(log).toContain(webhookId);
    expect(log).toContain(endpoint.received[0]!.id);
    for (const secretPart of [secret, secret.slice('whsec_'.length), 'tok_pathsecret', chargeId, endpoint.received[0]!.headers['webhook-signature']!]) {
      expect(log).not.toContain(secretPart);
    }
  });
});

// ——— Fairness between companies (D14): one company's slow or silent receivers cost only that company ———

describe('fair delivery: slots per company and in all, each started as soon as one frees (D14)', () => {
  const ALL_EVENTS: ChargeEventType[] = ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received', 'charge.expired'];

  /** `n` registrations of company A whose receivers (each its own server on 127.0.0.1) accept the request and never answer. */
  async function silentRegistrations(s: TestServer, n: number): Promise<Receiver[]> {
    const silent: Receiver[] = [];
    for (let i = 0; i < n; i++) {
      const secret = newSecret();
      const endpoint = await receiver(secret, () => ({ status: 200, hang: true }));
      await registerWebhook(s, endpoint.url, secret);
      silent.push(endpoint);
    }
    return silent;
  }

  /** Company B's lifecycle events (a paid charge) and how long its first one took to arrive, ms. */
  async function companyBDelay(s: TestServer, endpoint: Receiver, deadlineMs: number): Promise<number> {
    const before = endpoint.received.length;
    const started = Date.now();
    const chargeId = await createDevCharge(s, s.other);
    await simulatePayment(s.deps, s.other.companyId, chargeId);
    await waitFor("company B's first event", () => endpoint.received.length > before, deadlineMs);
    return endpoint.received[before]!.at - started;
  }

  test("ten silent receivers of company A: company B's events arrive as fast as without them, in order, before any of A's time-outs", {
    timeout: 80_000,
  }, async () => {
    // D14's answer time-out; the production polling interval.
    const s = await start({ webhookTimeoutMs: 15_000, webhookPollMs: 250 });
    const secretB = newSecret();
    const endpointB = await receiver(secretB);
    const webhookB = await registerWebhook(s, endpointB.url, secretB, ALL_EVENTS, s.other.companyId);
    worker(s.deps);

    // B's usual delay, with no receiver of A in the way.
    const usual = await companyBDelay(s, endpointB, 10_000);
    await waitFor("B's first four events", () => endpointB.processed().length === 4);

    // A's ten silent receivers, each with four events to send, take what A is allowed.
    const silent = await silentRegistrations(s, 10);
    const chargeA = await createDevCharge(s);
    await simulatePayment(s.deps, s.companyId, chargeA);
    const held = () => silent.filter((r) => r.received.length > 0).length;
    await waitFor("A's requests in flight", () => held() >= 4);

    // Then B's next charge: judged against B's usual delay and against A's time-out, not a tight timing.
    const delayed = await companyBDelay(s, endpointB, 45_000);
    console.info(`company B's first event: ${usual} ms without company A's silent receivers, ${delayed} ms with ten of them`);
    await waitFor("B's eight events", () => endpointB.processed().length === 8);
    expect(delayed).toBeLessThan(usual + 1_000);
    expect(delayed).toBeLessThan(5_000);
    // Every one of A's requests is still unanswered: B did not wait for any of them.
    for (const r of silent) expect(await attempts(s, (await s.deps.store.listWebhooks(s.companyId)).find((w) => w.url === r.url)!.id)).toEqual([]);

    // Each webhook gets its events in order: B all of them, A's only their first (still in flight), one request each.
    expect(endpointB.processed().map((e) => e.type)).toEqual([...LIFECYCLE, ...LIFECYCLE]);
    expect(endpointB.received.every((r) => r.verifyError === undefined)).toBe(true);
    for (const r of silent) expect(r.received.map((x) => x.event?.type)).toEqual(r.received.length === 0 ? [] : ['charge.pending']);
    const recordedB = await s.deps.store.listDeliveryAttempts(s.other.companyId, webhookB, 100);
    expect(recordedB.map((a) => a.status)).toEqual(recordedB.map(() => 'SUCCEEDED'));
  });

  test("all slots but one held by company A's silent receivers: A never holds more than its share, B's events take the one left", async () => {
    const s = await start({ webhookTimeoutMs: 15_000 });
    const secretB = newSecret();
    const endpointB = await receiver(secretB);
    await registerWebhook(s, endpointB.url, secretB, ALL_EVENTS, s.other.companyId);
    const silent = await silentRegistrations(s, 10);
    await createDevCharge(s);
    worker(s.deps, { concurrency: 4, companyConcurrency: 3 });
    const held = () => silent.filter((r) => r.received.length > 0).length;
    await waitFor("A's requests in flight", () => held() === 3);

    const chargeB = await createDevCharge(s, s.other);
    await simulatePayment(s.deps, s.other.companyId, chargeB);
    await waitFor("B's four events", () => endpointB.processed().length === 4, 5_000);
    expect(endpointB.processed().map((e) => e.type)).toEqual(LIFECYCLE);
    // Still three: the fourth slot went to B, and nothing of A was tried beyond its share or timed out yet.
    expect(held()).toBe(3);
    for (const r of silent) expect(r.received.length).toBeLessThanOrEqual(1);
    for (const w of await s.deps.store.listWebhooks(s.companyId)) expect(await attempts(s, w.id)).toEqual([]);
  });

  test('a freed slot is taken at once, not when the slowest attempt ends; a company never exceeds its share', async () => {
    // Two slots, one per company. A's receiver never answers (time-out 5 s); B has a slow receiver
    // (300 ms) and a quick one, one event each: they take B's slot one after the other.
    const s = await start({ webhookTimeoutMs: 5_000 });
    const silent = await silentRegistrations(s, 1);
    const [secretSlow, secretQuick] = [newSecret(), newSecret()];
    const slow = await receiver(secretSlow, () => ({ status: 200, delayMs: 300 }));
    const quick = await receiver(secretQuick);
    await registerWebhook(s, slow.url, secretSlow, ['charge.pending'], s.other.companyId);
    await registerWebhook(s, quick.url, secretQuick, ['charge.pending'], s.other.companyId);
    await createDevCharge(s);
    const started = Date.now();
    worker(s.deps, { concurrency: 2, companyConcurrency: 1 });
    await waitFor("A's request in flight", () => silent[0]!.received.length === 1);
    await createDevCharge(s, s.other);

    await waitFor("both of B's events", () => slow.processed().length === 1 && quick.processed().length === 1, 4_000);
    const [first, second] = [slow.received[0]!, quick.received[0]!].sort((x, y) => x.at - y.at);
    const firstAnswered = first!.at + (first === slow.received[0] ? 300 : 0);
    // One at a time (B's share is one slot), the second as soon as the first answered, long before A's time-out.
    expect(second!.at).toBeGreaterThanOrEqual(firstAnswered - 5);
    expect(second!.at - started).toBeLessThan(3_000);
    expect(await attempts(s, (await s.deps.store.listWebhooks(s.companyId))[0]!.id)).toEqual([]);
  });

  test("a silent receiver's time-out holds while the garbage collector runs: the slot is freed and the attempt recorded", async () => {
    // fetch holds its signal weakly: a deadline made of AbortSignal.any and AbortSignal.timeout can
    // be collected on Node 20 and never fire, and the slot would be held for good.
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const s = await start({ webhookTimeoutMs: 500 });
    const [silent] = await silentRegistrations(s, 1);
    await createDevCharge(s);
    const collecting = setInterval(gc, 20);
    try {
      worker(s.deps);
      await waitFor('the request in flight', () => silent!.received.length === 1);
      const webhookId = (await s.deps.store.listWebhooks(s.companyId))[0]!.id;
      await waitFor('the timed-out attempt recorded', async () => (await attempts(s, webhookId)).length > 0, 5_000);
      expect((await attempts(s, webhookId))[0]).toMatchObject({ attempt: 1, status: 'FAILED', error: 'no answer within 0.5 s' });
    } finally {
      clearInterval(collecting);
    }
  });
});

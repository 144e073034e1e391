/**
 * Crash safety of webhook delivery (D14), with real processes: the compiled server (`npm start`) on a SQLite
 * file, driven over HTTP as an integrator would. Events are produced while the receiver is down
 * (connection refused) and attempted several times; the server is killed with SIGKILL, restarted
 * on the same file, and only then the receiver comes up. Every event must still arrive, in order,
 * signed, each webhook-id at least once and processed once after de-duplication; the attempts
 * before and after the crash are one history (D41).
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { processed, startReceiver, waitFor } from '../test-support/webhook-receiver.js';
import {
  freePort,
  listening,
  useChildProcesses,
  WAIT_MS,
  within,
  type ChildVars,
  type Running,
  printedKey,
  startBuiltServer,
} from '../test-support/processes.js';

type WebhookDelivery = components['schemas']['WebhookDelivery'];
type WebhookWithSecret = components['schemas']['WebhookWithSecret'];
type PaymentLinkResponse = components['schemas']['PaymentLinkResponse'];

const folder = useChildProcesses('pix-webhook-e2e-');

/**
 * Quick retries while the receiver is down, then a second apart for long enough (about 17 s)
 * that a restart under load fits in before the schedule is used up.
 */
const SCHEDULE = ['0.1', '0.1', '0.1', '0.5', ...Array.from({ length: 16 }, () => '1')].join(',');

describe('webhook delivery survives a crash (D14)', () => {
  test('events attempted while the receiver is down, server SIGKILLed and restarted, receiver up: all delivered, in order, once each after de-duplication', {
    timeout: 120_000,
  }, async () => {
    const databasePath = join(folder(), 'crash', 'payments.db');
    const port = await freePort();
    const receiverPort = await freePort();
    const vars: ChildVars = {
      DATABASE_PATH: databasePath,
      PORT: String(port),
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE,
      WEBHOOK_POLL_MS: '50',
      WEBHOOK_TIMEOUT_MS: '2000',
      LOG_LEVEL: 'info',
    };
    let apiKey = '';
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { 'X-API-KEY': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(WAIT_MS),
      });
      const text = await response.text();
      return { status: response.status, json: text === '' ? undefined : (JSON.parse(text) as unknown) };
    };
    const deliveries = async (webhookId: string): Promise<WebhookDelivery[]> => {
      const answer = await call('GET', `/webhook/${webhookId}/deliveries`);
      expect(answer.status).toBe(200);
      return (answer.json as WebhookDelivery[]).slice().reverse(); // oldest first
    };
    const createCharge = async (): Promise<string> => {
      const answer = await call('POST', '/charge/payment-link', { total: 1500, devMode: true });
      expect(answer.status, JSON.stringify(answer.json)).toBe(201);
      return (answer.json as PaymentLinkResponse).data.id;
    };
    const pay = async (id: string, settle: boolean): Promise<void> => {
      const answer = await call('POST', `/charge/${id}/simulate-payment`, { settle });
      expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    };

    // First start on an empty file: the development key is printed once.
    const first: Running = startBuiltServer(vars);
    await listening(first);
    apiKey = printedKey(first);
    expect(apiKey, first.stdout()).not.toBe('');

    // Two registrations on the (still down) receiver: every event, and charge.paid only.
    const register = async (path: string, events: string[]): Promise<WebhookWithSecret> => {
      const answer = await call('POST', '/webhook', { url: `http://127.0.0.1:${receiverPort}${path}`, name: `Receiver ${path}`, events });
      expect(answer.status, JSON.stringify(answer.json)).toBe(201);
      return answer.json as WebhookWithSecret;
    };
    const all = await register('/all', ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received', 'charge.expired']);
    const paid = await register('/paid', ['charge.paid']);

    // Seven events: A pending, B pending, A processing/paid/received, B processing/paid.
    const chargeA = await createCharge();
    const chargeB = await createCharge();
    await pay(chargeA, true);
    await pay(chargeB, false);

    // The receiver is down: the oldest event is refused a few times, the later ones wait behind it.
    await waitFor('three refused attempts', async () => (await deliveries(all.id)).length >= 3);
    const beforeCrash = await deliveries(all.id);
    for (const attempt of beforeCrash) {
      expect(attempt).toMatchObject({ eventType: 'charge.pending', status: 'FAILED', error: 'connection refused' });
      expect(attempt.httpStatus).toBeUndefined();
      expect(attempt.nextAttemptAt).toEqual(expect.any(String));
    }
    expect(new Set(beforeCrash.map((a) => a.eventId)).size).toBe(1);

    // Crash: no shutdown of any kind.
    process.kill(-first.child.pid!, 'SIGKILL');
    expect(await within(first.exited, 'the killed server to exit')).toMatchObject({ signal: 'SIGKILL' });

    // Restart on the same file; the retries go on from where they were.
    const second = startBuiltServer(vars);
    await listening(second);
    expect(second.stdout()).not.toContain('Empty database');
    const attemptsAtRestart = (await deliveries(all.id)).length;
    await waitFor('a refused attempt after the restart', async () => (await deliveries(all.id)).length > attemptsAtRestart);
    // One more event, produced after the restart, comes after all of the older ones.
    const chargeC = await createCharge();

    const receiver = await startReceiver(
      receiverPort,
      new Map([
        ['/all', all.secret],
        ['/paid', paid.secret],
      ]),
    );
    try {
      await waitFor(
        'eight events at /all and two at /paid',
        () => processed(receiver.received, '/all').length === 8 && processed(receiver.received, '/paid').length === 2,
      );
      await new Promise((resolve) => setTimeout(resolve, 300)); // nothing else arrives

      expect(receiver.received.filter((r) => r.verifyError !== undefined)).toEqual([]);
      expect(processed(receiver.received, '/all').map(({ event }) => [event.type, event.data.id])).toEqual([
        ['charge.pending', chargeA],
        ['charge.pending', chargeB],
        ['charge.processing', chargeA],
        ['charge.paid', chargeA],
        ['charge.received', chargeA],
        ['charge.processing', chargeB],
        ['charge.paid', chargeB],
        ['charge.pending', chargeC],
      ]);
      expect(processed(receiver.received, '/paid').map(({ event }) => [event.type, event.data.id])).toEqual([
        ['charge.paid', chargeA],
        ['charge.paid', chargeB],
      ]);
      // At least once: every request carried the id of an event processed at its endpoint, and
      // an event's id is the same at both endpoints.
      const allIds = processed(receiver.received, '/all').map((p) => p.id);
      const paidIds = processed(receiver.received, '/paid').map((p) => p.id);
      expect(new Set(allIds).size).toBe(8);
      expect(paidIds).toEqual([allIds[3], allIds[6]]);
      for (const r of receiver.received) expect(r.path === '/all' ? allIds : paidIds).toContain(r.id);

      // D41: one history across the crash — the first event's attempts numbered 1, 2, 3… without a gap, refused until it succeeded.
      await waitFor('every success recorded', async () => (await deliveries(all.id)).filter((a) => a.status === 'SUCCEEDED').length === 8);
      const history = await deliveries(all.id);
      const firstEvent = history.filter((a) => a.eventId === allIds[0]);
      expect(firstEvent.map((a) => a.attempt)).toEqual(firstEvent.map((_, i) => i + 1));
      expect(firstEvent.length).toBeGreaterThan(beforeCrash.length);
      expect(firstEvent.slice(0, -1).every((a) => a.status === 'FAILED' && a.error === 'connection refused')).toBe(true);
      expect(firstEvent.at(-1)).toMatchObject({ status: 'SUCCEEDED', httpStatus: 204 });
      expect(firstEvent.at(-1)!.nextAttemptAt).toBeUndefined();
      // The events that waited behind it were never attempted before the receiver came up: one attempt each.
      for (const id of allIds.slice(1)) {
        expect(history.filter((a) => a.eventId === id).map((a) => [a.attempt, a.status, a.httpStatus])).toEqual([[1, 'SUCCEEDED', 204]]);
      }
      expect(history).toHaveLength(firstEvent.length + 7);
    } finally {
      await receiver.close();
    }

    // A clean stop ends the worker with the server.
    process.kill(second.child.pid!, 'SIGTERM');
    expect(await within(second.exited, 'the restarted server to exit on SIGTERM')).toEqual({ code: 0, signal: null });
    // Neither secrets nor bodies in any output.
    for (const output of [first.stdout(), first.stderr(), second.stdout(), second.stderr()]) {
      for (const secret of [all.secret, paid.secret, all.secret.slice('whsec_'.length)]) expect(output).not.toContain(secret);
      expect(output).not.toContain('"data":');
      expect(output).not.toContain(`127.0.0.1:${receiverPort}`);
    }
  });
});

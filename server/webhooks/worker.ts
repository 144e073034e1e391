/**
 * The webhook delivery worker (D14, D15, D41). Every poll it expires the charges whose time is
 * up (their `charge.expired` goes through the outbox like every other event), then claims due
 * deliveries — at most one per webhook, its oldest undelivered event, so each receiver gets its
 * events in order — and makes one attempt of each: a Standard Webhooks `POST` of the stored
 * body, signed with the registration's secret, with the same `webhook-id` on every attempt.
 * Each attempt is recorded with the delivery's next state in one store step, so a crash loses
 * at most an attempt in flight, which the claim's lease makes due again (at least once).
 *
 * Fair sharing (D14): attempts run in slots, at most `concurrency` in all and `companyConcurrency`
 * per company, each slot on its own: an attempt starts as soon as a slot frees, never waiting for
 * others to end. Only as many deliveries are claimed as there are free slots, in turns over the
 * companies and none beyond a company's free slots, so a company whose receivers are slow or
 * silent holds its own slots and no one else's, and no lease is taken for an attempt that waits.
 *
 * Nothing secret is logged: not the secret, not the body, not the URL (it may carry a token).
 */
import { createId } from '../../lib/ids/cuid2.js';
import { Webhook } from 'standardwebhooks';
import type { Deps } from '../deps.js';
import { eventBodyWithImage } from '../domain/charge-image.js';
import { expireDueCharges } from '../domain/charge-lifecycle.js';
import type { AttemptOutcome, DueDelivery, WebhookDeliveryDoc } from '../store/types.js';
import { fetchFailure } from '../../lib/net/fetch-failure.js';
import { retryDelayMs } from './retry-schedule.js';
import { createWebhookTransport, InvalidStatus, type WebhookSend } from './transport.js';
import { RefusedByPolicy } from './url-policy.js';

export interface WebhookWorkerOptions {
  /** Tick every `pollMs` on a timer (default); false leaves ticking to `tick()`, for tests. */
  polling?: boolean;
  /**
   * Defaults: the configuration's WEBHOOK_POLL_MS, WEBHOOK_TIMEOUT_MS, WEBHOOK_CONNECT_TIMEOUT_MS,
   * WEBHOOK_RETRY_SCHEDULE, WEBHOOK_CONCURRENCY and WEBHOOK_COMPANY_CONCURRENCY.
   */
  pollMs?: number;
  /** The answer time-out: from an attempt's start to the endpoint's answer, the connection included. */
  timeoutMs?: number;
  /** The connect time-out (at most `timeoutMs`), for the transport that makes the connection. */
  connectTimeoutMs?: number;
  scheduleSeconds?: readonly number[];
  /** Attempts in flight at once in all. */
  concurrency?: number;
  /** Attempts in flight at once for one company (less than `concurrency`, so others always have room). */
  companyConcurrency?: number;
  /** A number in [0, 1) for the jitter. */
  random?: () => number;
  /** Sends each delivery; the transport (the URL policy at connect time, one connection per request) unless a test gives its own. */
  fetch?: WebhookSend;
}

export interface WebhookWorker {
  /** Stops polling, aborts requests in flight (they stay due and are sent again later) and waits for them. */
  stop(): Promise<void>;
  /**
   * Runs one poll now, after the one in progress if any, and resolves once no attempt is in
   * flight: those it started and those that took the slots they freed.
   */
  tick(): Promise<void>;
}

/** Time past the answer time-out before a claimed delivery is due again (the attempt's own bookkeeping). */
const LEASE_MARGIN_MS = 2_000;

type Sent = AttemptOutcome['state'] | 'ABORTED';

export function startWebhookWorker(deps: Deps, options: WebhookWorkerOptions = {}): WebhookWorker {
  const pollMs = options.pollMs ?? deps.config.webhookPollMs;
  const timeoutMs = options.timeoutMs ?? deps.config.webhookTimeoutMs;
  const schedule = options.scheduleSeconds ?? deps.config.webhookRetryScheduleSeconds;
  const concurrency = Math.max(1, options.concurrency ?? deps.config.webhookConcurrency);
  const companyConcurrency = Math.max(1, Math.min(concurrency, options.companyConcurrency ?? deps.config.webhookCompanyConcurrency));
  const random = options.random ?? Math.random;
  // The policy of this deployment, whatever the deployment that registered the URL allowed (D40).
  const send: WebhookSend =
    options.fetch ??
    createWebhookTransport({
      mode: deps.config.mode,
      allowedNetworks: deps.config.webhookAllowedNetworks,
      connectTimeoutMs: options.connectTimeoutMs ?? deps.config.webhookConnectTimeoutMs,
      ...(deps.resolveHost ? { resolve: deps.resolveHost } : {}),
    });
  const log = deps.logger.child({ component: 'webhooks' });
  const stopping = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  /** The attempts in flight, and how many of them each company has. */
  const inFlight = new Set<Promise<void>>();
  const busy = new Map<string, number>();
  /** The claim in progress (one at a time, so two cannot both count the same free slot), and whether another is wanted after it. */
  let filling: Promise<void> | undefined;
  let fillAgain = false;

  async function deliver(due: DueDelivery, signal: AbortSignal): Promise<Sent> {
    const attempt = due.attempts + 1;
    const requestedAt = deps.now();
    const started = performance.now();
    let httpStatus: number | undefined;
    let retryAfter: string | null = null;
    let error: string | undefined;
    try {
      const body = await eventBodyWithImage(deps.store, due.companyId, due.body);
      const signature = new Webhook(due.secret).sign(due.eventId, requestedAt, body);
      const response = await send(due.url, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'webhook-id': due.eventId,
          'webhook-timestamp': String(Math.floor(requestedAt.getTime() / 1000)),
          'webhook-signature': signature,
        },
        redirect: 'manual',
        signal,
      });
      retryAfter = response.headers.get('retry-after');
      if (response.status >= 100 && response.status <= 599) httpStatus = response.status;
      else error = `invalid status code ${response.status}`;
      // Only the status matters; the body is dropped so the connection is freed.
      await response.body?.cancel().catch(() => undefined);
    } catch (thrown) {
      // A shutdown is not the endpoint's failure: unrecorded, the delivery is due again once its lease ends.
      if (stopping.signal.aborted) return 'ABORTED';
      error = describeFailure(thrown, timeoutMs);
    }
    const durationMs = Math.max(0, Math.round(performance.now() - started));
    const succeeded = httpStatus !== undefined && httpStatus >= 200 && httpStatus <= 299;
    const gone = httpStatus === 410;
    const finishedAt = deps.now();
    const delayMs =
      succeeded || gone ? undefined : retryDelayMs(schedule, { attempt, ...(httpStatus !== undefined ? { httpStatus } : {}), retryAfter }, finishedAt, random);
    const state: AttemptOutcome['state'] = succeeded ? 'DELIVERED' : delayMs === undefined ? 'FAILED' : 'PENDING';
    const doc: WebhookDeliveryDoc = {
      id: `dlvr_${createId()}`,
      eventId: due.eventId,
      eventType: due.type,
      webhookId: due.webhookId,
      attempt,
      status: succeeded ? 'SUCCEEDED' : 'FAILED',
      ...(httpStatus !== undefined ? { httpStatus } : {}),
      ...(error !== undefined ? { error } : {}),
      requestedAt: requestedAt.toISOString(),
      durationMs,
      ...(delayMs !== undefined ? { nextAttemptAt: new Date(finishedAt.getTime() + delayMs).toISOString() } : {}),
    };
    await deps.store.recordAttempt({ companyId: due.companyId, attempt: doc, state, ...(gone ? { disableWebhook: true } : {}) });
    const fields = {
      webhookId: doc.webhookId,
      eventId: doc.eventId,
      eventType: doc.eventType,
      attempt,
      httpStatus: doc.httpStatus,
      error: doc.error,
      durationMs,
      nextAttemptAt: doc.nextAttemptAt,
    };
    if (succeeded) log.info(fields, 'webhook delivered');
    else if (gone) log.warn(fields, 'webhook endpoint answered 410 Gone: registration set INACTIVE');
    else if (state === 'FAILED') log.warn(fields, 'webhook delivery given up');
    else log.info(fields, 'webhook attempt failed; will retry');
    return state;
  }

  /**
   * One attempt in a slot. Its deadline is a timer of the slot's own, not `AbortSignal.timeout`
   * joined by `AbortSignal.any`: fetch holds the signal it is given only weakly, and on Node 20 a
   * collected composite never aborts, so a silent receiver would hold its slot for good.
   */
  function startAttempt(due: DueDelivery): void {
    busy.set(due.companyId, (busy.get(due.companyId) ?? 0) + 1);
    const attempt = new AbortController();
    const deadline = setTimeout(() => attempt.abort(new DOMException(`no answer within ${timeoutMs} ms`, 'TimeoutError')), timeoutMs);
    deadline.unref();
    const onStop = (): void => attempt.abort(stopping.signal.reason);
    stopping.signal.addEventListener('abort', onStop, { once: true });
    const running: Promise<void> = deliver(due, attempt.signal)
      .then(
        () => undefined,
        (thrown: unknown) => log.error({ err: thrown }, 'recording a webhook attempt failed'),
      )
      .finally(() => {
        clearTimeout(deadline);
        stopping.signal.removeEventListener('abort', onStop);
        inFlight.delete(running);
        const left = (busy.get(due.companyId) ?? 1) - 1;
        if (left > 0) busy.set(due.companyId, left);
        else busy.delete(due.companyId);
        // The freed slot is taken at once: this webhook's next event, or another's.
        if (!stopping.signal.aborted) void fill();
      });
    inFlight.add(running);
  }

  /** Claims as many due deliveries as there are free slots, within each company's share, and starts them. */
  async function claimAndStart(): Promise<void> {
    const free = concurrency - inFlight.size;
    if (free <= 0 || stopping.signal.aborted) return;
    const now = deps.now();
    const leaseUntil = new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS);
    try {
      const due = await deps.store.claimDueDeliveries(now.toISOString(), leaseUntil.toISOString(), free, {
        perCompany: companyConcurrency,
        busy: new Map(busy),
      });
      // Claimed during a stop: left unsent, due again when the lease ends.
      if (stopping.signal.aborted) return;
      for (const delivery of due) startAttempt(delivery);
    } catch (thrown) {
      log.error({ err: thrown }, 'claiming webhook deliveries failed');
    }
  }

  function fill(): Promise<void> {
    if (filling) {
      fillAgain = true;
      return filling;
    }
    filling = (async () => {
      do {
        fillAgain = false;
        await claimAndStart();
      } while (fillAgain && !stopping.signal.aborted);
    })().finally(() => {
      filling = undefined;
    });
    return filling;
  }

  /** One poll: expiry always, then the free slots filled. It does not wait for the attempts it starts. */
  async function runTick(): Promise<void> {
    if (stopping.signal.aborted) return;
    try {
      await expireDueCharges(deps);
    } catch (thrown) {
      log.error({ err: thrown }, 'expiring due charges failed');
    }
    await fill();
  }

  const poll = (): void => {
    if (options.polling === false || stopping.signal.aborted) return;
    timer = setTimeout(() => {
      current = current.then(runTick);
      void current.then(poll);
    }, pollMs);
    timer.unref();
  };
  if (options.polling !== false) {
    current = current.then(runTick);
    void current.then(poll);
  }

  async function idle(): Promise<void> {
    while (inFlight.size > 0 || filling) await Promise.allSettled([...inFlight, filling]);
  }

  return {
    async tick() {
      current = current.then(runTick);
      await current;
      await idle();
    },
    async stop() {
      stopping.abort();
      clearTimeout(timer);
      await current;
      await idle();
    },
  };
}

/**
 * Why a request got no answer, in words for the deliveries list (D41); never the URL or the body.
 * A refusal by the URL policy says so and no more (no address, no port: no connection was made).
 */
export function describeFailure(thrown: unknown, timeoutMs: number): string {
  const refused = isNamed(thrown, 'TimeoutError') ? undefined : (found(thrown, RefusedByPolicy) ?? found(thrown, InvalidStatus));
  if (refused) return refused.message;
  const { kind, code } = fetchFailure(thrown);
  switch (kind) {
    case 'timeout':
      return `no answer within ${timeoutMs / 1000} s`;
    case 'refused':
      return 'connection refused';
    case 'closed':
      return 'connection closed before an answer';
    case 'no-such-host':
    case 'dns-failed':
      return 'host not found';
    case 'connect-timeout':
      return 'connection timed out';
    case 'unreachable':
      return 'host unreachable';
    case 'tls':
      return `TLS failure (${code})`;
    default:
      return code === undefined ? 'request failed' : `request failed (${code})`;
  }
}

/** An error of the given class: the one thrown, its cause, or the first of an AggregateError. */
function found<T extends Error>(thrown: unknown, kind: new (...args: never[]) => T, depth = 0): T | undefined {
  if (thrown instanceof kind) return thrown;
  if (typeof thrown !== 'object' || thrown === null || depth > 4) return undefined;
  const { cause, errors } = thrown as { cause?: unknown; errors?: unknown };
  return found(cause, kind, depth + 1) ?? (Array.isArray(errors) ? found(errors[0], kind, depth + 1) : undefined);
}

function isNamed(value: unknown, name: string): boolean {
  return typeof value === 'object' && value !== null && (value as { name?: unknown }).name === name;
}

/**
 * Webhook deliveries, received by the suite itself (`--webhook-receiver`): it registers its own
 * endpoint, creates a development charge, walks it through its payment states with the sandbox
 * control (`simulatePayment` with `until`, D39) when the target has one, and judges what arrives:
 *
 * - `webhook_signature`: each delivery carries `webhook-id`, `webhook-timestamp` and a
 *   `webhook-signature` valid under Standard Webhooks with the registration's secret, and its
 *   timestamp is fresh (within the specification's five minutes of its arrival);
 * - `webhook_schema`: each body is valid against the contract's `webhooks` payload schema;
 * - `webhook_delivery`: every expected event of the charge arrives, each under one `webhook-id`,
 *   in the order of the moves, and the delivery the receiver refused (`500`, the first) comes
 *   again with the same `webhook-id`.
 *
 * The results are reported on `createWebhook`: deliveries are what a registration is for. The
 * seed shows no delivery, signing or retries (§6), so in the `seed` profile every departure is
 * information naming the contract's decision.
 */
import { Webhook } from 'standardwebhooks';
import { deref, type JsonObject } from '../../lib/contract/bundled.js';
import type { CheckModule } from '../engine/check-module.js';
import { RunContext } from '../engine/context.js';
import { notThisOperation } from '../engine/preflight.js';
import type { CheckName, Exchange } from '../engine/types.js';
import { validBodies } from '../data/bodies.js';
import { describeAnswer, idOf } from '../data/fixtures.js';
import { isPlainObject, itemsOf, keywordOf, toPointer } from '../data/schema.js';
import { startReceiver, type Delivery, type Receiver } from '../webhooks/receiver.js';
import { shellQuote } from '../report/curl.js';
import { describeErrors, unnamedDecision, validateBoth } from './responses.js';

const operationId = 'createWebhook';
const checks = ['webhook_signature', 'webhook_schema', 'webhook_delivery'] as const satisfies readonly CheckName[];

/** How long the run waits for the deliveries by default: the reference server's first retry comes about 5 s after a refusal. */
export const DEFAULT_WEBHOOK_WAIT_MS = 20_000;
/** Standard Webhooks' tolerance between a delivery's timestamp and its arrival. */
const TOLERANCE_S = 5 * 60;
/** The moves of a development charge, each answered by its event (D39, D15). */
const moves = [
  { until: 'PROCESSING', event: 'charge.processing' },
  { until: 'PAID', event: 'charge.paid' },
  { until: 'RECEIVED', event: 'charge.received' },
] as const;
const createdEvent = 'charge.pending';

export const webhookCheck: CheckModule = {
  checks,
  async run(ctx) {
    if (!ctx.covers(operationId)) return;
    const skip = (reason: string) => {
      for (const check of checks) ctx.recorder.skip(operationId, check, reason);
    };
    const address = ctx.options.webhookReceiver;
    if (!address) return skip('no --webhook-receiver: the run receives no deliveries');
    if (ctx.options.readOnly) return skip('registering a webhook needs a POST (--read-only)');
    if (ctx.options.stateless) return skip('the target keeps no webhooks (--stateless)');

    let receiver: Receiver;
    try {
      const tunnelled = tunnelledUrl(ctx);
      receiver = await startReceiver(address, tunnelled ? `${tunnelled.pathname}${tunnelled.search}` : `/${ctx.runId}`);
    } catch (error) {
      return skip(`the receiver cannot listen on ${address.host}:${address.port}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    try {
      await exercise(ctx, receiver, skip);
    } finally {
      await receiver.close();
    }
  },
};

/**
 * The URL the receiver is registered at through `--webhook-url` (a tunnel, a TLS-terminating
 * proxy), or undefined when the run registers the receiver's own address. The run's other
 * registrations point at `--webhook-url` too, and their deliveries, signed with other secrets,
 * must not be judged as this registration's: a query parameter naming the run marks the
 * receiver's own, and such a hop passes path and query through unchanged
 * (`https://abc.tunnel.example/hooks?conformance-receiver=RUN` arrives as that path and query).
 */
function tunnelledUrl(ctx: RunContext): URL | undefined {
  if (!ctx.options.webhookUrl) return undefined;
  const url = new URL(ctx.options.webhookUrl);
  url.searchParams.set('conformance-receiver', ctx.runId);
  return url;
}

async function exercise(ctx: RunContext, receiver: Receiver, skip: (reason: string) => void): Promise<void> {
  const registered = tunnelledUrl(ctx)?.toString() ?? receiver.url;
  const registration = await register(ctx, registered);
  if ('reason' in registration) return skip(registration.reason);
  try {
    const body = validBodies(ctx, 'createPaymentLink')[0];
    if (!body) return skip('no valid createPaymentLink body to create a development charge');
    const created = await ctx.request('createPaymentLink', { body: body.body });
    const chargeId = idOf(created);
    if (!chargeId) return skip(`creating a development charge failed (${describeAnswer(created)})`);

    const moved = await move(ctx, chargeId);
    const expected = [createdEvent, ...moved.events];
    const waitMs = ctx.options.webhookWaitMs ?? DEFAULT_WEBHOOK_WAIT_MS;
    await waitFor(() => complete(receiver.deliveries, chargeId, expected), waitMs);

    const judged = receiver.deliveries.map((delivery) => ({ delivery, event: parse(delivery.body), exchange: asExchange(receiver.url, delivery) }));
    if (judged.length === 0) {
      for (const check of checks)
        ctx.judge(
          operationId,
          check,
          false,
          `no delivery arrived at ${registered}${registered === receiver.url ? '' : ` (received on ${receiver.url})`} within ${waitMs / 1000} s of creating charge ${chargeId}`,
          // The request that should have caused the first event is the reproduction (its curl line).
          // One cause, one finding: the three checks' findings are one group in the reports.
          { decision: deliveryDecision(ctx), exchange: created, ...(moved.exchanges.length ? { related: moved.exchanges } : {}), cause: 'no-delivery' },
        );
      return;
    }
    for (const item of judged) {
      judgeSignature(ctx, registration.secret, item.delivery, item.exchange);
      judgeSchema(ctx, item.event, item.exchange);
    }
    judgeDelivery(ctx, judged, chargeId, expected, waitMs, [created, ...moved.exchanges]);
    // The later events were never asked for: what passed is not the whole check.
    if (moved.note) ctx.recorder.partial(operationId, 'webhook_delivery', moved.note);
  } finally {
    // A receiver that is gone would otherwise be retried for hours.
    await ctx.request('deleteWebhook', { pathParams: { id: registration.id } });
  }
}

/** Registers the receiver for every event the contract knows; the answer carries the secret once. */
async function register(ctx: RunContext, url: string): Promise<{ id: string; secret: string } | { reason: string }> {
  const base = validBodies(ctx, operationId)[0]?.body;
  const events = eventTypes(ctx);
  const body = { ...(isPlainObject(base) ? base : {}), url, name: `conformance ${ctx.runId}`, ...(events.length > 0 ? { events } : {}) };
  const exchange = await ctx.request(operationId, { body });
  const id = idOf(exchange);
  const parsed = parse(exchange.response?.body ?? '');
  const secret = isPlainObject(parsed) && typeof parsed.secret === 'string' ? parsed.secret : undefined;
  if (!id) return { reason: registrationRefused(ctx, url, exchange) };
  if (!secret) return { reason: `the registration of ${url} answered no secret to verify deliveries with` };
  return { id, secret };
}

/**
 * Why the receiver could not be registered, and what to do about it. A deployment that refuses
 * the receiver's own address is most likely a production one (D40: it sends webhooks only to
 * `https` at a public name, never to loopback or private addresses): the receiver must be
 * reached through a tunnel or a TLS-terminating proxy whose address is `--webhook-url`.
 */
function registrationRefused(ctx: RunContext, url: string, exchange: Exchange): string {
  const status = exchange.response?.status;
  const op = ctx.operation(operationId);
  if (status !== undefined && notThisOperation(op, status)) {
    return `the target has no webhook registration (${op.method.toUpperCase()} ${op.path} answered ${status}), so no delivery can be received`;
  }
  const refused = `the target refused to register the receiver at ${url} (${describeAnswer(exchange)})`;
  if (status === 409) {
    // The registration limit (D49), not the address: the run deletes its own registrations when it ends.
    return `${refused}: the company holds the most webhook registrations it may; list them (GET /webhook) and delete those no one uses. If the list holds fewer than the limit, deleted registrations are still counted against it`;
  }
  if (status === undefined || status < 400 || status >= 500 || ctx.options.webhookUrl) return refused;
  return `${refused}: a production deployment sends webhooks only to https at a public name (D40); put a tunnel or a TLS-terminating proxy in front of the receiver and give its https address as --webhook-url`;
}

/** The values of the registration's `events` items. */
function eventTypes(ctx: RunContext): string[] {
  const events = ctx.view(operationId).requestBody?.properties.get('events');
  const items = events ? itemsOf(ctx.contract, events) : undefined;
  const values = items ? keywordOf(items, 'enum')?.value : undefined;
  return Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Moves the charge one state at a time to `RECEIVED`. A target without the sandbox control
 * (404/405) is checked on `charge.pending` only, with the reason; any other refusal is a finding.
 */
async function move(ctx: RunContext, chargeId: string): Promise<{ events: string[]; note?: string; exchanges: Exchange[] }> {
  const events: string[] = [];
  const exchanges: Exchange[] = [];
  const op = ctx.operation('simulatePayment');
  const name = /\{([^}]+)\}/.exec(op.path)?.[1] ?? 'id';
  for (const step of moves) {
    const exchange = await ctx.request(op, { pathParams: { [name]: chargeId }, body: { until: step.until } });
    exchanges.push(exchange);
    const status = exchange.response?.status;
    if (status === 200) {
      events.push(step.event);
      continue;
    }
    if (events.length === 0 && (status === 404 || status === 405)) {
      const later = moves.map((m) => m.event).join(', ');
      return {
        events,
        exchanges,
        note: `${later} not checked: simulatePayment answered ${status} (the target has no sandbox control to move a charge), so only ${createdEvent} was`,
      };
    }
    ctx.judge(
      operationId,
      'webhook_delivery',
      false,
      `simulatePayment until ${step.until} on charge ${chargeId} answered ${describeAnswer(exchange)}, so the later events were not checked`,
      { decision: RunContext.decisionOf(op.operation), exchange },
    );
    return { events, exchanges };
  }
  return { events, exchanges };
}

interface Event {
  type?: string;
  chargeId?: string;
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function eventOf(value: unknown): Event {
  if (!isPlainObject(value)) return {};
  const data = isPlainObject(value.data) ? value.data : {};
  return { ...(typeof value.type === 'string' ? { type: value.type } : {}), ...(typeof data.id === 'string' ? { chargeId: data.id } : {}) };
}

/** Every expected event accepted, and the refused first delivery sent again. */
function complete(deliveries: readonly Delivery[], chargeId: string, expected: readonly string[]): boolean {
  const accepted = new Set(
    deliveries
      .filter((d) => d.answered < 300)
      .map((d) => eventOf(parse(d.body)))
      .filter((e) => e.chargeId === chargeId)
      .map((e) => e.type),
  );
  if (!expected.every((type) => accepted.has(type))) return false;
  const [refused, ...later] = deliveries;
  if (!refused) return false;
  const first = eventOf(parse(refused.body));
  return later.some((d) => d.headers['webhook-id'] === refused.headers['webhook-id'] || sameEvent(eventOf(parse(d.body)), first));
}

const sameEvent = (a: Event, b: Event) => a.type !== undefined && a.type === b.type && a.chargeId === b.chargeId;

async function waitFor(condition: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
}

/** A delivery as an exchange, so reports show it like the run's own requests. */
function asExchange(url: string, delivery: Delivery): Exchange {
  return {
    operationId: 'webhook delivery',
    request: { method: 'POST', url, headers: delivery.headers, body: delivery.body },
    response: { status: delivery.answered, headers: {}, body: '' },
    ms: 0,
  };
}

/** The contract's webhook payloads: pointer of each schema, and the decision marked on its operation. */
function payloads(ctx: RunContext): Array<{ pointer: string; decision?: string }> {
  const webhooks = isPlainObject(ctx.contract.webhooks) ? ctx.contract.webhooks : {};
  const out: Array<{ pointer: string; decision?: string }> = [];
  for (const [name, item] of Object.entries(webhooks)) {
    if (!isPlainObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      const content = isPlainObject(operation) && isPlainObject(operation.requestBody) ? (operation.requestBody as JsonObject).content : undefined;
      if (!isPlainObject(content) || !isPlainObject(content['application/json'])) continue;
      const decision = RunContext.decisionOf(operation);
      out.push({ pointer: toPointer(['webhooks', name, method, 'requestBody', 'content', 'application/json', 'schema']), ...(decision ? { decision } : {}) });
    }
  }
  return out;
}

/** The decision behind delivery, signing and retries (seed §6: not shown). */
function deliveryDecision(ctx: RunContext): string {
  return payloads(ctx)[0]?.decision ?? unnamedDecision;
}

/** The decision behind which move emits which event (seed §6: not shown), marked on the event types. */
function emissionDecision(ctx: RunContext): string {
  const pointer = payloads(ctx)[0]?.pointer;
  const schema = pointer ? deref<JsonObject>(ctx.contract, { $ref: `#${pointer}` }) : undefined;
  const type = schema && isPlainObject(schema.properties) ? deref<JsonObject>(ctx.contract, schema.properties.type) : undefined;
  return RunContext.decisionOf(type, 'description') ?? deliveryDecision(ctx);
}

function label(delivery: Delivery): string {
  const event = eventOf(parse(delivery.body));
  return `delivery ${delivery.headers['webhook-id'] ?? '(no webhook-id)'}${event.type ? ` (${event.type})` : ''}`;
}

/**
 * A shell command that computes the Standard Webhooks v1 signature of a recorded delivery with the
 * registration's secret (given as PIX_WEBHOOK_SECRET, never printed), to compare with its
 * `webhook-signature` header: the finding made again with no server and no receiver.
 */
export function offlineCheck(delivery: Delivery): string {
  const id = delivery.headers['webhook-id'] ?? '';
  const timestamp = delivery.headers['webhook-timestamp'] ?? '';
  const key = `"$(printf '%s' "\${PIX_WEBHOOK_SECRET#whsec_}" | base64 -d | od -An -tx1 | tr -d ' \\n')"`;
  return `verify offline (the secret in PIX_WEBHOOK_SECRET): printf '%s' ${shellQuote(`${id}.${timestamp}.${delivery.body}`)} | openssl dgst -sha256 -mac HMAC -macopt hexkey:${key} -binary | base64  # must be in webhook-signature after "v1,": ${delivery.headers['webhook-signature'] ?? '(none)'}`;
}

function judgeSignature(ctx: RunContext, secret: string, delivery: Delivery, exchange: Exchange): void {
  const decision = deliveryDecision(ctx);
  // One bug across events is one finding: the message says what is wrong, the detail which delivery
  // (and how to check its signature offline, the receiver being gone by then).
  const fail = (message: string) =>
    ctx.judge(operationId, 'webhook_signature', false, `delivery: ${message}`, { decision, exchange, detail: `${label(delivery)}; ${offlineCheck(delivery)}` });
  const id = delivery.headers['webhook-id'];
  const timestamp = delivery.headers['webhook-timestamp'];
  const signatures = delivery.headers['webhook-signature'];
  const missing = [
    ['webhook-id', id],
    ['webhook-timestamp', timestamp],
    ['webhook-signature', signatures],
  ]
    .filter(([, value]) => !value)
    .map(([name]) => name);
  if (missing.length > 0) {
    fail(`no ${missing.join(', ')} header`);
    return;
  }
  if (!/^\d+$/.test(timestamp!)) {
    fail(`webhook-timestamp ${JSON.stringify(timestamp)} is not whole seconds since the epoch`);
    return;
  }
  const offS = Math.round(Number(timestamp) - delivery.receivedAt / 1000);
  if (Math.abs(offS) > TOLERANCE_S) {
    fail(`webhook-timestamp is ${Math.abs(offS)} s ${offS < 0 ? 'before' : 'after'} its arrival; a receiver refuses more than ${TOLERANCE_S} s`);
    return;
  }
  // Signing the same id, timestamp and bytes with the secret gives the one valid v1 signature;
  // the header may carry several, space-separated, and one match is enough.
  let expected: string;
  try {
    expected = new Webhook(secret).sign(id!, new Date(Number(timestamp) * 1000), delivery.body);
  } catch (error) {
    fail(`the registration's secret cannot sign (${(error as Error).message})`);
    return;
  }
  if (!signatures!.split(' ').includes(expected)) {
    fail(`webhook-signature does not verify with the registration's secret (Standard Webhooks v1)`);
    return;
  }
  ctx.judge(
    operationId,
    'webhook_signature',
    true,
    `${label(delivery)}: signed with the registration's secret, timestamp ${Math.abs(offS)} s from its arrival`,
    { exchange },
  );
}

function judgeSchema(ctx: RunContext, body: unknown, exchange: Exchange): void {
  const schemas = payloads(ctx);
  if (schemas.length === 0) {
    ctx.recorder.skip(operationId, 'webhook_schema', 'the contract has no webhooks section');
    return;
  }
  const delivery = `delivery ${exchange.request.headers['webhook-id'] ?? '(no webhook-id)'}`;
  if (body === undefined) {
    ctx.judge(operationId, 'webhook_schema', false, 'delivery: the body is not JSON', { decision: deliveryDecision(ctx), exchange, detail: delivery });
    return;
  }
  const verdicts = schemas.map((s) => validateBoth(ctx, s.pointer, body));
  const first = verdicts[0]!;
  if (verdicts.some((v) => v.ok) || first.ok) {
    ctx.judge(operationId, 'webhook_schema', true, `${delivery}: valid against the contract's webhooks schema`, { exchange });
    return;
  }
  const decision = first.seedErrors.length === 0 ? (first.decisions[0] ?? schemas[0]!.decision ?? unnamedDecision) : undefined;
  // One finding for one fault across events: which delivery is its detail, not its message.
  ctx.judge(operationId, 'webhook_schema', false, `delivery: off the contract's webhooks schema: ${describeErrors(first.errors)}`, {
    decision,
    exchange,
    detail: delivery,
  });
}

interface Judged {
  delivery: Delivery;
  event: unknown;
  exchange: Exchange;
}

function judgeDelivery(
  ctx: RunContext,
  judged: readonly Judged[],
  chargeId: string,
  expected: readonly string[],
  waitMs: number,
  causes: readonly Exchange[],
): void {
  const decision = deliveryDecision(ctx);
  const check = 'webhook_delivery';
  const ours = judged.map((j) => ({ ...j, id: j.delivery.headers['webhook-id'] ?? '', ...eventOf(j.event) })).filter((j) => j.chargeId === chargeId);
  let ok = true;
  const fail = (message: string, options: { decision?: string; exchange?: Exchange; related?: Exchange[] } = {}) => {
    ok = false;
    ctx.judge(operationId, check, false, message, { decision, ...options });
  };

  const missing = expected.filter((type) => !ours.some((j) => j.type === type));
  if (missing.length > 0)
    fail(`${missing.join(', ')} of charge ${chargeId} never arrived within ${waitMs / 1000} s (expected ${expected.join(', ')})`, {
      decision: emissionDecision(ctx),
      // The requests that should have caused them: the reproduction, with their curl lines.
      ...(causes.length ? { exchange: causes.at(-1)!, related: causes.slice(0, -1) } : {}),
    });

  // At least once, deduplicated by webhook-id: one event is one id, one id is one event.
  for (const type of expected) {
    const ids = [...new Set(ours.filter((j) => j.type === type).map((j) => j.id))];
    if (ids.length > 1)
      fail(
        `${type} of charge ${chargeId} arrived under ${ids.length} webhook-ids (${ids.join(', ')}): a receiver dropping repeats by webhook-id processes it ${ids.length} times`,
      );
  }
  for (const id of new Set(ours.map((j) => j.id))) {
    const types = [...new Set(ours.filter((j) => j.id === id).map((j) => j.type))];
    if (types.length > 1)
      fail(`webhook-id ${id} carried different events (${types.join(', ')}): a receiver dropping repeats by webhook-id loses all but the first`);
  }

  const arrived = [...new Set(ours.map((j) => j.type).filter((type): type is string => type !== undefined && expected.includes(type)))];
  const inOrder = arrived.every((type, i) => i === 0 || expected.indexOf(type) > expected.indexOf(arrived[i - 1]!));
  if (!inOrder) fail(`the events of charge ${chargeId} arrived as ${arrived.join(', ')}, not in the order of the moves (${expected.join(', ')})`);

  const [refused, ...later] = judged;
  if (refused) {
    const first = { id: refused.delivery.headers['webhook-id'] ?? '', ...eventOf(refused.event) };
    const again = later.filter((j) => j.delivery.headers['webhook-id'] === first.id || sameEvent(eventOf(j.event), first));
    const changed = again.find((j) => j.delivery.headers['webhook-id'] !== first.id);
    if (again.length === 0) fail(`${label(refused.delivery)} was answered 500 and not sent again within ${waitMs / 1000} s`, { exchange: refused.exchange });
    else if (changed)
      fail(
        `${label(refused.delivery)} was answered 500 and sent again under another webhook-id, ${changed.delivery.headers['webhook-id'] ?? '(none)'}: a receiver cannot tell the retry from a new event`,
        { exchange: changed.exchange },
      );
  }
  if (ok)
    ctx.judge(
      operationId,
      check,
      true,
      `${expected.join(', ')} of charge ${chargeId} arrived once each, in order; the delivery answered 500 came again with the same webhook-id`,
    );
}

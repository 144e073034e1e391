import type { RequestInit, RunContext } from '../engine/context.js';
import type { Exchange } from '../engine/types.js';
import { listOperations, type ContractOperation } from '../../lib/contract/bundled.js';
import { stripOptional, tagBody, updateByIdOperation, validBodies } from './bodies.js';
import { isPlainObject, pathParameterExamples, requestBodyOf, viewOf } from './schema.js';
import { runData } from './state.js';

/**
 * The records a stateful run needs before its checks: a product, a subscription product and
 * a client of the run's company (and, with a second key, a product and a client of the
 * second company), created through the API from the contract's own request examples and
 * tagged with the run id. A fixture that cannot be created is a failure of
 * `positive_data_acceptance` on its operation (a valid body refused), and stays undefined,
 * so the checks that need it skip with the reason.
 *
 * Also here: the subscription and charge a check may need (`ensureSubscription`,
 * `ensureCharge`), created on demand and remembered for the run.
 */
export async function createFixtures(ctx: RunContext): Promise<void> {
  const state = runData(ctx);
  const product = productBodies(ctx);
  const client = clientBody(ctx);

  const plain = await create(ctx, 'createProduct', product?.plain, 'productId');
  if (plain) {
    ctx.fixtures.productId = plain.id;
    recordProduct(ctx, plain);
  }
  const subscription = await create(ctx, 'createProduct', product?.subscription, 'subscriptionProductId');
  if (subscription) {
    ctx.fixtures.subscriptionProductId = subscription.id;
    recordProduct(ctx, subscription);
  }
  const created = await create(ctx, 'createClient', client, 'clientId');
  if (created) {
    ctx.fixtures.clientId = created.id;
    state.companyId ??= created.companyId;
  }

  const secondKey = ctx.options.secondApiKey;
  if (secondKey) {
    ctx.fixtures.other = {};
    const otherProduct = await create(ctx, 'createProduct', product?.plain, 'other.productId', { apiKey: secondKey });
    if (otherProduct) ctx.fixtures.other.productId = otherProduct.id;
    const otherClient = await create(ctx, 'createClient', client, 'other.clientId', { apiKey: secondKey });
    if (otherClient) ctx.fixtures.other.clientId = otherClient.id;
  }
}

/** Registers a subscription the run created, for the bodies of `updateSubscription`. */
export function registerSubscription(ctx: RunContext, id: string): void {
  runData(ctx).subscriptionId ??= id;
}

export function subscriptionIdOf(ctx: RunContext): string | undefined {
  return runData(ctx).subscriptionId;
}

/**
 * A subscription of the run (created through `createSubscription` with its first valid
 * body when none exists yet), or why there is none.
 */
export async function ensureSubscription(ctx: RunContext): Promise<{ id: string } | { reason: string; exchange?: Exchange }> {
  const known = subscriptionIdOf(ctx);
  if (known) return { id: known };
  if (ctx.options.readOnly) return { reason: 'creating a subscription needs a POST (--read-only)' };
  if (ctx.options.stateless) return { reason: 'the target keeps no subscriptions (--stateless)' };
  const body = validBodies(ctx, 'createSubscription')[0];
  if (!body) return { reason: `no valid createSubscription body (${missingReason(ctx, 'subscriptionProductId')})` };
  const exchange = await ctx.request('createSubscription', { body: body.body });
  const id = idOf(exchange);
  if (!id) return { reason: `creating a subscription failed (${describeAnswer(exchange)})`, exchange };
  registerSubscription(ctx, id);
  return { id };
}

/**
 * Creates what the valid bodies of an operation name, before they are built: the subscription
 * `updateSubscription` changes (its body names it by `id`, D09). Undefined when the bodies are
 * ready, else why they cannot be (nothing to do against a stateless target: its bodies are the
 * contract's examples).
 */
export async function prepareBodies(ctx: RunContext, operationId: string): Promise<string | undefined> {
  if (operationId !== updateByIdOperation || ctx.options.stateless) return undefined;
  const subscription = await ensureSubscription(ctx);
  return 'reason' in subscription ? `no subscription to update: ${subscription.reason}` : undefined;
}

/**
 * Path parameters naming a record that exists, or why the run knows none: against a stateless
 * target the contract's examples (the mock answers its own examples); otherwise a record the
 * run created: a charge by a payment link (seed §4.1–4.2), any other `/things/{id}` by
 * `POST /things` (a webhook by `createWebhook`, D40, which the seed does not have), else none.
 */
export async function existingPathParams(ctx: RunContext, op: ContractOperation): Promise<{ params: Record<string, string> } | { reason: string }> {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  if (names.length === 0) return { params: {} };
  if (ctx.options.stateless) {
    const examples = pathParameterExamples(ctx.contract, op);
    const missing = names.find((name) => examples[name] === undefined);
    return missing ? { reason: `the contract gives no example of path parameter ${missing}` } : { params: examples };
  }
  if (names.length !== 1) return { reason: `no way to know valid values of ${names.join(', ')}` };
  const [name] = names as [string];
  // A charge is created by POST /charge/payment-link; a move (simulate-…) needs a fresh one,
  // since each move changes the state the next would start from (D39).
  if (op.path.startsWith('/charge/{')) {
    const charge = op.method === 'get' ? await ensureCharge(ctx) : await createRecord(ctx, 'createPaymentLink');
    return 'reason' in charge ? { reason: charge.reason } : { params: { [name]: charge.id } };
  }
  // Otherwise the record of `/things/{id}` is created by `POST /things`; a DELETE gets its own.
  const collection = op.path.slice(0, op.path.indexOf('/{'));
  const creator = listOperations(ctx.contract).find((o) => o.method === 'post' && o.path === collection);
  if (creator) {
    const record = op.method === 'delete' ? await createRecord(ctx, creator.operationId) : await ensureRecord(ctx, creator.operationId);
    return 'reason' in record ? { reason: record.reason } : { params: { [name]: record.id } };
  }
  return { reason: `no operation of the contract creates what ${op.path} reads, so the run knows no valid ${name}` };
}

/** A record created by `operationId` earlier in the run (any 2xx of it), else one created now. */
async function ensureRecord(ctx: RunContext, operationId: string): Promise<{ id: string } | { reason: string; exchange?: Exchange }> {
  const known = ctx.exchanges.filter((e) => e.operationId === operationId).flatMap((e) => idOf(e) ?? [])[0];
  return known ? { id: known } : createRecord(ctx, operationId);
}

/** A new record made with the operation's first valid body. */
async function createRecord(ctx: RunContext, operationId: string): Promise<{ id: string } | { reason: string; exchange?: Exchange }> {
  if (ctx.options.readOnly) return { reason: `no record to use: creating one needs a POST (--read-only)` };
  if (ctx.options.stateless) return { reason: 'the target keeps no records (--stateless)' };
  const body = validBodies(ctx, operationId)[0];
  if (!body) return { reason: `no valid ${operationId} body` };
  const exchange = await ctx.request(operationId, { body: body.body });
  const id = idOf(exchange);
  return id ? { id } : { reason: `creating the record with ${operationId} failed (${describeAnswer(exchange)})`, exchange };
}

/** Ids of the charges this run created (every 2xx payment-link exchange), oldest first. */
export function createdChargeIds(ctx: RunContext): string[] {
  return ctx.exchanges.filter((e) => e.operationId === 'createPaymentLink').flatMap((e) => idOf(e) ?? []);
}

/** A charge of the run: the first it created, else one created now with the first valid body. */
export async function ensureCharge(ctx: RunContext): Promise<{ id: string } | { reason: string; exchange?: Exchange }> {
  const known = createdChargeIds(ctx)[0];
  if (known) return { id: known };
  if (ctx.options.readOnly) return { reason: 'no charge to read: creating one needs a POST (--read-only)' };
  if (ctx.options.stateless) return { reason: 'the target keeps no charges (--stateless)' };
  const body = validBodies(ctx, 'createPaymentLink')[0];
  if (!body) return { reason: `no valid createPaymentLink body (${missingReason(ctx, 'productId')})` };
  const exchange = await ctx.request('createPaymentLink', { body: body.body });
  const id = idOf(exchange);
  return id ? { id } : { reason: `creating a charge failed (${describeAnswer(exchange)})`, exchange };
}

/** Why a fixture is missing, for skip reasons. */
export function missingReason(ctx: RunContext, fixture: string): string {
  return runData(ctx).missing.get(fixture) ?? (ctx.options.stateless ? 'no fixtures against a stateless target' : `fixture ${fixture} was not created`);
}

/** The id of the record a 2xx exchange created: the body's `id`, or its envelope's `data.id`. */
export function idOf(exchange: Exchange): string | undefined {
  const response = exchange.response;
  if (!response || response.status < 200 || response.status > 299) return undefined;
  const body = parseJson(response.body);
  if (!isPlainObject(body)) return undefined;
  if (typeof body.id === 'string') return body.id;
  return isPlainObject(body.data) && typeof body.data.id === 'string' ? body.data.id : undefined;
}

export function describeAnswer(exchange: Exchange): string {
  if (!exchange.response) return `no answer: ${exchange.error ?? 'unknown error'}`;
  const body = parseJson(exchange.response.body);
  const detail = isPlainObject(body) ? (body.detail ?? body.message ?? body.title) : undefined;
  return `${exchange.response.status}${typeof detail === 'string' ? `: ${detail}` : ''}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

interface Created {
  id: string;
  body: Record<string, unknown>;
  sent: Record<string, unknown>;
  companyId?: string;
}

function recordProduct(ctx: RunContext, product: Created): void {
  const price = typeof product.body.price === 'number' ? product.body.price : product.sent.price;
  if (typeof price === 'number') runData(ctx).prices.set(product.id, price);
  runData(ctx).companyId ??= product.companyId;
}

/** Sends one fixture body; a refusal is recorded as a failure of positive_data_acceptance on the operation. */
async function create(ctx: RunContext, operationId: string, body: Record<string, unknown> | undefined, fixture: string, init: RequestInit = {}): Promise<Created | undefined> {
  const state = runData(ctx);
  if (!body) {
    state.missing.set(fixture, `the contract has no request example of ${operationId}`);
    return undefined;
  }
  const exchange = await ctx.request(operationId, { ...init, body });
  const id = idOf(exchange);
  if (!id) {
    const reason = `creating the ${fixture} fixture through ${operationId} failed (${describeAnswer(exchange)})`;
    state.missing.set(fixture, reason);
    ctx.recorder.fail(operationId, 'positive_data_acceptance', `${reason}; the body is the contract's own example`, exchange);
    return undefined;
  }
  const response = JSON.parse(exchange.response!.body) as Record<string, unknown>;
  return { id, body: response, sent: body, ...(typeof response.companyId === 'string' ? { companyId: response.companyId } : {}) };
}

/**
 * The two products, from the contract's first createProduct example: the example itself as
 * the subscription product (`isSubscription: true`), and its required fields only as the
 * plain product (`isSubscription: false`). Both tagged with the run id.
 */
function productBodies(ctx: RunContext): { plain: Record<string, unknown>; subscription: Record<string, unknown> } | undefined {
  const info = requestBodyOf(ctx.contract, ctx.operation('createProduct'));
  const example = info?.examples[0]?.value;
  if (!info || !isPlainObject(example)) return undefined;
  const subscription = { ...structuredClone(example), isSubscription: true };
  const plain = structuredClone(example);
  stripOptional(ctx.contract, ctx.full.at(info.pointer), plain, plain, viewOf(ctx.contract, info.schema));
  plain.isSubscription = false;
  tagBody(ctx, plain);
  tagBody(ctx, subscription);
  return { plain, subscription };
}

function clientBody(ctx: RunContext): Record<string, unknown> | undefined {
  const example = requestBodyOf(ctx.contract, ctx.operation('createClient'))?.examples[0]?.value;
  if (!isPlainObject(example)) return undefined;
  const body = structuredClone(example);
  tagBody(ctx, body);
  return body;
}

import type { FixtureRecord, RequestInit, RunContext } from '../engine/context.js';
import type { Exchange } from '../engine/types.js';
import type { ContractOperation } from '../../lib/contract/bundled.js';
import { linkParameters } from '../../lib/contract/links.js';
import { forSecondCompany, validBodies, validBodyWith } from './bodies.js';
import { recordNoun, type FixtureSpec } from './relations.js';
import { isPlainObject } from './schema.js';
import { runData } from './state.js';

/**
 * The records a stateful run needs before its checks: every record a create of the contract
 * names in its body, as the contract's links say (relations.ts: a product for payment links
 * and orders, a subscription product for subscriptions, a client), and with a second key the
 * same records of the second company. Each is created through the API with the creating
 * operation's first valid body (a contract example made the run's own), with the values the
 * link asks for (`x-created-with`). A fixture that cannot be created is a failure of
 * `positive_data_acceptance` on its operation (a valid body refused), and stays missing, so
 * the checks that need it skip with the reason.
 *
 * A record only a change names (the subscription `updateSubscription` changes by its `id`) is
 * created when an operation first needs it (`prepareBodies`), or taken from the run's first
 * successful create of it (`registerCreated`).
 */
export async function createFixtures(ctx: RunContext): Promise<void> {
  const specs = ctx.contractView.upfrontFixtures;
  for (const spec of specs) await ensureFixture(ctx, spec, true);
  const secondKey = ctx.options.secondApiKey;
  if (secondKey) {
    const other = new Map<string, FixtureRecord>();
    ctx.fixtures.other = other;
    for (const spec of specs) {
      // The second company's record is the first's, naming the second company's records where it names any.
      const body = forSecondCompany(ctx, fixtureBody(ctx, spec));
      const made = await createFixture(ctx, spec, body, `other.${spec.key}`, true, { apiKey: secondKey });
      if ('id' in made) other.set(spec.key, made);
    }
  }
}

/**
 * A record `spec` describes, created now when the run has none yet, or why there is none.
 * `upfront`: a refusal is a failure of positive_data_acceptance (the body is a valid one).
 */
async function ensureFixture(ctx: RunContext, spec: FixtureSpec, upfront = false): Promise<FixtureRecord | { reason: string }> {
  const known = ctx.fixtures.own.get(spec.key);
  if (known) return known;
  const missing = runData(ctx).missing.get(spec.key);
  if (missing) return { reason: missing };
  if (ctx.options.readOnly) return { reason: `creating one needs a POST (--read-only)` };
  if (ctx.options.stateless) return { reason: 'the target keeps no records (--stateless)' };
  const making = inProgress(ctx);
  if (making.has(spec.key)) return { reason: `the contract's links make ${spec.key} name itself` };
  making.add(spec.key);
  try {
    // The records its own body names come first (a subscription's product and client).
    await prepareBodies(ctx, spec.source.operationId);
    const made = await createFixture(ctx, spec, fixtureBody(ctx, spec), spec.key, upfront);
    if ('id' in made) ctx.fixtures.own.set(spec.key, made);
    return made;
  } finally {
    making.delete(spec.key);
  }
}

const making = new WeakMap<RunContext, Set<string>>();
function inProgress(ctx: RunContext): Set<string> {
  const found = making.get(ctx) ?? new Set<string>();
  making.set(ctx, found);
  return found;
}

/** The body a fixture is created with: its source's first valid body with the values its link asks for (bodies.ts). */
function fixtureBody(ctx: RunContext, spec: FixtureSpec): unknown {
  return validBodyWith(ctx, spec.source.operationId, spec.createdWith);
}

/** Sends one fixture body; a refusal is remembered as why the fixture is missing (and, upfront, failed). */
async function createFixture(
  ctx: RunContext,
  spec: FixtureSpec,
  body: unknown,
  name: string,
  upfront: boolean,
  init: RequestInit = {},
): Promise<FixtureRecord | { reason: string }> {
  const state = runData(ctx);
  const operationId = spec.source.operationId;
  if (body === undefined) {
    const reason = `the contract has no valid request body of ${operationId}${Object.keys(spec.createdWith).length > 0 ? ` with ${JSON.stringify(spec.createdWith)}` : ''}`;
    state.missing.set(name, reason);
    return { reason };
  }
  const exchange = await ctx.request(operationId, { ...init, body });
  const id = idOf(exchange);
  if (!id) {
    const reason = `creating the ${name} fixture through ${operationId} failed (${describeAnswer(exchange)})`;
    state.missing.set(name, reason);
    if (upfront) ctx.recorder.fail(operationId, 'positive_data_acceptance', `${reason}; the body is the contract's own example`, exchange);
    return { reason };
  }
  const record = { id, body: parseJson(exchange.response!.body) };
  if (!init.apiKey) learnFrom(ctx, record, body);
  return record;
}

/** What a record of the run's company tells the data generators: its price (D29 sums), the company (D26). */
function learnFrom(ctx: RunContext, record: FixtureRecord, sent: unknown): void {
  const state = runData(ctx);
  const answered = isPlainObject(record.body) ? record.body : {};
  const price = typeof answered.price === 'number' ? answered.price : isPlainObject(sent) ? sent.price : undefined;
  if (typeof price === 'number') state.prices.set(record.id, price);
  if (typeof answered.companyId === 'string') state.companyId ??= answered.companyId;
}

/** The run's record that fills the field named `field` of `operationId`'s bodies (`productId` of a payment link's items …). */
export function fixtureFor(ctx: RunContext, operationId: string, field: string): FixtureRecord | undefined {
  const key = ctx.view(operationId).fixtureKeyOf(field);
  return key === undefined ? undefined : ctx.fixtures.own.get(key);
}

/**
 * Keeps a record a check created as the run's fixture of its kind when the run has none yet
 * and some request names such records (the first subscription the positive check creates is
 * the one the update bodies change).
 */
export function registerCreated(ctx: RunContext, operationId: string, exchange: Exchange): void {
  const id = idOf(exchange);
  if (!id || ctx.fixtures.own.has(operationId) || !ctx.contractView.isFixtureKey(operationId)) return;
  ctx.fixtures.own.set(operationId, { id, body: parseJson(exchange.response!.body) });
}

/**
 * Creates the records the bodies of an operation name and the run has not made yet, before
 * the bodies are built. Undefined when the bodies are ready, else why they cannot be: the
 * record a change names (`updateSubscription`'s `id`, D09) could not be made. A record a
 * create names only drops that field from the bodies (validBodies says which). Nothing to do
 * against a stateless target: its bodies are the contract's examples.
 */
export async function prepareBodies(ctx: RunContext, operationId: string): Promise<string | undefined> {
  if (ctx.options.stateless) return undefined;
  for (const ref of ctx.view(operationId).bodyReferences) {
    const made = await ensureFixture(ctx, ref.fixture);
    if ('reason' in made && ref.link.target.method !== 'post') return `no ${recordNoun(ref.link.source)} to change: ${made.reason}`;
  }
  return undefined;
}

/**
 * Path parameters naming a record that exists, or why the run knows none: against a stateless
 * target the contract's examples (the mock answers its own examples); otherwise a record the
 * run created through the operation the contract's links name as creating it (a payment link
 * is a charge read by `getCharge`, a registration is read, changed and deleted by its id …),
 * with the parameters the link's runtime expressions take from the create's answer.
 */
export async function existingPathParams(ctx: RunContext, op: ContractOperation): Promise<{ params: Record<string, string> } | { reason: string }> {
  const view = ctx.view(op);
  const names = view.pathParameters;
  if (names.length === 0) return { params: {} };
  if (ctx.options.stateless) {
    const examples = view.pathExamples;
    const missing = names.find((name) => examples[name] === undefined);
    return missing ? { reason: `the contract gives no example of path parameter ${missing}` } : { params: { ...examples } };
  }
  const link = view.pathLink;
  if (!link) return { reason: `no link of the contract names the operation that creates what ${op.path} names, so the run knows no valid ${names.join(', ')}` };
  // A read or an update may reuse a record; a delete or a move (simulate-…) changes the state
  // the next request would start from (D39), so it gets a record of its own.
  const reuse = op.method === 'get' || op.method === 'put' || op.method === 'patch';
  const earlier = reuse
    ? ctx.exchanges
        .filter((e) => e.operationId === link.source.operationId && idOf(e))
        .map((e) => linkParameters(link, parseJson(e.response!.body)))
        .find(Boolean)
    : undefined;
  if (earlier) return { params: earlier };
  const record = await createRecord(ctx, link.source.operationId);
  if ('reason' in record) return { reason: record.reason };
  const params = record.exchange ? linkParameters(link, parseJson(record.exchange.response!.body)) : undefined;
  return params
    ? { params }
    : { reason: `the answer of ${link.source.operationId} lacks what link ${link.name} names ${op.operationId}'s ${names.join(', ')} by` };
}

/** A new record made with the operation's first valid body. */
async function createRecord(ctx: RunContext, operationId: string): Promise<{ id: string; exchange?: Exchange } | { reason: string; exchange?: Exchange }> {
  if (ctx.options.readOnly) return { reason: `no record to use: creating one needs a POST (--read-only)` };
  if (ctx.options.stateless) return { reason: 'the target keeps no records (--stateless)' };
  const body = validBodies(ctx, operationId)[0];
  if (!body) return { reason: `no valid ${operationId} body` };
  const exchange = await ctx.request(operationId, { body: body.body });
  const id = idOf(exchange);
  return id ? { id, exchange } : { reason: `creating the record with ${operationId} failed (${describeAnswer(exchange)})`, exchange };
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

import { resolvePointer, type JsonObject } from '../../lib/contract/bundled.js';
import { resolveLinkValue } from '../../lib/contract/links.js';
import { decisionsOfErrors, unnamedDecision } from '../checks/responses.js';
import type { RunContext } from '../engine/context.js';
import type { OperationView, RequestBody } from './contract-view.js';
import { isPlainObject, keywordOf, replaceValues } from './schema.js';
import { forEachAt, pathText } from './relations.js';
import { runData } from './state.js';
import { tagFormats } from './templates.js';
import { runWebhookUrl } from './webhook-url.js';

/**
 * Valid request bodies of an operation, for the positive check and every check that needs
 * one (`validBodies(ctx, op)[0]` is the contract's first example, made the run's own).
 *
 * Against a stateful target each body refers to records the run created (`ctx.fixtures`,
 * see fixtures.ts), is tagged with the run id (names, `externalId`, `sku`), creates
 * charges with `devMode: true`, and keeps the amounts of the domain right. Against the
 * stateless mock the contract's examples are returned unchanged (their ids are the
 * contract's), followed by the generated variants.
 *
 * The bodies are the forms of the body the contract gives (templates.ts: its examples, each
 * with only the fields it needs, with every optional field, enumerated values varied, numbers
 * written the Brazilian way), worked out once per run and operation (the operation's view,
 * contract-view.ts), each made the run's own here (`ownBody`) every time bodies are asked for:
 * the records, company and prices it names are what the run knows by then. Every body is validated against the full contract; one that does not validate is dropped
 * (and named in `dropped`), and duplicates are removed. In the `seed` profile a body the seed
 * view accepts, and that the full contract refuses only for ids the target itself gave the
 * run, is kept after the others, marked with the decision it departs from: a target may write
 * its ids in forms the seed does not fix (a UUID `productId`, D13), and dropping such a body
 * would leave its checks unexercised on a service that is right by the seed.
 *
 * The fields the contract's links fill from a created record (relations.ts) carry the run's
 * record: `items[].productId` of a payment link its product, `id` of `updateSubscription` the
 * subscription it changes (D09). Call `prepareBodies(ctx, op)` (fixtures.ts) first; a field
 * whose record the run has not made is removed, and a body that is no longer valid dropped.
 */
export interface ValidBody {
  name: string;
  body: unknown;
  /**
   * Set when the body omits fields whose optionality is a decision of the contract
   * (a decided `required` / `allOf` / `minProperties` …), or writes values in a form only a
   * decision admits (D46's punctuated numbers): a target that refuses it departs from that
   * decision only, not from the seed.
   */
  decision?: string;
}

export interface ValidBodies {
  bodies: ValidBody[];
  /** Bodies (or fields) left out, with the reason: a fixture missing, a body the contract refuses. */
  dropped: string[];
}

/**
 * The request field that makes a charge a development charge (seed §4.1 "devMode: development
 * mode"). Issue 4: every charge the suite creates has it `true`, in every body it sends.
 */
export const devModeField = 'devMode';

export function validBodies(ctx: RunContext, operationId: string): ValidBody[] {
  return validBodiesWithNotes(ctx, operationId).bodies;
}

export function validBodiesWithNotes(ctx: RunContext, operationId: string): ValidBodies {
  const view = ctx.view(operationId);
  const requestBody = view.requestBody;
  if (!requestBody) return { bodies: [], dropped: [] };
  const dropped: string[] = [];
  // Against the stateless mock the contract's examples are sent as they are (their ids are the contract's).
  const candidates: ValidBody[] = view.templates.map(({ name, body, decision, example }) => ({
    name,
    body: example && ctx.options.stateless ? structuredClone(body) : ownBody(ctx, view, body, name, dropped),
    ...(decision ? { decision } : {}),
  }));

  const bodies: ValidBody[] = [];
  const seedOnly: ValidBody[] = [];
  const seen = new Set<string>();
  // Two bodies that differ only in the numbers of their tags (tagBody) are the same body.
  const tagNumber = new RegExp(`(${ctx.runId.replace(/[^\w]/g, '\\$&')})-\\d+`, 'g');
  for (const candidate of candidates) {
    if (candidate.body === undefined) continue;
    const key = JSON.stringify(candidate.body).replace(tagNumber, '$1');
    if (seen.has(key)) continue;
    seen.add(key);
    const verdict = judgeBody(ctx, requestBody.pointer, candidate.body);
    if (!verdict.valid) dropped.push(`${candidate.name}: the contract refuses it (${verdict.errors})`);
    else if (verdict.targetIds) seedOnly.push({ ...candidate, decision: candidate.decision ?? verdict.targetIds });
    else bodies.push(candidate);
  }
  return { bodies: [...bodies, ...seedOnly], dropped: [...new Set(dropped)] };
}

/**
 * The first valid body of an operation that stays valid with `values` set on it (the values a
 * link asks a record to be created with, `x-created-with`), judged as validBodies judges: a
 * body naming ids the target gave the run in its own forms (seed profile) is one too.
 * Undefined when none does.
 */
export function validBodyWith(ctx: RunContext, operationId: string, values: JsonObject): unknown {
  const requestBody = ctx.view(operationId).requestBody;
  if (!requestBody) return undefined;
  for (const { body } of validBodies(ctx, operationId)) {
    const made = isPlainObject(body) ? { ...body, ...structuredClone(values) } : body;
    if (judgeBody(ctx, requestBody.pointer, made).valid) return made;
  }
  return undefined;
}

/**
 * A body of the run's company made the second company's (`--second-api-key`): every record of
 * the first company it names replaced by the second company's of the same kind (fixture key),
 * where the run has one; but the record of fixture `keep`, left the first company's (the one a
 * tenant check names on purpose).
 */
export function forSecondCompany(ctx: RunContext, body: unknown, keep?: string): unknown {
  const other = ctx.fixtures.other;
  const toSecond = new Map([...ctx.fixtures.own].flatMap(([key, own]) => (key !== keep && other?.get(key) ? [[own.id, other.get(key)!.id] as const] : [])));
  return replaceValues(body, toSecond);
}

/**
 * Whether a request body may be sent as a valid one: valid under the full contract; or, in the
 * `seed` profile against a stateful target, valid under the seed with the full contract refusing
 * only ids the target itself gave the run (a UUID `productId`, D13: whatever their shape, they
 * name the run's records). `targetIds` is then the decision the body departs from.
 */
export function judgeBody(ctx: RunContext, pointer: string, body: unknown): { valid: true; targetIds?: string } | { valid: false; errors: string } {
  const validate = ctx.full.at(pointer);
  if (validate(body)) return { valid: true };
  const errors = [...(validate.errors ?? [])];
  const seedValid = ctx.options.profile === 'seed' && !ctx.options.stateless && ctx.seed.at(pointer)(body);
  if (seedValid) {
    const targetIds = idsFromTarget(ctx);
    if (errors.every((e) => targetIds.has(resolvePointer(body, e.instancePath))))
      return { valid: true, targetIds: decisionsOfErrors(errors, { contract: ctx.contract, pointer })[0] ?? unnamedDecision };
  }
  return { valid: false, errors: errors.map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`).join('; ') };
}

/** The ids of the records the run created, as the target wrote them. */
function idsFromTarget(ctx: RunContext): Set<unknown> {
  return new Set([...[...ctx.fixtures.own.values()].map((record) => record.id), runData(ctx).companyId].filter((id) => typeof id === 'string'));
}

/**
 * The one place a body is made the run's own: a copy of a form the contract gives (templates.ts)
 * with the ids of the run's records (the fields the contract's links fill, its company), run-id
 * tags, development mode and amounts that add up. Against the stateless mock ids stay as the
 * contract shows them. What had to be left out is noted in `dropped`.
 */
function ownBody(ctx: RunContext, view: OperationView, template: unknown, name: string, dropped: string[]): unknown {
  const body = structuredClone(template);
  if (!ctx.options.stateless) substituteIds(ctx, view, body, name, dropped);
  tagBody(ctx, body);
  // Every charge the suite creates is a development charge: it moves no money.
  if (isPlainObject(body) && view.requestBody?.properties.has(devModeField)) body[devModeField] = true;
  applyDomainRules(ctx, view.requestBody, body);
  return body;
}

/**
 * Seed §2.4–2.8, D26: a `companyId` in a request is the caller's company, which no operation
 * creates; the run learns it from the records it created.
 */
const companyField = 'companyId';

/**
 * Replaces the contract's example ids by the records this run created: each field a link of
 * the contract fills gets the value the link's expression takes from the record's answer (a
 * field whose record is missing is removed); a `companyId` gets the run's company.
 */
function substituteIds(ctx: RunContext, view: OperationView, body: unknown, name: string, dropped: string[]): void {
  const state = runData(ctx);
  const why = (key: string) => (state.missing.get(key) ? ` (${state.missing.get(key)})` : '');
  for (const { field, fixture } of view.bodyReferences) {
    const record = ctx.fixtures.own.get(fixture.key);
    const value = record ? resolveLinkValue(`{${field.expression}}`, record.body) : undefined;
    forEachAt(body, field.path, (holder, key) => {
      if (typeof holder[key] !== 'string') return;
      if (value !== undefined) holder[key] = value;
      else {
        delete holder[key];
        const missing = record ? `the ${fixture.key} record's answer has nothing at ${field.expression}` : `no ${fixture.key} fixture${why(fixture.key)}`;
        dropped.push(`${name}: ${pathText(field.path)} removed, ${missing}`);
      }
    });
  }
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    if (!isPlainObject(node)) return;
    for (const key of Object.keys(node)) {
      if (key !== companyField || typeof node[key] !== 'string') visit(node[key]);
      else if (state.companyId !== undefined) node[key] = state.companyId;
      else {
        delete node[key];
        dropped.push(`${name}: ${key} removed, the run knows no company of its own yet${why(companyField)}`);
      }
    }
  };
  visit(body);
}

/** Tags what the run creates with its run id (templates.ts `tagFormats`), so the records can be found (and cleaned up) later. */
function tagBody(ctx: RunContext, body: unknown): void {
  const tag = ctx.runId;
  const state = runData(ctx);
  const next = () => ++state.tagged;
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    if (!isPlainObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      const format = tagFormats.get(key);
      if (typeof value === 'string' && !value.includes(tag)) {
        if (format) node[key] = format(value, tag, next);
      } else visit(value);
    }
  };
  visit(body);
}

/**
 * Seed §2.10, §4.10: a request's top-level `url` is the endpoint a webhook registration sends
 * events to (no other request of the seed has a field of that name).
 */
const eventsEndpointField = 'url';

const cents = (reais: number): number => Math.round(reais * 100);

/**
 * `body` (a copy) made valid in meaning again after values were drawn into it (checks/generated.ts):
 * an order's drawn discount and shipping cost with its subtotal and total made to add up (D29).
 */
export function withDomainRules(ctx: RunContext, operationId: string, body: unknown): unknown {
  const copy = structuredClone(body);
  applyDomainRules(ctx, ctx.view(operationId).requestBody, copy);
  return copy;
}

/** Rules of the domain a schema cannot express, so that a generated body is valid in meaning too. */
function applyDomainRules(ctx: RunContext, requestBody: RequestBody | undefined, body: unknown): void {
  if (!isPlainObject(body)) return;
  const prices = runData(ctx).prices;
  const itemsCents = (): number | undefined => {
    if (!Array.isArray(body.items)) return undefined;
    let sum = 0;
    for (const item of body.items) {
      const price = isPlainObject(item) && typeof item.productId === 'string' ? prices.get(item.productId) : undefined;
      if (price === undefined || !isPlainObject(item) || typeof item.quantity !== 'number') return undefined;
      sum += cents(price) * item.quantity;
    }
    return sum;
  };
  if (typeof body.subtotal === 'number' && typeof body.total === 'number') {
    // An order's amounts (seed §4.8, D29): with items, subtotal = Σ price × quantity; always total = subtotal − discount + shippingCost, to the cent.
    const fromItems = itemsCents();
    const subtotal = fromItems ?? cents(body.subtotal);
    body.subtotal = subtotal / 100;
    const discount = typeof body.discount === 'number' ? Math.min(cents(body.discount), subtotal) : 0;
    if (typeof body.discount === 'number') body.discount = discount / 100;
    const shipping = typeof body.shippingCost === 'number' ? cents(body.shippingCost) : 0;
    body.total = (subtotal - discount + shipping) / 100;
  }
  if (typeof body[eventsEndpointField] === 'string') {
    // Events of a registration the run creates or changes must not leave for the example's host, nor
    // for anyone's: a `.invalid` name never resolves (RFC 6761 §6.4), and being https to a
    // name (not a private address) a production deployment accepts it too (D40).
    body[eventsEndpointField] = runWebhookUrl(ctx.options, ctx.runId);
  }
  if (body.total === undefined && Array.isArray(body.items)) {
    // D18 (seed §4.1): a payment link's total computed from the items must still reach the minimum of `total`.
    const totalView = requestBody?.properties.get('total');
    const minimum = totalView ? keywordOf(totalView, 'minimum')?.value : undefined;
    const sum = itemsCents();
    const first = body.items[0];
    if (typeof minimum === 'number' && sum !== undefined && sum < minimum && isPlainObject(first) && typeof first.productId === 'string') {
      const unit = cents(prices.get(first.productId) ?? 0);
      if (unit > 0) first.quantity = Number(first.quantity) + Math.ceil((minimum - sum) / unit);
    }
  }
}

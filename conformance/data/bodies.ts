import type { ValidateFunction } from 'ajv';
import { resolvePointer, type JsonObject } from '../../lib/contract/bundled.js';
import { resolveLinkValue } from '../../lib/contract/links.js';
import { decisionsOfErrors, unnamedDecision } from '../checks/responses.js';
import type { RunContext } from '../engine/context.js';
import { isDeprecated, isPlainObject, itemsOf, keywordOf, propertiesOf, requestBodyOf, requiredOf, sampleValue, viewOf, type SchemaView } from './schema.js';
import { bodyReferences, forEachAt, pathText } from './relations.js';
import { runData } from './state.js';
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
 * The bodies, in order:
 * 1. every request example of the operation in the contract;
 * 2. each example with only the fields it needs (optional fields dropped while the body
 *    stays valid, so a schema `anyOf` such as a payment link's total-or-items keeps one);
 * 3. each example with every optional field the schema offers a value for added (from the
 *    schema's own `examples` / `enum` / `default`), while the body stays valid;
 * 4. variants of (3) with every enumerated value moved 1, 2 … places along its `enum`, until
 *    every value of the longest enum has been sent once.
 * Every body is validated against the full contract; one that does not validate is dropped
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
  const op = ctx.operation(operationId);
  const info = requestBodyOf(ctx.contract, op);
  if (!info) return { bodies: [], dropped: [] };
  const validate = ctx.full.at(info.pointer);
  const view = viewOf(ctx.contract, info.schema);
  const stateless = ctx.options.stateless;
  const dropped: string[] = [];
  const candidates: ValidBody[] = [];
  const finish = (body: unknown, name: string) => finishBody(ctx, operationId, view, structuredClone(body), name, dropped);

  for (const example of info.examples) {
    candidates.push({ name: `example ${example.name}`, body: stateless ? structuredClone(example.value) : finish(example.value, `example ${example.name}`) });
  }
  const optionalityDecision = ['required', 'allOf', 'anyOf', 'oneOf', 'minProperties', 'dependentSchemas']
    .map((k) => keywordOf(view, k)?.decision)
    .find(Boolean);
  for (const example of info.examples) {
    const minimal = structuredClone(example.value);
    stripOptional(ctx.contract, validate, minimal, minimal, view);
    // A record the run creates must carry the run id even in its smallest form (issue 4): the
    // example's top-level tag fields stay, so a minimal payment link or order is still findable.
    if (isPlainObject(example.value) && isPlainObject(minimal)) {
      for (const key of tagFormats.keys()) if (minimal[key] === undefined && typeof example.value[key] === 'string') minimal[key] = example.value[key];
    }
    const name = `example ${example.name}, required fields only`;
    candidates.push({ name, body: finish(minimal, name), ...(optionalityDecision ? { decision: optionalityDecision } : {}) });
  }
  const filled: unknown[] = [];
  for (const example of info.examples) {
    const full = structuredClone(example.value);
    fillOptional(ctx.contract, validate, full, full, view);
    filled.push(full);
    const name = `example ${example.name}, every optional field`;
    candidates.push({ name, body: finish(full, name) });
  }
  // Every value of every enumerated field is sent once: as many shifts as the longest enum has other values.
  const shifts = filled[0] === undefined ? 0 : longestEnum(ctx.contract, filled[0], view) - 1;
  for (let k = 1; k <= shifts; k++) {
    const name = `every optional field, enumerated values shifted by ${k}`;
    candidates.push({ name, body: finish(shiftEnums(ctx.contract, filled[0], view, k), name) });
  }

  if (filled[0] !== undefined) {
    // D46: the same body with every CPF/CNPJ, phone and CEP written as Brazilian forms write them.
    const written = writtenTheBrazilianWay(ctx.contract, filled[0], view);
    const name = 'every optional field, numbers written the Brazilian way';
    if (written) candidates.push({ name, body: finish(written.body, name), ...(written.decision ? { decision: written.decision } : {}) });
  }

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
    const verdict = judgeBody(ctx, info.pointer, candidate.body);
    if (!verdict.valid) dropped.push(`${candidate.name}: the contract refuses it (${verdict.errors})`);
    else if (verdict.targetIds) seedOnly.push({ ...candidate, decision: candidate.decision ?? verdict.targetIds });
    else bodies.push(candidate);
  }
  return { bodies: [...bodies, ...seedOnly], dropped: [...new Set(dropped)] };
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
 * Makes a body the run's own: ids of the run's records, run-id tags, development mode and
 * amounts that add up. Against the stateless mock ids stay as the contract shows them.
 */
function finishBody(ctx: RunContext, operationId: string, view: SchemaView, body: unknown, name: string, dropped: string[]): unknown {
  if (!ctx.options.stateless) substituteIds(ctx, operationId, body, name, dropped);
  tagBody(ctx, body);
  // Every charge the suite creates is a development charge: it moves no money.
  if (isPlainObject(body) && propertiesOf(ctx.contract, view).has(devModeField)) body[devModeField] = true;
  applyDomainRules(ctx, view, body);
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
function substituteIds(ctx: RunContext, operationId: string, body: unknown, name: string, dropped: string[]): void {
  const state = runData(ctx);
  const why = (key: string) => (state.missing.get(key) ? ` (${state.missing.get(key)})` : '');
  for (const { field, fixture } of bodyReferences(ctx.contract, operationId)) {
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

/**
 * The fields that carry the run id, and how (issue 4: "tagged with a run id (names,
 * `externalId`)"; a product's `sku` and `displayId` too). The identifier-like ones also get a
 * number of their own: a service may hold them unique per company, and the run sends the same
 * example many times, so a correct service could otherwise refuse a valid body as a duplicate.
 */
const tagFormats = new Map<string, (value: string, tag: string, next: () => number) => string>([
  ['name', (value, tag) => `${value} ${tag}`],
  ['externalId', (value, tag, next) => `${value}-${tag}-${next()}`],
  ['sku', (value, tag, next) => `${value}-${tag}-${next()}`],
  ['displayId', (value, tag, next) => `${value}-${tag}-${next()}`],
]);

/** Tags what the run creates with its run id, so the records can be found (and cleaned up) later. */
export function tagBody(ctx: RunContext, body: unknown): void {
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

/** Rules of the domain a schema cannot express, so that a generated body is valid in meaning too. */
function applyDomainRules(ctx: RunContext, view: SchemaView, body: unknown): void {
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
    const totalView = propertiesOf(ctx.contract, view).get('total');
    const minimum = totalView ? keywordOf(totalView, 'minimum')?.value : undefined;
    const sum = itemsCents();
    const first = body.items[0];
    if (typeof minimum === 'number' && sum !== undefined && sum < minimum && isPlainObject(first) && typeof first.productId === 'string') {
      const unit = cents(prices.get(first.productId) ?? 0);
      if (unit > 0) first.quantity = Number(first.quantity) + Math.ceil((minimum - sum) / unit);
    }
  }
}

/** Drops every optional property (at every level present) whose removal keeps the whole body valid. */
export function stripOptional(doc: JsonObject, validate: ValidateFunction, root: unknown, node: unknown, view: SchemaView): void {
  if (Array.isArray(node)) {
    const items = itemsOf(doc, view);
    if (items)
      node.forEach((item) => {
        stripOptional(doc, validate, root, item, items);
      });
    return;
  }
  if (!isPlainObject(node)) return;
  const required = requiredOf(view);
  for (const key of Object.keys(node)) {
    if (required.has(key)) continue;
    const saved = node[key];
    delete node[key];
    if (!validate(root)) node[key] = saved;
  }
  const properties = propertiesOf(doc, view);
  for (const [key, value] of Object.entries(node)) {
    const property = properties.get(key);
    if (property) stripOptional(doc, validate, root, value, property);
  }
}

/** Adds every absent, not deprecated property the schema offers a value for, while the whole body stays valid. */
export function fillOptional(doc: JsonObject, validate: ValidateFunction, root: unknown, node: unknown, view: SchemaView): void {
  if (Array.isArray(node)) {
    const items = itemsOf(doc, view);
    if (items)
      node.forEach((item) => {
        fillOptional(doc, validate, root, item, items);
      });
    return;
  }
  if (!isPlainObject(node)) return;
  const properties = propertiesOf(doc, view);
  for (const [key, property] of properties) {
    if (node[key] !== undefined || isDeprecated(property)) continue;
    const value = sampleValue(doc, property);
    if (value === undefined) continue;
    node[key] = value;
    if (!validate(root)) delete node[key];
  }
  for (const [key, value] of Object.entries(node)) {
    const property = properties.get(key);
    if (property) fillOptional(doc, validate, root, value, property);
  }
}

/** A copy of `body` with each value that is neither an array nor an object replaced by `leaf(value, its schema)`. */
function mapLeaves(doc: JsonObject, body: unknown, view: SchemaView, leaf: (node: unknown, nodeView: SchemaView) => unknown): unknown {
  const visit = (node: unknown, nodeView: SchemaView): unknown => {
    if (Array.isArray(node)) {
      const items = itemsOf(doc, nodeView);
      return items ? node.map((item) => visit(item, items)) : node;
    }
    if (isPlainObject(node)) {
      const properties = propertiesOf(doc, nodeView);
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, properties.has(key) ? visit(value, properties.get(key)!) : value]));
    }
    return leaf(node, nodeView);
  };
  return visit(structuredClone(body), view);
}

/** The length of the longest `enum` among the values of `body` (0 when none is enumerated). */
function longestEnum(doc: JsonObject, body: unknown, view: SchemaView): number {
  let longest = 0;
  mapLeaves(doc, body, view, (node, nodeView) => {
    const values = keywordOf(nodeView, 'enum')?.value;
    if (Array.isArray(values) && values.includes(node)) longest = Math.max(longest, values.length);
    return node;
  });
  return longest;
}

/** A copy with every enumerated string moved `k` places along its `enum`. */
function shiftEnums(doc: JsonObject, body: unknown, view: SchemaView, k: number): unknown {
  return mapLeaves(doc, body, view, (node, nodeView) => {
    const values = keywordOf(nodeView, 'enum')?.value;
    return Array.isArray(values) && values.length > 1 && values.includes(node) ? values[(values.indexOf(node) + k) % values.length] : node;
  });
}

/**
 * The usual Brazilian masks of the formats whose values a service stores as digits (D46):
 * CPF `000.000.000-00`, CNPJ `00.000.000/0000-00`, phone `+55 (00) 00000-0000`, CEP `00000-000`.
 */
const brazilianMasks: Record<string, (digits: string) => string | undefined> = {
  'cpf-cnpj': (d) =>
    /^\d{11}$/.test(d)
      ? `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`
      : /^\d{14}$/.test(d)
        ? `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`
        : undefined,
  'phone-br': (d) => (/^\d{10,11}$/.test(d) ? `+55 (${d.slice(0, 2)}) ${d.slice(2, -4)}-${d.slice(-4)}` : undefined),
  cep: (d) => (/^\d{8}$/.test(d) ? `${d.slice(0, 5)}-${d.slice(5)}` : undefined),
};

/**
 * A copy of `body` with every value of a masked format written with its mask, and the decision
 * that admits the masked form (the one the request pattern rests on); undefined when the body
 * has no such value.
 */
function writtenTheBrazilianWay(doc: JsonObject, body: unknown, view: SchemaView): { body: unknown; decision?: string } | undefined {
  let decision: string | undefined;
  let changed = false;
  const written = mapLeaves(doc, body, view, (node, nodeView) => {
    const format = keywordOf(nodeView, 'format')?.value;
    const masked = typeof node === 'string' && typeof format === 'string' ? brazilianMasks[format]?.(node) : undefined;
    if (masked === undefined) return node;
    changed = true;
    decision ??= keywordOf(nodeView, 'pattern')?.decision;
    return masked;
  });
  return changed ? { body: written, ...(decision ? { decision } : {}) } : undefined;
}

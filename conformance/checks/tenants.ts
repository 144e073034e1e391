/**
 * tenant_isolation: what one company (the run's API key) created is invisible and unusable to
 * another (`--second-api-key`). The seed's service serves companies: a charge is read "by its
 * identifier" within a company, `GET /client` lists "all clients of the company".
 *
 * Which operations are tried, and with which records, is the contract's links
 * (lib/contract/links.ts, conformance/data/relations.ts), so an operation the contract links is
 * tried with no change here:
 *
 * - a `read` link (`createPaymentLink` → `getCharge`): the first company's record read with the
 *   second key must not be answered 2xx (a failure); that the answer is `404`, as for an unknown
 *   id, is D27 (the contract marks it on the path parameter), so another refusal is information
 *   in the `seed` profile;
 * - a `list` link (`createClient` → `listClients`): each company's list holds only its own
 *   records (listHoldsOnlyOwn): none shows another `companyId` than the caller's (learnt from its
 *   create answers and from the records of its own it lists), whichever company that is; and none
 *   is a record that no request of the caller made during the run and that was not listed before
 *   the run created anything (the baseline, `before`). That rule assumes no one else creates such
 *   records for the company while the run goes, and says so. The first company's list is judged
 *   with one key too; with a second key its list is judged the same way, so the first company's
 *   records never appear there;
 * - a `use` link (`createProduct` → `createPaymentLink` fills `items[].productId`): a request of
 *   the second company naming the first company's record is refused with a 4xx; the same request
 *   with the second company's own record is sent as a control, so that a refusal for another
 *   reason proves nothing.
 *
 * Each control that would make a pass meaningless (the second key refused everywhere, the
 * first company unable to read its own record) turns the check into a skip with the reason;
 * so does one link of an operation that proves nothing while the others pass.
 */
import { idOf } from '../data/fixtures.js';
import { forSecondCompany, validBodies } from '../data/bodies.js';
import type { ContractView } from '../data/contract-view.js';
import { forEachAt, isKeyOf, pathText, recordNoun, type BodyReference } from '../data/relations.js';
import { replaceValues } from '../data/schema.js';
import { RunContext } from '../engine/context.js';
import { keyProbeOperation } from '../engine/key-check.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import { deref, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { linkParameters, type ContractLink } from '../../lib/contract/links.js';
import { contractNormaliser, type Normaliser } from '../../lib/contract/normalise.js';
import { otherNames } from './round-trip.js';
import {
  answered,
  containsValue,
  isClientError,
  isObject,
  isSuccess,
  jsonOf,
  noSecondKeyReason,
  sameValue,
  skipAll,
  statefulSkipReason,
  successSchema,
} from './stateful.js';

const check = 'tenant_isolation' as const;

/** Seed §2.2, §2.4: records are named by `id`. */
const identity = 'id';

/** Seed §2.4: a listed client names its company in `companyId` (so do the create answers, seed §2.4–2.10). */
const companyField = 'companyId';

/** RFC 9110 §15.5.5: the answer for a resource the caller cannot see, as for one that does not exist (D27). */
const notFound = 404;

/** The operations this check tries, as the contract links them. */
export function tenantOperations(contract: ContractView): string[] {
  const targets = [...contract.linksWith('read'), ...contract.linksWith('list')].map((link) => link.target.operationId);
  return [...new Set([...targets, ...contract.referencesWith('use').map((ref) => ref.link.target.operationId)])];
}

/** One finding of an operation, or why a part of it proves nothing. */
type Outcome = { pass: boolean; message: string; decision?: string | undefined; exchange?: Exchange } | { skip: string };

export const tenantCheck: CheckModule = {
  checks: [check],
  before: takeListBaselines,
  async run(ctx) {
    const covered = tenantOperations(ctx.contractView);
    const reason = statefulSkipReason(ctx);
    if (reason) {
      skipAll(ctx, covered, check, reason);
      return;
    }
    if (!covered.some((op) => ctx.covers(op))) return;
    let secondKey = ctx.options.secondApiKey;
    let noSecond = secondKey ? undefined : noSecondKeyReason;
    // The second key must work at all, or every refusal below would be about the key.
    const probe = keyProbeOperation(ctx.contract);
    if (probe && secondKey) {
      const accepted = await ctx.request(probe, { apiKey: secondKey });
      if (!isSuccess(accepted)) {
        noSecond = `the second API key is not accepted: ${probe.method.toUpperCase()} ${probe.path} with it ${answered(accepted)}`;
        secondKey = undefined;
      }
    }
    const outcomes = new Map<string, Outcome[]>();
    const add = (opId: string, outcome: Outcome) => outcomes.set(opId, [...(outcomes.get(opId) ?? []), outcome]);
    // A list holds only the caller's records: judged with the run's key alone too.
    for (const link of ctx.contractView.linksWith('list'))
      if (ctx.covers(link.target.operationId)) for (const o of await listsStayApart(ctx, secondKey, link)) add(link.target.operationId, o);
    if (!secondKey) {
      const why = noSecond ?? noSecondKeyReason;
      for (const opId of outcomes.keys()) add(opId, { skip: why });
      skipAll(
        ctx,
        covered.filter((op) => !outcomes.has(op)),
        check,
        why,
      );
    } else {
      for (const link of ctx.contractView.linksWith('read'))
        if (ctx.covers(link.target.operationId)) add(link.target.operationId, await recordStaysHidden(ctx, secondKey, link));
      for (const ref of ctx.contractView.referencesWith('use'))
        if (ctx.covers(ref.link.target.operationId)) add(ref.link.target.operationId, await recordStaysOwn(ctx, secondKey, ref));
    }
    for (const [opId, list] of outcomes) report(ctx, opId, list);
  },
};

/** Before the run creates anything: what each key's lists hold already (the baseline of listHoldsOnlyOwn). */
export async function takeListBaselines(ctx: RunContext): Promise<void> {
  if (statefulSkipReason(ctx)) return;
  const taken = new Map<string, Baseline>();
  baselines.set(ctx, taken);
  for (const listOp of new Set(ctx.contractView.linksWith('list').map((link) => link.target))) {
    if (!ctx.covers(listOp.operationId)) continue;
    for (const who of keysOf(ctx)) {
      const list = await ctx.request(listOp, { apiKey: who.key });
      const entries = jsonOf(list);
      taken.set(
        baselineKey(listOp, who.of),
        isSuccess(list) && Array.isArray(entries)
          ? { ids: new Set(entries.flatMap((e) => (isObject(e) && typeof e[identity] === 'string' ? [e[identity]] : []))) }
          : {
              why: `${listOp.method.toUpperCase()} ${listOp.path} ${answered(list)}${isSuccess(list) ? ' without an array' : ''} before the run created anything`,
            },
      );
    }
  }
}

/** A failure counts whatever else happened; otherwise a part that proves nothing makes the whole a skip. */
function report(ctx: RunContext, opId: string, outcomes: Outcome[]): void {
  const judged = outcomes.filter((o) => 'pass' in o);
  const skipped = outcomes.flatMap((o) => ('skip' in o ? [o.skip] : []));
  if (skipped.length > 0 && judged.every((o) => o.pass)) {
    ctx.recorder.skip(opId, check, skipped.join('; '));
    return;
  }
  for (const o of judged) ctx.judge(opId, check, o.pass, o.message, { decision: o.decision, exchange: o.exchange });
}

/** Creates a record with the run's key and the first valid body of `operationId`; its id and answer, or why there is none. */
async function createRecord(ctx: RunContext, operationId: string): Promise<{ id?: string; why?: string; exchange?: Exchange }> {
  const valid = validBodies(ctx, operationId)[0];
  if (!valid) return { why: `no valid request body for ${operationId}` };
  const exchange = await ctx.request(operationId, { body: valid.body });
  const id = idOf(exchange);
  if (id === undefined)
    return { why: `creating one with the first key ${answered(exchange)}${isSuccess(exchange) ? ` without an ${identity}` : ''}`, exchange };
  return { id, exchange };
}

/** The records of `source` the run keeps as fixtures of a company (relations.ts). */
function fixturesOf(records: ReadonlyMap<string, { id: string }> | undefined, source: ContractOperation): string[] {
  return [...(records ?? [])].filter(([key]) => isKeyOf(key, source)).map(([, record]) => record.id);
}

async function listsStayApart(ctx: RunContext, secondKey: string | undefined, link: ContractLink): Promise<Outcome[]> {
  const noun = recordNoun(link.source);
  // A record of the first company the second company's list must not show, and the first company's own must.
  const created = await createRecord(ctx, link.source.operationId);
  const firstIds = [...new Set([created.id, ...fixturesOf(ctx.fixtures.own, link.source)])].filter((id): id is string => typeof id === 'string');
  const outcomes = await listHoldsOnlyOwn(ctx, link, 'first');
  if (!secondKey) return outcomes;
  if (firstIds.length === 0) outcomes.push({ skip: `the first company has no ${noun} to look for: ${created.why ?? 'none was created'}` });
  outcomes.push(...(await listHoldsOnlyOwn(ctx, link, 'second')));
  return outcomes;
}

/** A key of the run: whose (`first`, `second`) and its value. */
interface KeyOf {
  of: 'first' | 'second';
  key: string;
}

function keysOf(ctx: RunContext): KeyOf[] {
  const keys: KeyOf[] = [{ of: 'first', key: ctx.options.apiKey }];
  if (ctx.options.secondApiKey) keys.push({ of: 'second', key: ctx.options.secondApiKey });
  return keys;
}

/** The ids a list held before the run created anything, or why there are none. */
type Baseline = { ids: ReadonlySet<string> } | { why: string };
const baselines = new WeakMap<RunContext, Map<string, Baseline>>();
const baselineKey = (listOp: ContractOperation, of: string) => `${of} ${listOp.operationId}`;

/**
 * What the run knows of one key's records, to tell them from other companies' in a list: the
 * values the key's requests were answered with, its company, and the objects it sent.
 */
export interface ListEvidence {
  /** Every string value of the answers to the caller's successful requests other than GETs: the ids of what it made. */
  ownIds: ReadonlySet<string>;
  /** The same of the other key's requests: the other company's records. */
  otherIds: ReadonlySet<string>;
  /** The `companyId` of the caller's own create answers. */
  companies: ReadonlySet<string>;
  /** The ids listed before the run created anything; undefined when there is no such list. */
  baseline?: ReadonlySet<string> | undefined;
  /**
   * The objects the caller's requests (other than GETs) sent, in their stored form (D46), whole
   * and nested: a record made from one of them shows its values (seed §4.1: a payment link's
   * `customer` is "data to create a new customer account").
   */
  sent: readonly JsonObject[];
  /** The names the list gives fields the caller sent under another (round-trip.ts `otherNames`: `cpfCnpj` listed as `taxId`). */
  names?: ReadonlyMap<string, string>;
}

/** A listed record that is not the caller's, and why. */
export interface Stranger {
  id: string;
  /** The company the record shows, if any. */
  company?: string | undefined;
  /** `company`: it shows another company; `unknown`: no request of the caller made it and it was not listed before. */
  rule: 'company' | 'unknown';
  /** The other key's request made it. */
  other: boolean;
}

/**
 * Whether a listed record shows the values of an object the caller sent: at least two fields in
 * common, all equal (a field the list names otherwise under the list's name, `names`).
 */
function madeFrom(entry: JsonObject, sent: readonly JsonObject[], names: ReadonlyMap<string, string> = new Map()): boolean {
  return sent.some((object) => {
    let shared = 0;
    for (const [name, value] of Object.entries(object)) {
      const listed = entry[names.get(name) ?? name];
      if (listed === undefined || value === null || typeof value === 'object' || name === identity) continue;
      if (!sameValue(value, listed)) return false;
      shared++;
    }
    return shared >= 2;
  });
}

/**
 * The records of a list that are not the caller's: those showing a `companyId` other than the
 * caller's (its create answers', and what the records it made show in this list), and, when a
 * baseline was taken, those that no request of the caller made, that were not listed before the
 * run created anything and that show none of the objects it sent.
 */
export function strangersIn(entries: readonly unknown[], evidence: ListEvidence): Stranger[] {
  const records = entries.filter((e): e is JsonObject => isObject(e) && typeof e[identity] === 'string');
  const companyOf = (e: JsonObject) => (typeof e[companyField] === 'string' ? (e[companyField] as string) : undefined);
  const companies = companiesShown(records, evidence);
  const strangers: Stranger[] = [];
  for (const e of records) {
    const id = e[identity] as string;
    const company = companyOf(e);
    const other = evidence.otherIds.has(id) && !evidence.ownIds.has(id);
    if (company !== undefined && companies.size > 0 && !companies.has(company)) strangers.push({ id, company, rule: 'company', other });
    else if (other) strangers.push({ id, company, rule: 'unknown', other });
    else if (evidence.baseline && !evidence.baseline.has(id) && !evidence.ownIds.has(id) && !madeFrom(e, evidence.sent, evidence.names))
      strangers.push({ id, company, rule: 'unknown', other });
  }
  return strangers;
}

/** What the run knows of the records of `of`'s key (see ListEvidence). */
function evidenceOf(ctx: RunContext, of: 'first' | 'second', baseline: ReadonlySet<string> | undefined): ListEvidence {
  const ownIds = new Set<string>();
  const otherIds = new Set<string>();
  const companies = new Set<string>();
  const sent: JsonObject[] = [];
  const normalisers = new Map<string, Normaliser>();
  for (const exchange of ctx.exchanges) {
    const whose = exchange.request.apiKey?.of;
    if ((whose !== 'first' && whose !== 'second') || exchange.request.method.toLowerCase() === 'get') continue;
    if (whose === of) sent.push(...sentObjects(ctx, exchange, normalisers));
    if (!isSuccess(exchange)) continue;
    const body = jsonOf(exchange);
    collectStrings(body, whose === of ? ownIds : otherIds);
    const record = isObject(body) && isObject(body.data) ? body.data : body;
    if (whose === of && isObject(record) && typeof record[companyField] === 'string') companies.add(record[companyField] as string);
  }
  return { ownIds, otherIds, companies, baseline, sent };
}

function collectStrings(value: unknown, into: Set<string>): void {
  if (typeof value === 'string') into.add(value);
  else if (Array.isArray(value)) for (const v of value) collectStrings(v, into);
  else if (isObject(value)) for (const v of Object.values(value)) collectStrings(v, into);
}

/** The objects a request sent, whole and nested, in the form the service stores them (D46; one normaliser per operation). */
function sentObjects(ctx: RunContext, exchange: Exchange, normalisers: Map<string, Normaliser>): JsonObject[] {
  let body: unknown;
  try {
    body = exchange.request.body === undefined ? undefined : JSON.parse(exchange.request.body);
  } catch {
    return [];
  }
  let normalise = normalisers.get(exchange.operationId);
  if (!normalise) {
    const requestBody = ctx.view(exchange.operationId).requestBody;
    normalise = requestBody ? contractNormaliser(ctx.contract, requestBody.pointer) : (value) => value;
    normalisers.set(exchange.operationId, normalise);
  }
  body = normalise(body);
  const objects: JsonObject[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isObject(value)) {
      objects.push(value);
      Object.values(value).forEach(visit);
    }
  };
  visit(body);
  return objects;
}

/** How many strangers a list's findings name one by one; the rest are counted in one more. */
const namedStrangers = 5;

/** The list of `of`'s company holds only its own records (strangersIn): a failure per record that is not, or one pass. */
async function listHoldsOnlyOwn(ctx: RunContext, link: ContractLink, of: 'first' | 'second'): Promise<Outcome[]> {
  const listOp = link.target;
  const noun = recordNoun(link.source);
  const key = of === 'first' ? ctx.options.apiKey : ctx.options.secondApiKey;
  const other = of === 'first' ? 'second' : 'first';
  const whose = `the ${of} company's ${listOp.method.toUpperCase()} ${listOp.path}`;
  const list = await ctx.request(listOp, { apiKey: key });
  const entries = jsonOf(list);
  if (!isSuccess(list) || !Array.isArray(entries)) return [{ skip: `${whose} ${answered(list)}${isSuccess(list) ? ' without an array' : ''}` }];
  const baseline = baselines.get(ctx)?.get(baselineKey(listOp, of));
  const itemSchema = successSchema(ctx, listOp)?.items;
  const evidence = { ...evidenceOf(ctx, of, baseline && 'ids' in baseline ? baseline.ids : undefined), names: otherNames(ctx.contract, itemSchema) };
  const strangers = strangersIn(entries, evidence);
  const assumption = `(this assumes no one else creates ${noun}s for the company while the run goes)`;
  const own = [...companiesShown(entries, evidence)].join(', ');
  const message = (s: Stranger): string => {
    if (s.other && s.rule === 'company') return `${whose} lists the ${other} company's ${noun} ${s.id} (company ${s.company}, not its own ${own})`;
    if (s.other)
      return `${whose} lists the ${other} company's ${noun} ${s.id}, made in this run with the ${other} company's key${s.company ? `, though it shows company ${s.company}` : ''}`;
    if (s.rule === 'company') return `${whose} lists ${noun} ${s.id} of company ${s.company}, not of its own company (${own})`;
    return `${whose} lists ${noun} ${s.id}${s.company ? ` of company ${s.company}` : ''}, which no request of the ${of} company made in this run and which was not listed before the run created anything ${assumption}`;
  };
  const failures: Outcome[] = strangers.slice(0, namedStrangers).map((s) => ({ pass: false, message: message(s), exchange: list }));
  if (strangers.length > namedStrangers) {
    const more = strangers.slice(namedStrangers).map((s) => s.id);
    failures.push({ pass: false, message: `${whose} lists ${more.length} more ${noun}s that are not the ${of} company's: ${more.join(', ')}`, exchange: list });
  }
  if (failures.length > 0) return failures;
  const companies = [...companiesShown(entries, evidence)];
  const shown = companies.length > 0 ? `, of company ${companies.join(', ')}` : '';
  const made =
    baseline && 'ids' in baseline
      ? `each made by its requests in this run or listed before the run created anything ${assumption}`
      : `whether each was made by its requests was not judged: ${baseline && 'why' in baseline ? baseline.why : 'no list was taken before the run created anything'}`;
  return [{ pass: true, message: `${whose} lists only the ${of} company's ${noun}s (${entries.length}${shown}); ${made}`, exchange: list }];
}

/** The companies the caller's records show: its create answers' and those of the records it made in the list. */
function companiesShown(entries: readonly unknown[], evidence: ListEvidence): Set<string> {
  const companies = new Set(evidence.companies);
  for (const e of entries)
    if (isObject(e) && typeof e[identity] === 'string' && evidence.ownIds.has(e[identity]) && typeof e[companyField] === 'string')
      companies.add(e[companyField]);
  return companies;
}

async function recordStaysHidden(ctx: RunContext, secondKey: string, link: ContractLink): Promise<Outcome> {
  const op = link.target;
  const noun = recordNoun(op);
  const created = await createRecord(ctx, link.source.operationId);
  const pathParams = created.exchange && created.id ? linkParameters(link, jsonOf(created.exchange)) : undefined;
  if (!created.id || !pathParams)
    return { skip: `no ${noun} of the first company to look for: ${created.why ?? `its answer lacks what link ${link.name} names it by`}` };
  // Control: the owner reads it, so a refusal to the second company is about the company.
  const own = await ctx.request(op, { pathParams });
  if (!isSuccess(own))
    return {
      skip: `the first company cannot read its own ${noun} ${created.id} either (${op.method.toUpperCase()} ${answered(own)}), so a refusal to the second proves nothing`,
    };
  const foreign = await ctx.request(op, { pathParams, apiKey: secondKey });
  const status = foreign.response?.status;
  if (isSuccess(foreign)) return { pass: false, message: `the second company read the first company's ${noun} ${created.id} (${status})`, exchange: foreign };
  // D27 (marked on the path parameter's description): a foreign id is 404, as an unknown one.
  const parameter = ((op.operation.parameters ?? []) as unknown[]).map((p) => deref<JsonObject>(ctx.contract, p)).find((p) => p.in === 'path');
  const decision = RunContext.decisionOf(parameter, 'description');
  if (status === notFound)
    return { pass: true, message: `the first company's ${noun} ${created.id} is ${notFound} for the second company (${op.operationId})`, exchange: foreign };
  return {
    pass: false,
    message: `the first company's ${noun} ${created.id} is refused to the second company with ${status ?? answered(foreign)}, not ${notFound} as an unknown ${noun}`,
    decision,
    exchange: foreign,
  };
}

/** The value `ref` puts in a body for a company's record of its fixture. */
function valueFor(records: ReadonlyMap<string, { id: string }> | undefined, ref: BodyReference): string | undefined {
  return records?.get(ref.fixture.key)?.id;
}

async function recordStaysOwn(ctx: RunContext, secondKey: string, ref: BodyReference): Promise<Outcome> {
  const opId = ref.link.target.operationId;
  const noun = recordNoun(ref.link.source);
  const field = `\`${pathText(ref.field.path)}\``;
  const first = valueFor(ctx.fixtures.own, ref);
  if (!first) return { skip: `${field}: the run created no ${noun} with the first key (fixtures), so there is none to misuse` };
  // Every other record of the first company a body names is the second company's of the same kind.
  const named = validBodies(ctx, opId)
    .map((b) => b.body)
    .filter((b) => {
      let names = false;
      forEachAt(b, ref.field.path, (holder, key) => (names ||= holder[key] === first));
      return names;
    })
    .map((b) => forSecondCompany(ctx, b, ref.fixture.key));
  // Prefer a body in which the tested record is the only one of the first company left.
  const firstIds = [...ctx.fixtures.own.values()].map((r) => r.id).filter((id) => id !== first);
  const foreignBody = named.find((b) => !firstIds.some((id) => containsValue(b, id))) ?? named[0];
  if (foreignBody === undefined) return { skip: `${field}: no valid body of ${opId} names a ${noun} of the run` };
  const foreign = await ctx.request(opId, { body: foreignBody, apiKey: secondKey });
  const status = foreign.response?.status;
  if (isSuccess(foreign))
    return { pass: false, message: `${field}: the second company's request naming the first company's ${noun} was accepted (${status})`, exchange: foreign };
  if (!isClientError(foreign))
    return {
      pass: false,
      message: `${field}: the second company's request naming the first company's ${noun} ${answered(foreign)}, not a 4xx refusal`,
      exchange: foreign,
    };
  const second = valueFor(ctx.fixtures.other, ref);
  // Without the control a refusal may be about anything else in the request: no verdict.
  if (!second)
    return {
      skip: `${field}: the second company's request naming the first company's ${noun} was refused with ${status}, but the second company has no ${noun} of its own for a control, so that proves nothing about the ${noun}`,
    };
  const control = await ctx.request(opId, { body: replaceValues(foreignBody, new Map([[first, second]])), apiKey: secondKey });
  if (!isSuccess(control))
    return {
      skip: `${field}: the same request with the second company's own ${noun} ${answered(control)} too, so the refusal (${status}) proves nothing about the ${noun}`,
    };
  return {
    pass: true,
    message: `${field}: the second company's request naming the first company's ${noun} was refused with ${status}; with its own ${noun} it was accepted`,
    exchange: foreign,
  };
}

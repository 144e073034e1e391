/**
 * generated_values_kept: "sent = kept" over generated values. For each create the contract links
 * to a read or a list (ensure_resource_availability's links), and each update (`PUT`, `PATCH` with
 * a body) the contract links to such a create, the run draws values for every field of a valid
 * body whose values are free, in nested objects and array items too (data/generated.ts: mixed-case e-mails, accented and
 * other non-ASCII text at lengths 1 and `maxLength`, money with the two decimals `brl` allows,
 * CPF/CNPJ, phones and CEPs bare and punctuated as D46 allows, an item's quantity), sends the
 * body, and compares what the create (or update) answers, the read by id and the list show with
 * what was sent (round-trip.ts: in the
 * stored form D46 gives tax numbers, phones and CEPs, so a punctuated CPF read back as digits is
 * kept). A valid body refused is a failure too.
 *
 * fast-check draws the values (seeded: `--seed N`, printed with every failure; `--examples N`
 * bodies per create, 5 by default) and, on a failure, shrinks it: the failure reported is the
 * smallest body found that still fails, with the curl line of its create. Shrinking sends
 * requests too; it stops after `4 × examples + 10` more bodies and reports the smallest so far.
 * Only a value read back *otherwise* than written is a finding: a field a read leaves out is
 * ensure_resource_availability's to judge (decisions say which fields a read shows), so a
 * deployment that differs only where a decision allows is not failed here.
 */
import fc from 'fast-check';
import { deref, type JsonObject } from '../../lib/contract/bundled.js';
import { linkedFields, linkParameters, linkRole, resolveLinkValue, type ContractLink } from '../../lib/contract/links.js';
import { judgeBody, validBodies, withDomainRules, type ValidBody } from '../data/bodies.js';
import { prepareBodies } from '../data/fixtures.js';
import { getAt, withAt } from '../data/schema.js';
import { tagFormats } from '../data/templates.js';
import { type DrawnField, drawnFields, drawnOnly, withValues } from '../data/generated.js';
import { runData } from '../data/state.js';
import type { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import { defaultExamples, type Exchange } from '../engine/types.js';
import { availabilityLinks } from './availability.js';
import { decisionsOfErrors, unnamedDecision } from './responses.js';
import { compareRecord, describeDifference } from './round-trip.js';
import { answered, envelopeData, isObject, isSuccess, jsonOf, propertiesOf, show, skipAll, statefulSkipReason, successSchema } from './stateful.js';

const check = 'generated_values_kept' as const;
const identity = 'id';

/** The seed a run draws with: `--seed`, else one of its own (printed with every failure). */
export function runSeed(ctx: RunContext): number {
  const known = seeds.get(ctx);
  if (known !== undefined) return known;
  const seed = ctx.options.seed ?? Math.floor(Math.random() * 2 ** 31);
  seeds.set(ctx, seed);
  return seed;
}
const seeds = new WeakMap<RunContext, number>();

interface Failure {
  message: string;
  /** A refusal of a body only a decision makes valid: the decision (no data was lost). */
  decision?: string | undefined;
  /** The create refused the body (rather than a value read back otherwise). */
  refused?: boolean;
  exchange: Exchange;
  related: Exchange[];
}

export const generatedCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    const links = availabilityLinks(ctx.contractView.links).filter((l) => linkRole(l) === 'read' || linkRole(l) === 'list');
    const sources = [...new Set(links.map((l) => l.source.operationId))].filter((id) => ctx.view(id).requestBody);
    const changes = updateLinks(ctx);
    const reason = statefulSkipReason(ctx);
    if (reason) {
      skipAll(ctx, [...sources, ...changes.map((l) => l.target.operationId)], check, reason);
      return;
    }
    for (const source of sources)
      if (ctx.covers(source))
        await generate(
          ctx,
          source,
          links.filter((l) => l.source.operationId === source),
        );
    for (const change of changes)
      if (ctx.covers(change.target.operationId))
        await generateUpdate(
          ctx,
          change,
          links.filter((l) => l.source.operationId === change.source.operationId),
        );
  },
};

/**
 * The updates the contract links to a create (an operation changing the record by `PUT` or
 * `PATCH` with a JSON body: a subscription's `PUT`, a registration's `PATCH`), one link each.
 */
export function updateLinks(ctx: RunContext): ContractLink[] {
  const seen = new Set<string>();
  return ctx.contractView.links.filter((l) => {
    const id = l.target.operationId;
    if (linkRole(l) !== 'change' || (l.target.method !== 'put' && l.target.method !== 'patch') || !ctx.view(id).requestBody || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** The valid body with the most fields: the most values to draw. Those that rest on no decision first (a body naming the target's own ids rests on D13). */
function richestBody(bodies: readonly ValidBody[]): ValidBody | undefined {
  return bodies
    .filter((b) => isObject(b.body))
    .sort((a, b) => Number(Boolean(a.decision)) - Number(Boolean(b.decision)) || JSON.stringify(b.body).length - JSON.stringify(a.body).length)[0];
}

/** The values naming the run's records and company: kept as the valid body has them. */
function runValues(ctx: RunContext): Set<unknown> {
  const keep = new Set<unknown>([...ctx.fixtures.own.values()].map((r) => r.id));
  const company = runData(ctx).companyId;
  if (company) keep.add(company);
  return keep;
}

/** The identifiers the run numbers so that a service holding them unique accepts every body keep their numbers. */
const uniqueNames = () => new Set([...tagFormats].filter(([, format]) => format('', '', () => 1).endsWith('1')).map(([name]) => name));

async function generate(ctx: RunContext, source: string, links: ContractLink[]): Promise<void> {
  const requestBody = ctx.view(source).requestBody!;
  const base = richestBody(validBodies(ctx, source));
  if (!base) {
    ctx.recorder.skip(source, check, `no valid request body of ${source} to draw values into`);
    return;
  }
  const fields = drawnFields(ctx.contract, requestBody.schema, base.body, runValues(ctx), uniqueNames());
  await drawAndJudge(ctx, source, base, fields, (body) => roundTrip(ctx, source, body, fields, links));
}

/**
 * Generated values sent by an update: the record changed is one the run made through the
 * create the update is linked from (the last one it made, else a new one; a record the contract
 * lets the run delete is always a new one, deleted at the end), named as the link names it (a
 * path parameter, or the body's `id`). Each drawn body is sent to it, and what the update
 * answers, the read by id and the list show is compared with the values drawn.
 */
async function generateUpdate(ctx: RunContext, change: ContractLink, links: ContractLink[]): Promise<void> {
  const target = change.target.operationId;
  const source = change.source.operationId;
  const requestBody = ctx.view(target).requestBody!;
  const unprepared = await prepareBodies(ctx, target);
  if (unprepared) return ctx.recorder.skip(target, check, unprepared);
  const fresh = ctx.canDelete(source);
  const earlier = fresh ? undefined : [...ctx.exchanges].reverse().find((e) => e.operationId === source && isSuccess(e) && linkParameters(change, jsonOf(e)));
  let made: Exchange | undefined;
  try {
    let record = earlier;
    if (!record) {
      const body = validBodies(ctx, source)[0];
      if (!body) return ctx.recorder.skip(target, check, `no valid request body of ${source} to make a record to change`);
      made = await ctx.request(source, { body: body.body });
      if (!isSuccess(made)) return ctx.recorder.skip(target, check, `making a record to change failed: ${source} ${answered(made)}`);
      record = made;
    }
    const createdBody = jsonOf(record);
    const pathParams = linkParameters(change, createdBody) ?? {};
    const linked = linkedFields(change).map((f) => ({ path: f.path.map(String), value: resolveLinkValue(f.expression, createdBody) }));
    // The fields the link names the record by carry this record, in every body that sends them.
    const named = (body: unknown) => linked.reduce((b, f) => (getAt(b, f.path) === undefined || f.value === undefined ? b : withAt(b, f.path, f.value)), body);
    const base = richestBody(validBodies(ctx, target).map((b) => ({ ...b, body: named(b.body) })));
    if (!base) return ctx.recorder.skip(target, check, `no valid request body of ${target} to draw values into`);
    const keep = runValues(ctx);
    for (const f of linked) keep.add(f.value);
    for (const value of Object.values(pathParams)) keep.add(value);
    const fields = drawnFields(ctx.contract, requestBody.schema, base.body, keep, uniqueNames());
    await drawAndJudge(ctx, target, base, fields, (body) => compareAll(ctx, target, body, fields, links, [], { pathParams, createdBody }));
  } finally {
    // A record the contract lets the run delete (a webhook registration) does not stay until the run ends.
    if (made && isSuccess(made)) await ctx.deleteNow(ctx.operation(source), made);
  }
}

/**
 * Draws `--examples` bodies from `base` with `fields` drawn, sends each with `attempt` (the first
 * value not kept, if any), and judges `operationId` on what it found: shrunk to the smallest
 * failing body, within a bounded number of requests.
 */
async function drawAndJudge(
  ctx: RunContext,
  operationId: string,
  base: ValidBody,
  fields: readonly DrawnField[],
  attempt: (body: unknown) => Promise<Failure | undefined>,
): Promise<void> {
  const requestBody = ctx.view(operationId).requestBody!;
  if (fields.length === 0) {
    ctx.recorder.skip(operationId, check, `no field of ${operationId}'s body takes values the contract leaves free`);
    return;
  }
  const examples = Math.max(1, ctx.options.examples ?? defaultExamples);
  const budget = examples + 4 * examples + 10;
  const seed = runSeed(ctx);
  let calls = 0;
  let last: Failure | undefined;
  let passes = 0;
  // Drawn bodies the contract refuses are not sent: they judge nothing, and a run where every one
  // was refused has not judged the operation (a skip, not a pass).
  let refusedByContract = 0;
  const holds = async (values: readonly unknown[]): Promise<boolean> => {
    calls += 1;
    // Past the budget, shrinking ends with the smallest failing body found so far.
    if (calls > budget) return true;
    // Drawn amounts that depend on each other (an order's, D29) are made to add up again.
    const body = withDomainRules(ctx, operationId, withValues(base.body, fields, values));
    if (!judgeBody(ctx, requestBody.pointer, body).valid) {
      refusedByContract += 1;
      return true;
    }
    const failure = await attempt(body);
    if (failure && base.decision && failure.decision === undefined && failure.refused) failure.decision = base.decision;
    if (failure) last = failure;
    else passes += 1;
    return failure === undefined;
  };
  const property = fc.asyncProperty(fc.tuple(...fields.map((f) => f.arbitrary)), holds);
  const details = await fc.check(property, { seed, numRuns: examples });
  if (details.errorInstance && !last) throw details.errorInstance;
  const drawn = fields.map((f) => f.path.join('.')).join(', ');
  let how: string | undefined;
  if (details.failed && last) how = `generated body${details.numShrinks > 0 ? `, the smallest of ${details.numShrinks} shrinks` : ''}`;
  else {
    // Drawn at random, a free text reaches its maxLength in a third of the bodies only: when none
    // failed, one more body holds every free text at its maxLength, so that a value cut on store is
    // found whatever the seed (a boundary: nothing smaller to shrink it to).
    // The other fields keep the valid body's values: a drawn one could make the body invalid (a
    // price of 0 where the contract wants more), and an invalid body is never sent.
    const longest = fields.map((f, i) => (f.longest ? fc.sample(f.longest, { seed: seed + i, numRuns: 1 })[0] : getAt(base.body, f.path)));
    if (fields.some((f) => f.longest) && !(await holds(longest)) && last) how = 'the body with every free text at its maxLength';
  }
  if (how === undefined || !last) {
    const unsent = refusedByContract > 0 ? `; ${refusedByContract} drawn bodies the contract refuses were not sent` : '';
    if (passes === 0) {
      ctx.recorder.skip(
        operationId,
        check,
        `no drawn body of ${operationId} (${drawn}) was valid against the contract, so none was sent${unsent} (--seed ${seed})`,
      );
      return;
    }
    ctx.judge(operationId, check, true, `${passes} generated bodies (${drawn}) read back as sent${unsent} (--seed ${seed})`);
    return;
  }
  ctx.judge(operationId, check, false, `${last.message} (${how}; --seed ${seed} --examples ${examples} draws it again)`, {
    exchange: last.exchange,
    related: last.related,
    decision: last.decision,
    lostData: last.decision === undefined,
  });
}

/** Creates one record with `body` and compares what the create, its reads and its lists show; the first value not kept, if any. */
async function roundTrip(ctx: RunContext, source: string, body: unknown, fields: readonly DrawnField[], links: ContractLink[]): Promise<Failure | undefined> {
  const made: Exchange[] = [];
  try {
    return await compareAll(ctx, source, body, fields, links, made);
  } finally {
    // A record the contract lets the run delete (a webhook registration) goes at once: each
    // example makes one, and a company may hold only so many (D49).
    for (const exchange of made) if (ctx.canDelete(source)) await ctx.deleteNow(ctx.operation(source), exchange);
  }
}

/**
 * Sends `body` to `operationId` and compares what it answers, the reads and the lists with the
 * values drawn. A create's reads name the record it answered; an update's (`changed`) name the
 * record it changed, as its create answered it.
 */
async function compareAll(
  ctx: RunContext,
  operationId: string,
  body: unknown,
  fields: readonly DrawnField[],
  links: ContractLink[],
  made: Exchange[],
  changed?: { pathParams: Record<string, string>; createdBody: unknown },
): Promise<Failure | undefined> {
  const op = ctx.operation(operationId);
  const where = changed
    ? `${op.method.toUpperCase()} ${ctx.url(op, changed.pathParams).replace(/^https?:\/\/[^/]+/, '')}`
    : `${op.method.toUpperCase()} ${op.path}`;
  const sentExchange = await ctx.request(op, { body, ...(changed ? { pathParams: changed.pathParams } : {}) });
  if (isSuccess(sentExchange)) made.push(sentExchange);
  if (!isSuccess(sentExchange)) {
    // A body only the contract's decisions make valid (D46's punctuation) departs from those alone.
    const pointer = ctx.view(op).requestBody!.pointer;
    const seedValid = ctx.seed.at(pointer)(body);
    const errors = seedValid ? [] : [...(ctx.seed.at(pointer).errors ?? [])];
    const decision = seedValid ? undefined : (decisionsOfErrors(errors, { contract: ctx.contract, pointer })[0] ?? unnamedDecision);
    return { message: `${where} ${answered(sentExchange)} for a valid body`, exchange: sentExchange, related: [], decision, refused: true };
  }
  const answerBody = jsonOf(sentExchange);
  const enveloped = isObject(envelopeData(answerBody));
  const answer = enveloped ? envelopeData(answerBody) : isObject(answerBody) ? answerBody : undefined;
  // Only the values drawn: the others are the valid body's, which ensure_resource_availability compares.
  const sent = drawnOnly(body, fields);
  const sentSchema = ctx.view(op).requestBody?.schema;
  const answerSchema = successSchema(ctx, op);
  const first = (actual: JsonObject, readSchema: unknown, at: string) => {
    const d = compareRecord(ctx.contract, sent, actual, { readSchema, identity, ...(sentSchema !== undefined ? { sentSchema } : {}) }).differences.find(
      (difference) => difference.got !== undefined,
    );
    return d ? `${at}: ${describeDifference(d, 'sent')}` : undefined;
  };
  if (answer) {
    const own = first(answer, enveloped ? propertiesOf(ctx, answerSchema).data : answerSchema, where);
    if (own) return { message: own, exchange: sentExchange, related: [] };
  } else if (!changed) return undefined;
  // The record the reads name: the one created, as its create answered it.
  const recordBody = changed ? changed.createdBody : answerBody;
  const created = envelopeData(recordBody);
  const id = (isObject(created) ? created : isObject(recordBody) ? recordBody : {})[identity];
  const after = changed ? `after ${where}, ` : '';
  for (const link of links) {
    if (linkRole(link) === 'read') {
      const params = linkParameters(link, recordBody);
      if (!params) continue;
      const read = await ctx.request(link.target, { pathParams: params });
      const readBody = jsonOf(read);
      if (!isSuccess(read) || Array.isArray(readBody)) continue;
      const readSchema = successSchema(ctx, link.target);
      const env = isObject(envelopeData(readBody));
      const actual = env ? envelopeData(readBody) : isObject(readBody) ? readBody : undefined;
      const at = `${after}GET ${ctx.url(link.target, params).replace(/^https?:\/\/[^/]+/, '')}`;
      const problem = actual && first(actual, env ? propertiesOf(ctx, readSchema).data : readSchema, at);
      if (problem) return { message: problem, exchange: read, related: [sentExchange] };
    } else {
      const list = await ctx.request(link.target);
      const entries = jsonOf(list);
      if (!Array.isArray(entries)) continue;
      const entry = entries.find((c): c is JsonObject => isObject(c) && c[identity] === id);
      if (!entry) continue;
      const listSchema = successSchema(ctx, link.target);
      const problem = first(entry, listSchema ? deref(ctx.contract, listSchema.items) : undefined, `${after}GET ${link.target.path}, ${show(id)}`);
      if (problem) return { message: problem, exchange: list, related: [sentExchange] };
    }
  }
  return undefined;
}

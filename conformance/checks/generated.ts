/**
 * generated_values_kept: "sent = kept" over generated values. For each create the contract links
 * to a read or a list (ensure_resource_availability's links), the run draws values for every field
 * of a valid body whose values are free (data/generated.ts: mixed-case e-mails, accented and
 * other non-ASCII text at lengths 1 and `maxLength`, money with the two decimals `brl` allows,
 * CPF/CNPJ, phones and CEPs bare and punctuated as D46 allows), sends the body, and compares what
 * the create answers, the read by id and the list show with what was sent (round-trip.ts: in the
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
import { linkParameters, linkRole, type ContractLink } from '../../lib/contract/links.js';
import { judgeBody, validBodies } from '../data/bodies.js';
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
    const reason = statefulSkipReason(ctx);
    if (reason) {
      skipAll(ctx, sources, check, reason);
      return;
    }
    for (const source of sources)
      if (ctx.covers(source))
        await generate(
          ctx,
          source,
          links.filter((l) => l.source.operationId === source),
        );
  },
};

async function generate(ctx: RunContext, source: string, links: ContractLink[]): Promise<void> {
  const requestBody = ctx.view(source).requestBody!;
  // The valid body with the most fields: the most values to draw.
  // Those that rest on no decision first (a body naming the target's own ids rests on D13).
  const bodies = validBodies(ctx, source).filter((b) => isObject(b.body));
  const base = bodies.sort(
    (a, b) => Number(Boolean(a.decision)) - Number(Boolean(b.decision)) || JSON.stringify(b.body).length - JSON.stringify(a.body).length,
  )[0];
  if (!base) {
    ctx.recorder.skip(source, check, `no valid request body of ${source} to draw values into`);
    return;
  }
  const keep = new Set<unknown>([...ctx.fixtures.own.values()].map((r) => r.id));
  const company = runData(ctx).companyId;
  if (company) keep.add(company);
  // The identifiers the run numbers so that a service holding them unique accepts every body keep their numbers.
  const unique = new Set([...tagFormats].filter(([, format]) => format('', '', () => 1).endsWith('1')).map(([name]) => name));
  const fields = drawnFields(ctx.contract, requestBody.schema, base.body, keep, unique);
  if (fields.length === 0) {
    ctx.recorder.skip(source, check, `no field of ${source}'s body takes values the contract leaves free`);
    return;
  }
  const examples = Math.max(1, ctx.options.examples ?? defaultExamples);
  const budget = examples + 4 * examples + 10;
  const seed = runSeed(ctx);
  let calls = 0;
  let last: Failure | undefined;
  let passes = 0;
  const property = fc.asyncProperty(fc.tuple(...fields.map((f) => f.arbitrary)), async (values) => {
    calls += 1;
    // Past the budget, shrinking ends with the smallest failing body found so far.
    if (calls > budget) return true;
    const body = withValues(base.body, fields, values);
    if (!judgeBody(ctx, requestBody.pointer, body).valid) return true;
    const failure = await roundTrip(ctx, source, body, fields, links);
    if (failure && base.decision && failure.decision === undefined && failure.refused) failure.decision = base.decision;
    if (failure) last = failure;
    else passes += 1;
    return failure === undefined;
  });
  const details = await fc.check(property, { seed, numRuns: examples });
  const drawn = fields.map((f) => f.path.join('.')).join(', ');
  if (!details.failed || !last) {
    if (details.errorInstance) throw details.errorInstance;
    ctx.judge(source, check, true, `${passes} generated bodies (${drawn}) read back as sent (--seed ${seed})`);
    return;
  }
  const shrunk = details.numShrinks > 0 ? `, the smallest of ${details.numShrinks} shrinks` : '';
  ctx.judge(source, check, false, `${last.message} (generated body${shrunk}; --seed ${seed} --examples ${examples} draws it again)`, {
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

async function compareAll(
  ctx: RunContext,
  source: string,
  body: unknown,
  fields: readonly DrawnField[],
  links: ContractLink[],
  made: Exchange[],
): Promise<Failure | undefined> {
  const op = ctx.operation(source);
  const where = `${op.method.toUpperCase()} ${op.path}`;
  const created = await ctx.request(op, { body });
  if (isSuccess(created)) made.push(created);
  if (!isSuccess(created)) {
    // A body only the contract's decisions make valid (D46's punctuation) departs from those alone.
    const pointer = ctx.view(op).requestBody!.pointer;
    const seedValid = ctx.seed.at(pointer)(body);
    const errors = seedValid ? [] : [...(ctx.seed.at(pointer).errors ?? [])];
    const decision = seedValid ? undefined : (decisionsOfErrors(errors, { contract: ctx.contract, pointer })[0] ?? unnamedDecision);
    return { message: `${where} ${answered(created)} for a valid body`, exchange: created, related: [], decision, refused: true };
  }
  const createdBody = jsonOf(created);
  const enveloped = isObject(envelopeData(createdBody));
  const record = enveloped ? envelopeData(createdBody) : isObject(createdBody) ? createdBody : undefined;
  if (!record) return undefined;
  // Only the values drawn: the others are the valid body's, which ensure_resource_availability compares.
  const sent = drawnOnly(body, fields);
  const sentSchema = ctx.view(op).requestBody?.schema;
  const createSchema = successSchema(ctx, op);
  const first = (actual: JsonObject, readSchema: unknown, at: string) => {
    const d = compareRecord(ctx.contract, sent, actual, { readSchema, identity, ...(sentSchema !== undefined ? { sentSchema } : {}) }).differences.find(
      (difference) => difference.got !== undefined,
    );
    return d ? `${at}: ${describeDifference(d, 'sent')}` : undefined;
  };
  const own = first(record, enveloped ? propertiesOf(ctx, createSchema).data : createSchema, where);
  if (own) return { message: own, exchange: created, related: [] };
  const id = record[identity];
  for (const link of links) {
    if (linkRole(link) === 'read') {
      const params = linkParameters(link, createdBody);
      if (!params) continue;
      const read = await ctx.request(link.target, { pathParams: params });
      const readBody = jsonOf(read);
      if (!isSuccess(read) || Array.isArray(readBody)) continue;
      const readSchema = successSchema(ctx, link.target);
      const env = isObject(envelopeData(readBody));
      const actual = env ? envelopeData(readBody) : isObject(readBody) ? readBody : undefined;
      const at = `GET ${ctx.url(link.target, params).replace(/^https?:\/\/[^/]+/, '')}`;
      const problem = actual && first(actual, env ? propertiesOf(ctx, readSchema).data : readSchema, at);
      if (problem) return { message: problem, exchange: read, related: [created] };
    } else {
      const list = await ctx.request(link.target);
      const entries = jsonOf(list);
      if (!Array.isArray(entries)) continue;
      const entry = entries.find((c): c is JsonObject => isObject(c) && c[identity] === id);
      if (!entry) continue;
      const listSchema = successSchema(ctx, link.target);
      const problem = first(entry, listSchema ? deref(ctx.contract, listSchema.items) : undefined, `GET ${link.target.path}, ${show(id)}`);
      if (problem) return { message: problem, exchange: list, related: [created] };
    }
  }
  return undefined;
}

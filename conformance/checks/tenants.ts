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
 * - a `list` link (`createClient` → `listClients`): the first company's records never appear in
 *   the second company's list, nor the second company's in the first's;
 * - a `use` link (`createProduct` → `createPaymentLink` fills `items[].productId`): a request of
 *   the second company naming the first company's record is refused with a 4xx; the same request
 *   with the second company's own record is sent as a control, so that a refusal for another
 *   reason proves nothing.
 *
 * Each control that would make a pass meaningless (the second key refused everywhere, the
 * first company unable to read its own record) turns the check into a skip with the reason;
 * so does one link of an operation that proves nothing while the others pass.
 */
import { validBodies } from '../data/bodies.js';
import { idOf } from '../data/fixtures.js';
import { forEachAt, isKeyOf, linksWithRole, pathText, recordNoun, referencesWithRole, type BodyReference } from '../data/relations.js';
import { RunContext } from '../engine/context.js';
import { keyProbeOperation } from '../engine/key-check.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import { deref, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { linkParameters, type ContractLink } from '../../lib/contract/links.js';
import {
  answered,
  containsValue,
  isClientError,
  isObject,
  isSuccess,
  jsonOf,
  noSecondKeyReason,
  replaceValues,
  skipAll,
  statefulSkipReason,
} from './stateful.js';

const check = 'tenant_isolation' as const;

/** Seed §2.2, §2.4: records are named by `id`. */
const identity = 'id';

/** RFC 9110 §15.5.5: the answer for a resource the caller cannot see, as for one that does not exist (D27). */
const notFound = 404;

/** The operations this check tries, as the contract links them. */
export function tenantOperations(doc: JsonObject): string[] {
  const targets = [...linksWithRole(doc, 'read'), ...linksWithRole(doc, 'list')].map((link) => link.target.operationId);
  return [...new Set([...targets, ...referencesWithRole(doc, 'use').map((ref) => ref.link.target.operationId)])];
}

/** One finding of an operation, or why a part of it proves nothing. */
type Outcome = { pass: boolean; message: string; decision?: string | undefined; exchange?: Exchange } | { skip: string };

export const tenantCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    const covered = tenantOperations(ctx.contract);
    const secondKey = ctx.options.secondApiKey;
    const reason = statefulSkipReason(ctx) ?? (secondKey ? undefined : noSecondKeyReason);
    if (reason || !secondKey) {
      skipAll(ctx, covered, check, reason ?? noSecondKeyReason);
      return;
    }
    if (!covered.some((op) => ctx.covers(op))) return;
    // The second key must work at all, or every refusal below would be about the key.
    const probe = keyProbeOperation(ctx.contract);
    if (probe) {
      const accepted = await ctx.request(probe, { apiKey: secondKey });
      if (!isSuccess(accepted)) {
        skipAll(ctx, covered, check, `the second API key is not accepted: ${probe.method.toUpperCase()} ${probe.path} with it ${answered(accepted)}`);
        return;
      }
    }
    const outcomes = new Map<string, Outcome[]>();
    const add = (opId: string, outcome: Outcome) => outcomes.set(opId, [...(outcomes.get(opId) ?? []), outcome]);
    for (const link of linksWithRole(ctx.contract, 'list'))
      if (ctx.covers(link.target.operationId)) for (const o of await listsStayApart(ctx, secondKey, link)) add(link.target.operationId, o);
    for (const link of linksWithRole(ctx.contract, 'read'))
      if (ctx.covers(link.target.operationId)) add(link.target.operationId, await recordStaysHidden(ctx, secondKey, link));
    for (const ref of referencesWithRole(ctx.contract, 'use'))
      if (ctx.covers(ref.link.target.operationId)) add(ref.link.target.operationId, await recordStaysOwn(ctx, secondKey, ref));
    for (const [opId, list] of outcomes) report(ctx, opId, list);
  },
};

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

function idsIn(list: Exchange): Set<unknown> {
  const items = jsonOf(list);
  return new Set(Array.isArray(items) ? items.map((c) => (isObject(c) ? c[identity] : undefined)) : []);
}

/** The records of `source` the run keeps as fixtures of a company (relations.ts). */
function fixturesOf(records: ReadonlyMap<string, { id: string }> | undefined, source: ContractOperation): string[] {
  return [...(records ?? [])].filter(([key]) => isKeyOf(key, source)).map(([, record]) => record.id);
}

async function listsStayApart(ctx: RunContext, secondKey: string, link: ContractLink): Promise<Outcome[]> {
  const listOp = link.target;
  const noun = recordNoun(link.source);
  const where = `${listOp.method.toUpperCase()} ${listOp.path}`;
  const created = await createRecord(ctx, link.source.operationId);
  const firstIds = [...new Set([created.id, ...fixturesOf(ctx.fixtures.own, link.source)])].filter((id): id is string => typeof id === 'string');
  const outcomes: Outcome[] = [];
  if (firstIds.length === 0) outcomes.push({ skip: `the first company has no ${noun} to look for: ${created.why ?? 'none was created'}` });
  else {
    const secondList = await ctx.request(listOp, { apiKey: secondKey });
    if (!isSuccess(secondList) || !Array.isArray(jsonOf(secondList)))
      outcomes.push({ skip: `the second company's ${where} ${answered(secondList)}${isSuccess(secondList) ? ' without an array' : ''}` });
    else {
      const seen = idsIn(secondList);
      const leaked = firstIds.filter((id) => seen.has(id));
      outcomes.push({
        pass: leaked.length === 0,
        message:
          leaked.length === 0
            ? `the second company's ${where} does not list the first company's ${noun}(s) ${firstIds.join(', ')}`
            : `the second company's ${where} lists the first company's ${noun}(s) ${leaked.join(', ')}`,
        exchange: secondList,
      });
    }
  }
  // The other way round: the second company's fixtures are not in the first company's list.
  const otherIds = fixturesOf(ctx.fixtures.other, link.source);
  if (otherIds.length > 0) {
    const firstList = await ctx.request(listOp);
    if (isSuccess(firstList)) {
      const leaked = otherIds.filter((id) => idsIn(firstList).has(id));
      outcomes.push({
        pass: leaked.length === 0,
        message:
          leaked.length > 0
            ? `the first company's ${where} lists the second company's ${noun} ${leaked.join(', ')}`
            : `the first company's ${where} does not list the second company's ${noun} ${otherIds.join(', ')}`,
        exchange: firstList,
      });
    }
  }
  return outcomes;
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
  // Every record of the first company a body names maps to the second company's of the same kind.
  const toSecond = new Map(
    [...ctx.fixtures.own].flatMap(([key, own]) =>
      key !== ref.fixture.key && ctx.fixtures.other?.get(key) ? [[own.id, ctx.fixtures.other.get(key)!.id] as const] : [],
    ),
  );
  const named = validBodies(ctx, opId)
    .map((b) => b.body)
    .filter((b) => {
      let names = false;
      forEachAt(b, ref.field.path, (holder, key) => (names ||= holder[key] === first));
      return names;
    })
    .map((b) => replaceValues(b, toSecond));
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

/**
 * ensure_resource_availability: what a creating operation made can be read back where the
 * contract's links say it can (OpenAPI Link Objects on the create responses; see
 * lib/contract/links.ts), with the values it was sent. Per creating operation the run creates
 * one record with its first valid body, and:
 *
 * - its answer shows each field sent that the answer's schema declares, with the value sent
 *   (a payment link's `externalId`, seed §2.2);
 * - a `read` link (`GET` naming the record by a path parameter, e.g. `createPaymentLink` →
 *   `getCharge`, seed §4.2) shows the same record: each field sent, with the value sent (the
 *   charge's `successUrl` and `failedUrl`, which only the read shows), and every other field the
 *   create answered, with the value it answered (a charge envelope's `data` on both sides,
 *   seed §2.1), under the read's names where its form names a field otherwise (`createClient` →
 *   `getClient` answers the list form, D37);
 * - a `list` link (`GET` without parameters, e.g. `createClient` → `listClients`, seed §4.3)
 *   lists the record with the values sent (a field the list names otherwise, the seed §2.4's
 *   `taxId` for the `cpfCnpj` sent, is compared under the list's name, round-trip.ts);
 * - an update (a `change` link to a `PUT` or `PATCH`, or any change link with a request body:
 *   `createSubscription` → `updateSubscription`, seed §3 rule 3) answers the record with the
 *   values it sent (the link's body, else the update's first valid body), and the reads and lists
 *   above then show them.
 *
 * Values are compared in round-trip.ts: only the fields sent (or answered) that the answer's
 * schema declares, in the stored form a decision gives them (D46: tax numbers, phones and CEPs
 * as digits), so what the server fills or defaults is never a finding. A swapped or cut value
 * is a failure naming the field, the value read and the value sent.
 *
 * Links that move, delete or use a record (sandbox moves, deletes, other creates) are not
 * followed here. These reads are the contract's, so a record that cannot be found is a
 * failure, information in the `seed` profile when the read is an operation the seed does not
 * list (a read by id of D37: the Recorder); so is a compared field missing from a read whose
 * schema marks it as a decision as a whole (`x-decision`, e.g. the charge's `externalId`, D21).
 * A field read with another value than the one written fails in every profile, through
 * whichever read it is seen: that is data lost, whatever decides whether the field is shown.
 * Every finding on a read carries the request that wrote the value too (`Finding.related`), so
 * its curl line makes the fault again on a new record. When the create itself fails, there is
 * nothing to look for: the check is skipped (positive_data_acceptance reports the create).
 */
import { deref, type JsonObject } from '../../lib/contract/bundled.js';
import { linkParameters, linkRole, resolveLinkValue, linkedIdOf, type ContractLink } from '../../lib/contract/links.js';
import { fillPath } from '../../lib/contract/paths.js';
import { validBodies } from '../data/bodies.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import { compareRecord, describeDifference } from './round-trip.js';
import {
  answered,
  envelopeData,
  isObject,
  isSuccess,
  jsonOf,
  propertiesOf,
  requiredness,
  show,
  skipAll,
  statefulSkipReason,
  successSchema,
} from './stateful.js';

const check = 'ensure_resource_availability' as const;

/** Whether a link changes the record it names with a request: an update (`PUT`, `PATCH`), or a change whose body the link gives. */
function isUpdate(link: ContractLink): boolean {
  if (linkRole(link) !== 'change' || link.target.method === 'delete') return false;
  return link.target.method === 'put' || link.target.method === 'patch' || link.requestBody !== undefined;
}

/** The links this check follows: reads, lists and updates of the record. */
export function availabilityLinks(links: readonly ContractLink[]): ContractLink[] {
  return links.filter((link) => linkRole(link) === 'read' || linkRole(link) === 'list' || isUpdate(link));
}

/** Seed §2.2–2.4: every record is named by its `id`; a read without it cannot be the same record. */
const identity = 'id';

export const availabilityCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    const links = availabilityLinks(ctx.contractView.links);
    const sources = [...new Set(links.map((link) => link.source.operationId))];
    const reason = statefulSkipReason(ctx);
    if (reason) {
      skipAll(ctx, sources, check, reason);
      return;
    }
    for (const source of sources) {
      if (ctx.covers(source))
        await followLinks(
          ctx,
          source,
          links.filter((link) => link.source.operationId === source),
        );
    }
  },
};

/** Values a record should show, and where they come from (`sent`, `the create answered`). */
interface Expected {
  values: JsonObject;
  as: string;
  /** The request schema the values were sent with (their stored forms, D46). */
  sentSchema?: unknown;
}

interface Problem {
  message: string;
  decision?: string | undefined;
  /** A value read that is not the one written (not a field missing): fails whatever decision it rests on. */
  lostData: boolean;
}

/** Creates one record through `source`, checks its answer, follows its reads and lists, then its updates. */
async function followLinks(ctx: RunContext, source: string, links: ContractLink[]): Promise<void> {
  const created = await create(ctx, source);
  if (!created) return;
  const enveloped = isObject(envelopeData(created.body));
  const record = enveloped ? envelopeData(created.body) : isObject(created.body) ? created.body : undefined;
  const createSchema = successSchema(ctx, ctx.operation(source));
  const recordSchema = enveloped ? propertiesOf(ctx, createSchema).data : createSchema;
  const id = linkedIdOf(links, created.body) ?? record?.[identity];
  if (typeof id !== 'string' || id === '' || !record) {
    const { decision } = requiredness(ctx, recordSchema, identity);
    ctx.judge(source, check, false, `the create answered ${created.exchange.response?.status} without a \`${identity}\`, so the record cannot be read back`, {
      decision,
      exchange: created.exchange,
    });
    return;
  }
  const op = ctx.operation(source);
  const sent: Expected = { values: isObject(created.sent) ? created.sent : {}, as: 'sent', sentSchema: ctx.view(op).requestBody?.schema };
  const where = `${op.method.toUpperCase()} ${op.path}`;
  report(ctx, source, compare(ctx, [sent], record, recordSchema, where), `${where} answers the values sent`, created.exchange);
  for (const link of links.filter((l) => linkRole(l) === 'read')) locationNamesRecord(ctx, link, created.body, created.exchange);
  // What the create answered and the request did not set (the id, what the server fills) reads back as answered.
  const others = Object.fromEntries(Object.entries(record).filter(([name]) => sent.values[name] === undefined));
  const reads = links.filter((link) => linkRole(link) === 'read');
  const lists = links.filter((link) => linkRole(link) === 'list');
  for (const link of reads) await readBack(ctx, link, created.body, [sent, { values: others, as: 'the create answered' }], '', created.exchange);
  for (const link of lists) await listed(ctx, link, id, sent, '', created.exchange);
  for (const link of links.filter(isUpdate)) {
    const update = await changed(ctx, link, created.body);
    if (!update) continue;
    // Then the record reads and lists with the values the update sent.
    const after = `after ${update.where}, `;
    for (const read of reads) await readBack(ctx, read, created.body, [update.sent], after, update.exchange);
    for (const list of lists) await listed(ctx, list, id, update.sent, after, update.exchange);
  }
  for (const link of links.filter(isUpdate)) await statusStamped(ctx, link, reads);
}

/** A request URL as a finding shows it: without its scheme and host. */
const pathOf = (url: string): string => url.replace(/^https?:\/\/[^/]+/, '');

/**
 * Statuses whose update stamps the record with when it happened, when the request does not send
 * the time itself (D09: `status: CANCELLED` sets `cancelledAt` to now; sending `CANCELLED` again
 * keeps the first). Checked where the update's request can send the status and its answer
 * declares the stamp.
 */
const statusStamps = [{ field: 'status', value: 'CANCELLED', stamp: 'cancelledAt', decision: 'D09' }] as const;

/**
 * On a record of its own (the one the other updates changed stays as they left it), the update
 * moves it to a stamping status twice: the first answer, and the reads after it, show the stamp;
 * the second answer keeps the first stamp.
 */
async function statusStamped(ctx: RunContext, link: ContractLink, reads: ContractLink[]): Promise<void> {
  const source = link.source.operationId;
  const op = link.target;
  const requestProps = propertiesOf(ctx, ctx.view(op).requestBody?.schema);
  const answerProps = propertiesOf(ctx, successSchema(ctx, op));
  for (const rule of statusStamps) {
    const statusSchema = deref(ctx.contract, requestProps[rule.field]);
    const values = isObject(statusSchema) && Array.isArray(statusSchema.enum) ? statusSchema.enum : [];
    if (!values.includes(rule.value) || requestProps[rule.stamp] === undefined || answerProps[rule.stamp] === undefined) continue;
    const made = await create(ctx, source);
    if (!made) return;
    const params = linkParameters(link, made.body);
    const named = link.requestBody !== undefined ? resolveLinkValue(link.requestBody, made.body) : undefined;
    if (!params) return;
    // Only what names the record (`id` in the body of `PUT /subscription`), and the status.
    const body = { ...(isObject(named) && named[identity] !== undefined ? { [identity]: named[identity] } : {}), [rule.field]: rule.value };
    const path = pathOf(ctx.url(op, params));
    const where = `${op.method.toUpperCase()} ${path} ${show(body)}`;
    const first = await ctx.request(op, { body, pathParams: params });
    const stampOf = (exchange: Exchange): unknown => {
      const answer = jsonOf(exchange);
      const record = isObject(envelopeData(answer)) ? envelopeData(answer) : answer;
      return isObject(record) ? record[rule.stamp] : undefined;
    };
    if (!isSuccess(first)) {
      ctx.judge(source, check, false, `${where} ${answered(first)} for the record just created`, { exchange: first, related: [made.exchange] });
      return;
    }
    const stamp = stampOf(first);
    if (typeof stamp !== 'string') {
      ctx.judge(
        source,
        check,
        false,
        `${where} answers no \`${rule.stamp}\`: setting \`${rule.field}\` to ${rule.value} without one sets it to now (${rule.decision})`,
        {
          decision: rule.decision,
          exchange: first,
        },
      );
      return;
    }
    const sameInstant = (other: unknown) => typeof other === 'string' && Date.parse(other) === Date.parse(stamp);
    let ok = true;
    for (const read of reads) {
      const readParams = linkParameters(read, made.body);
      if (!readParams) continue;
      const again = await ctx.request(read.target, { pathParams: readParams });
      if (!isSuccess(again)) continue; // the reads' own findings are followLinks'
      const readStamp = stampOf(again);
      if (!sameInstant(readStamp)) {
        ok = false;
        const readWhere = `after ${where}, GET ${pathOf(ctx.url(read.target, readParams))}`;
        ctx.judge(source, check, false, `${readWhere}: \`${rule.stamp}\` reads ${show(readStamp)}, the update answered ${show(stamp)} (${rule.decision})`, {
          decision: rule.decision,
          exchange: again,
          related: [first],
        });
      }
    }
    const second = await ctx.request(op, { body, pathParams: params });
    if (isSuccess(second) && !sameInstant(stampOf(second))) {
      ok = false;
      ctx.judge(
        source,
        check,
        false,
        `${where} sent again answers \`${rule.stamp}\` ${show(stampOf(second))}, not the first ${show(stamp)}: setting ${rule.value} again keeps the first (${rule.decision})`,
        { decision: rule.decision, exchange: second, related: [first] },
      );
    }
    if (ok) ctx.judge(source, check, true, `${where} stamps \`${rule.stamp}\`, the reads show it, and sending it again keeps it`, { exchange: first });
  }
}

/**
 * D01: a create's `Location` says where the record can be read, so it names the path its read
 * link reads it by (`/charge/{id}`), whether relative to the base URL or to its origin, on any host
 * (a gateway may answer with its public one). A missing `Location` is response_headers_conformance's.
 */
function locationNamesRecord(ctx: RunContext, link: ContractLink, createdBody: unknown, exchange: Exchange): void {
  const location = exchange.response?.headers.location;
  const params = linkParameters(link, createdBody);
  if (location === undefined || !params) return;
  const source = link.source.operationId;
  const readUrl = new URL(ctx.url(link.target, params));
  const ownPath = fillPath(link.target.path, params);
  let path: string | undefined;
  try {
    path = new URL(location, exchange.request.url).pathname;
  } catch {
    path = undefined;
  }
  const what = `${exchange.request.method} ${new URL(exchange.request.url).pathname} → ${exchange.response?.status}`;
  if (path === readUrl.pathname || path === ownPath) {
    ctx.judge(source, check, true, `${what}: Location ${location} names the record just created`, { exchange });
    return;
  }
  ctx.judge(
    source,
    check,
    false,
    `${what}: Location ${JSON.stringify(location)} does not name the record just created, which ${link.target.operationId} reads at ${ownPath}`,
    {
      decision: locationDecision(ctx, source, exchange.response?.status),
      exchange,
    },
  );
}

/** The decision marked on the create's documented `Location` header (D01), if any. */
function locationDecision(ctx: RunContext, operationId: string, status: number | undefined): string | undefined {
  const responses = ctx.operation(operationId).operation.responses;
  const response = isObject(responses) ? deref(ctx.contract, responses[String(status)]) : undefined;
  const headers = isObject(response) && isObject(response.headers) ? response.headers : {};
  const header = Object.entries(headers).find(([name]) => name.toLowerCase() === 'location')?.[1];
  return RunContext.decisionOf(deref(ctx.contract, header)) ?? RunContext.decisionOf(response);
}

/** Creates one record with the first valid body; undefined (and a skip) when that fails. */
async function create(ctx: RunContext, operationId: string): Promise<{ sent: unknown; exchange: Exchange; body: unknown } | undefined> {
  const valid = validBodies(ctx, operationId)[0];
  if (!valid) {
    ctx.recorder.skip(operationId, check, `no valid request body for ${operationId}`);
    return undefined;
  }
  const exchange = await ctx.request(operationId, { body: valid.body });
  if (!isSuccess(exchange)) {
    ctx.recorder.skip(operationId, check, `the create ${answered(exchange)}, so there is no record to read back (positive_data_acceptance reports the create)`);
    return undefined;
  }
  return { sent: valid.body, exchange, body: jsonOf(exchange) };
}

/** The differences between what `actual` shows and each set of expected values, in words, and the fields compared. */
function compare(ctx: RunContext, expected: Expected[], actual: JsonObject, readSchema: unknown, where: string): { problems: Problem[]; compared: string[] } {
  const problems: Problem[] = [];
  const compared: string[] = [];
  for (const e of expected) {
    const result = compareRecord(ctx.contract, e.values, actual, {
      readSchema,
      identity,
      ...(e.sentSchema !== undefined ? { sentSchema: e.sentSchema } : {}),
    });
    compared.push(...result.compared);
    for (const d of result.differences)
      problems.push({ message: `${where}: ${describeDifference(d, e.as)}`, decision: d.decision, lostData: d.got !== undefined });
  }
  return { problems, compared };
}

/**
 * The verdicts on one answer: a pass naming the fields compared, or each problem. `writtenBy`:
 * the earlier request that wrote the values the answer is compared with (the create or the
 * update), which each problem rests on too.
 */
function report(
  ctx: RunContext,
  operationId: string,
  result: { problems: Problem[]; compared: string[] },
  passMessage: string,
  exchange: Exchange,
  writtenBy?: Exchange,
): void {
  const { problems, compared } = result;
  if (problems.length === 0) ctx.judge(operationId, check, true, compared.length > 0 ? `${passMessage} (${compared.join(', ')})` : passMessage, { exchange });
  const related = writtenBy ? [writtenBy] : [];
  for (const problem of problems)
    ctx.judge(operationId, check, false, problem.message, { decision: problem.decision, exchange, related, lostData: problem.lostData });
}

/** The record `link.target` reads by the parameters the link names shows the values expected (written by `writtenBy`). */
async function readBack(ctx: RunContext, link: ContractLink, createdBody: unknown, expected: Expected[], after: string, writtenBy: Exchange): Promise<void> {
  const source = link.source.operationId;
  const readOp = link.target;
  const params = linkParameters(link, createdBody);
  if (!params) {
    ctx.judge(source, check, false, `the create's answer lacks what link ${link.name} reads ${readOp.operationId} by`);
    return;
  }
  const read = await ctx.request(readOp, { pathParams: params });
  const where = `${after}GET ${pathOf(ctx.url(readOp, params))}`;
  if (!isSuccess(read)) {
    ctx.judge(source, check, false, `${where} ${answered(read)} for the record just created`, { exchange: read, related: [writtenBy] });
    return;
  }
  const body = jsonOf(read);
  // A read answering a list about the record (its deliveries …) has nothing to compare field by field.
  if (Array.isArray(body)) return report(ctx, source, { problems: [], compared: [] }, `${where} answers for the record just created`, read);
  const readSchema = successSchema(ctx, readOp);
  const enveloped = isObject(envelopeData(body));
  const actual = enveloped ? envelopeData(body) : isObject(body) ? body : undefined;
  if (!actual) {
    ctx.judge(source, check, false, `${where} answered ${read.response?.status} without the record`, { exchange: read, related: [writtenBy] });
    return;
  }
  const result = compare(ctx, expected, actual, enveloped ? propertiesOf(ctx, readSchema).data : readSchema, where);
  report(ctx, source, result, `${where} shows the record with the values ${expected.map((e) => e.as).join(' and ')}`, read, writtenBy);
}

/** The list `link.target` answers includes the record, with the values expected (written by `writtenBy`). */
async function listed(ctx: RunContext, link: ContractLink, id: string, sent: Expected, after: string, writtenBy: Exchange): Promise<void> {
  const source = link.source.operationId;
  const listOp = link.target;
  const list = await ctx.request(listOp);
  const where = `${after}${listOp.method.toUpperCase()} ${listOp.path}`;
  if (!isSuccess(list)) {
    ctx.judge(source, check, false, `${where} ${answered(list)} after a record was created`, { exchange: list });
    return;
  }
  const entries = jsonOf(list);
  if (!Array.isArray(entries)) {
    ctx.judge(source, check, false, `${where} did not answer an array`, { exchange: list });
    return;
  }
  const entry = entries.find((c): c is JsonObject => isObject(c) && c[identity] === id);
  if (!entry) {
    ctx.judge(source, check, false, `the record just created (${id}) is not among the ${entries.length} of ${where}`, { exchange: list, related: [writtenBy] });
    return;
  }
  const listSchema = successSchema(ctx, listOp);
  const itemSchema = listSchema ? deref(ctx.contract, listSchema.items) : undefined;
  const result = compare(ctx, [sent], entry, itemSchema, `${where}, ${id}`);
  report(ctx, source, result, `${where} lists the record just created (${id}) with the values ${sent.as}`, list, writtenBy);
}

/**
 * Sends the update a link names the record in (the link's body, else the update's first valid
 * body); its answer shows the values sent. What it sent, for the reads after it; undefined when it
 * could not be sent or failed.
 */
async function changed(ctx: RunContext, link: ContractLink, createdBody: unknown): Promise<{ sent: Expected; where: string; exchange: Exchange } | undefined> {
  const source = link.source.operationId;
  const op = link.target;
  const params = linkParameters(link, createdBody);
  const body = link.requestBody !== undefined ? resolveLinkValue(link.requestBody, createdBody) : validBodies(ctx, op.operationId)[0]?.body;
  if (!params || !isObject(body)) {
    if (link.requestBody === undefined && params) ctx.recorder.skip(source, check, `no valid request body for ${op.operationId}`);
    else ctx.judge(source, check, false, `the create's answer lacks what link ${link.name} names the record by`);
    return undefined;
  }
  const update = await ctx.request(op, { body, pathParams: params });
  const path = pathOf(ctx.url(op, params));
  const where = `${op.method.toUpperCase()} ${path} ${show(body)}`;
  if (!isSuccess(update)) {
    ctx.judge(source, check, false, `${where} ${answered(update)} for the record just created`, { exchange: update });
    return undefined;
  }
  const after = jsonOf(update);
  const record = isObject(envelopeData(after)) ? envelopeData(after) : isObject(after) ? after : undefined;
  if (!record) {
    ctx.judge(source, check, false, `${where} answered ${update.response?.status} without the record`, { exchange: update });
    return undefined;
  }
  const sent: Expected = { values: body, as: 'sent', sentSchema: ctx.view(op).requestBody?.schema };
  report(ctx, source, compare(ctx, [sent], record, successSchema(ctx, op), where), `${where} answers the record with the values sent`, update);
  return { sent, where: `${op.method.toUpperCase()} ${path}`, exchange: update };
}

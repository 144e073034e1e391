/**
 * ensure_resource_availability: what a creating operation answered can be read back where
 * the contract's links say it can (OpenAPI Link Objects on the create responses; see
 * lib/contract/links.ts). Per creating operation the run creates one record with its first
 * valid body and follows each of its links:
 *
 * - a `read` link (`GET` naming the record by a path parameter, e.g. `createPaymentLink` →
 *   `getCharge`, seed §4.2) shows the same record: every field the created record and the read
 *   share has the same value (a charge envelope's `data` on both sides, seed §2.1);
 * - a `list` link (`GET` without parameters, e.g. `createClient` → `listClients`, seed §4.3)
 *   lists the record with the values sent (the seed §2.4 renames `cpfCnpj` to `taxId` there);
 * - a `change` link with a request body (e.g. `createSubscription` → `updateSubscription` to
 *   another status, seed §3 rule 3) answers the record with the values the link sends.
 *
 * Links that move, delete or use a record (sandbox moves, deletes, other creates) are not
 * followed here. These reads are the contract's, so a record that cannot be found is a
 * failure; a compared field the contract marks as a decision as a whole (`x-decision`, e.g.
 * the charge's `externalId`, D21) is information in the `seed` profile. When the create
 * itself fails, there is nothing to look for: the check is skipped (positive_data_acceptance
 * reports the create).
 */
import { deref, type JsonObject } from '../../lib/contract/bundled.js';
import { linkParameters, linkRole, listLinks, resolveLinkValue, linkedIdOf, type ContractLink } from '../../lib/contract/links.js';
import { validBodies } from '../data/bodies.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import {
  answered,
  envelopeData,
  isObject,
  isSuccess,
  jsonOf,
  propertiesOf,
  requiredness,
  sameValue,
  show,
  skipAll,
  statefulSkipReason,
  successSchema,
} from './stateful.js';

const check = 'ensure_resource_availability' as const;

/** The links this check follows: reads, lists and changes that send a body naming the record. */
export function availabilityLinks(links: readonly ContractLink[]): ContractLink[] {
  return links.filter((link) => {
    const role = linkRole(link);
    return role === 'read' || role === 'list' || (role === 'change' && link.requestBody !== undefined && link.target.method !== 'delete');
  });
}

/** Seed §2.2–2.4: every record is named by its `id`; a read without it cannot be the same record. */
const identity = 'id';

/** Seed §2.4: the tax number is `cpfCnpj` in the create request and result, `taxId` in the list form. */
const listNames: Record<string, string> = { cpfCnpj: 'taxId' };

export const availabilityCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    const links = availabilityLinks(listLinks(ctx.contract));
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

/** Creates one record through `source` and follows each of its links. */
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
  for (const link of links) {
    const role = linkRole(link);
    if (role === 'read') await readBack(ctx, link, created.body, record);
    else if (role === 'list') await listed(ctx, link, id, created.sent);
    else await changed(ctx, link, created.body);
  }
}

interface Problem {
  message: string;
  decision?: string | undefined;
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

/**
 * Compares the fields `expected` has and the read's schema declares with the values `actual`
 * shows. A field the read lacks is a problem when the read's schema requires it or marks it
 * as a decision as a whole; a different value is a problem (a decision when the read's
 * property is one as a whole).
 */
function compareFields(
  ctx: RunContext,
  expected: JsonObject,
  actual: JsonObject,
  readSchema: unknown,
  rename: Record<string, string> = {},
): { problems: Problem[]; compared: string[] } {
  const readProps = propertiesOf(ctx, readSchema);
  const problems: Problem[] = [];
  const compared: string[] = [];
  for (const [name, want] of Object.entries(expected)) {
    const readName = rename[name] ?? name;
    const property = readProps[readName];
    if (want === undefined || !property) continue;
    const decision = readName === identity ? undefined : RunContext.decisionOf(property);
    const got = actual[readName];
    if (got === undefined) {
      const required = requiredness(ctx, readSchema, readName);
      if (readName === identity) problems.push({ message: `the read has no \`${identity}\`` });
      else if (decision) problems.push({ message: `the read lacks \`${readName}\` (expected ${show(want)})`, decision });
      else if (required.required) problems.push({ message: `the read lacks \`${readName}\` (expected ${show(want)})`, decision: required.decision });
      continue;
    }
    compared.push(readName);
    if (!sameValue(want, got)) problems.push({ message: `\`${readName}\` reads ${show(got)}, not ${show(want)}`, decision });
  }
  return { problems, compared };
}

function report(ctx: RunContext, operationId: string, problems: Problem[], passMessage: string, exchange: Exchange): void {
  if (problems.length === 0) ctx.judge(operationId, check, true, passMessage, { exchange });
  for (const problem of problems) ctx.judge(operationId, check, false, problem.message, { decision: problem.decision, exchange });
}

/** The record `link.target` reads by the parameters the link names shows the values created. */
async function readBack(ctx: RunContext, link: ContractLink, createdBody: unknown, record: JsonObject): Promise<void> {
  const source = link.source.operationId;
  const readOp = link.target;
  const params = linkParameters(link, createdBody);
  if (!params) {
    ctx.judge(source, check, false, `the create's answer lacks what link ${link.name} reads ${readOp.operationId} by`);
    return;
  }
  const read = await ctx.request(readOp, { pathParams: params });
  const where = `GET ${ctx.url(readOp, params).replace(/^https?:\/\/[^/]+/, '')}`;
  if (!isSuccess(read)) {
    ctx.judge(source, check, false, `${where} ${answered(read)} for the record just created`, { exchange: read });
    return;
  }
  const body = jsonOf(read);
  // A read answering a list about the record (its deliveries …) has nothing to compare field by field.
  if (Array.isArray(body)) return report(ctx, source, [], `${where} answers for the record just created`, read);
  const readSchema = successSchema(ctx, readOp);
  const enveloped = isObject(envelopeData(body));
  const actual = enveloped ? envelopeData(body) : isObject(body) ? body : undefined;
  if (!actual) {
    ctx.judge(source, check, false, `${where} answered ${read.response?.status} without the record`, { exchange: read });
    return;
  }
  const { problems, compared } = compareFields(ctx, record, actual, enveloped ? propertiesOf(ctx, readSchema).data : readSchema);
  report(
    ctx,
    source,
    problems.map((p) => ({ ...p, message: `${where}: ${p.message}` })),
    `${where} shows the record just created (${compared.join(', ')} as created)`,
    read,
  );
}

/** The list `link.target` answers includes the record, with the values sent. */
async function listed(ctx: RunContext, link: ContractLink, id: string, sent: unknown): Promise<void> {
  const source = link.source.operationId;
  const listOp = link.target;
  const list = await ctx.request(listOp);
  const where = `GET ${listOp.path}`;
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
    ctx.judge(source, check, false, `the record just created (${id}) is not among the ${entries.length} of ${where}`, { exchange: list });
    return;
  }
  const listSchema = successSchema(ctx, listOp);
  const itemSchema = listSchema ? deref(ctx.contract, listSchema.items) : undefined;
  const { problems, compared } = compareFields(ctx, isObject(sent) ? sent : {}, entry, itemSchema, listNames);
  report(
    ctx,
    source,
    problems.map((p) => ({ ...p, message: `${where}, ${id}: ${p.message}` })),
    `${where} lists the record just created (${id}) with the values sent (${compared.join(', ')})`,
    list,
  );
}

/** The change the link sends (its request body, naming the record) answers the record with those values. */
async function changed(ctx: RunContext, link: ContractLink, createdBody: unknown): Promise<void> {
  const source = link.source.operationId;
  const op = link.target;
  const params = linkParameters(link, createdBody);
  const body = resolveLinkValue(link.requestBody, createdBody);
  if (!params || !isObject(body)) {
    ctx.judge(source, check, false, `the create's answer lacks what link ${link.name} names the record by`);
    return;
  }
  const update = await ctx.request(op, { body, pathParams: params });
  const where = `${op.method.toUpperCase()} ${op.path} ${show(body)}`;
  if (!isSuccess(update)) {
    ctx.judge(source, check, false, `${where} ${answered(update)} for the record just created`, { exchange: update });
    return;
  }
  const after = jsonOf(update);
  const record = isObject(envelopeData(after)) ? envelopeData(after) : isObject(after) ? after : undefined;
  if (!record) {
    ctx.judge(source, check, false, `${where} answered ${update.response?.status} without the record`, { exchange: update });
    return;
  }
  const { problems } = compareFields(ctx, body, record, successSchema(ctx, op));
  report(
    ctx,
    source,
    problems.map((p) => ({ ...p, message: `${where}: ${p.message}` })),
    `${where} answers the record just created with the values sent`,
    update,
  );
}

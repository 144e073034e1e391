/**
 * ensure_resource_availability: what a creating operation answered can be read back where
 * the seed says it can be read.
 *
 * - `createPaymentLink` → `GET /charge/{id}` of the new charge (seed §4.2 "reading a charge by
 *   its identifier") shows the same charge: every field the payment link result and the charge
 *   share (id, total, url, devMode, externalId …) has the same value.
 * - `createClient` → the new client is in `GET /client` (seed §4.3 "all clients of the
 *   company"), with the values sent (the seed §2.4 renames `cpfCnpj` to `taxId` in the list).
 * - `createSubscription` → `PUT /subscription` of the new id to another listed status answers
 *   the same subscription in that status (seed §3 rule 3 "an update may set status to any
 *   listed subscription state").
 *
 * These reads are the seed's, so a record that cannot be found is a failure. A compared field
 * the contract marks as a decision as a whole (`x-decision`, e.g. the charge's `externalId`,
 * D21) is information in the `seed` profile. When the create itself fails, there is nothing
 * to look for: the check is skipped (positive_data_acceptance reports the create).
 */
import { deref, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { validBodies } from '../data/bodies.js';
import { requestBodyOf } from '../data/schema.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/run.js';
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

/** The creating operations whose records the seed lets us read back, and the operations that read them. */
const creates = ['createPaymentLink', 'createClient', 'createSubscription'] as const;
const reads = { createPaymentLink: 'getCharge', createClient: 'listClients', createSubscription: 'updateSubscription' } as const;

/** Seed §2.2–2.4: every record is named by its `id`; a read without it cannot be the same record. */
const identity = 'id';

/** Seed §2.4: the tax number is `cpfCnpj` in the create request and result, `taxId` in the list form. */
const listNames: Record<string, string> = { cpfCnpj: 'taxId' };

export const availabilityCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    const reason = statefulSkipReason(ctx);
    if (reason) {
      skipAll(ctx, creates, check, reason);
      return;
    }
    if (ctx.covers('createPaymentLink')) await paymentLinkIsReadable(ctx);
    if (ctx.covers('createClient')) await clientIsListed(ctx);
    if (ctx.covers('createSubscription')) await subscriptionIsUpdatable(ctx);
  },
};

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

/** The id of a created record; when missing, a finding (a decision when the contract's `required` of it is one). */
function createdId(ctx: RunContext, operationId: string, record: JsonObject | undefined, schema: unknown, exchange: Exchange): string | undefined {
  const id = record?.[identity];
  if (typeof id === 'string' && id !== '') return id;
  const { decision } = requiredness(ctx, schema, identity);
  ctx.judge(operationId, check, false, `the create answered ${exchange.response?.status} without a \`${identity}\`, so the record cannot be read back`, { decision, exchange });
  return undefined;
}

/**
 * Compares the fields `expected` has and the read's schema declares with the values `actual`
 * shows. A field the read lacks is a problem when the read's schema requires it or marks it
 * as a decision as a whole; a different value is a problem (a decision when the read's
 * property is one as a whole).
 */
function compareFields(ctx: RunContext, expected: JsonObject, actual: JsonObject, readSchema: unknown, rename: Record<string, string> = {}): { problems: Problem[]; compared: string[] } {
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

/** The name of an operation's one path parameter (`{id}` of `/charge/{id}`). */
function pathParameter(op: ContractOperation): string {
  const name = /\{([^}]+)\}/.exec(op.path)?.[1];
  if (!name) throw new Error(`${op.operationId} has no path parameter`);
  return name;
}

async function paymentLinkIsReadable(ctx: RunContext): Promise<void> {
  const opId = 'createPaymentLink';
  const createOp = ctx.operation(opId);
  const readOp = ctx.operation(reads[opId]);
  const created = await create(ctx, opId);
  if (!created) return;
  const createData = propertiesOf(ctx, successSchema(ctx, createOp)).data;
  const readData = propertiesOf(ctx, successSchema(ctx, readOp)).data;
  const data = envelopeData(created.body);
  const id = createdId(ctx, opId, data, createData, created.exchange);
  if (!id || !data) return;

  const read = await ctx.request(readOp, { pathParams: { [pathParameter(readOp)]: id } });
  const where = `GET ${readOp.path.replace(/\{[^}]+\}/, id)}`;
  if (!isSuccess(read)) {
    ctx.judge(opId, check, false, `${where} ${answered(read)} for the charge just created`, { exchange: read });
    return;
  }
  const charge = envelopeData(jsonOf(read));
  if (!charge) {
    ctx.judge(opId, check, false, `${where} answered ${read.response?.status} without the charge in \`data\``, { exchange: read });
    return;
  }
  const { problems, compared } = compareFields(ctx, data, charge, readData);
  report(ctx, opId, problems.map((p) => ({ ...p, message: `${where}: ${p.message}` })), `${where} shows the charge just created (${compared.join(', ')} as created)`, read);
}

async function clientIsListed(ctx: RunContext): Promise<void> {
  const opId = 'createClient';
  const createOp = ctx.operation(opId);
  const listOp = ctx.operation(reads[opId]);
  const created = await create(ctx, opId);
  if (!created) return;
  const record = isObject(created.body) ? created.body : undefined;
  const id = createdId(ctx, opId, record, successSchema(ctx, createOp), created.exchange);
  if (!id) return;

  const list = await ctx.request(listOp);
  const where = `GET ${listOp.path}`;
  if (!isSuccess(list)) {
    ctx.judge(opId, check, false, `${where} ${answered(list)} after a client was created`, { exchange: list });
    return;
  }
  const clients = jsonOf(list);
  if (!Array.isArray(clients)) {
    ctx.judge(opId, check, false, `${where} did not answer an array of clients`, { exchange: list });
    return;
  }
  const entry = clients.find((c): c is JsonObject => isObject(c) && c[identity] === id);
  if (!entry) {
    ctx.judge(opId, check, false, `the client just created (${id}) is not among the ${clients.length} clients of ${where}`, { exchange: list });
    return;
  }
  const listSchema = successSchema(ctx, listOp);
  const itemSchema = listSchema ? deref(ctx.contract, listSchema.items) : undefined;
  const sent = isObject(created.sent) ? created.sent : {};
  const { problems, compared } = compareFields(ctx, sent, entry, itemSchema, listNames);
  report(ctx, opId, problems.map((p) => ({ ...p, message: `${where}, client ${id}: ${p.message}` })), `${where} lists the client just created (${id}) with the values sent (${compared.join(', ')})`, list);
}

async function subscriptionIsUpdatable(ctx: RunContext): Promise<void> {
  const opId = 'createSubscription';
  const createOp = ctx.operation(opId);
  const updateOp = ctx.operation(reads[opId]);
  const created = await create(ctx, opId);
  if (!created) return;
  const record = isObject(created.body) ? created.body : undefined;
  const id = createdId(ctx, opId, record, successSchema(ctx, createOp), created.exchange);
  if (!id || !record) return;

  // Seed §3 rule 3: an update may set `status` to any listed subscription state; the list is the contract's.
  const statusField = 'status';
  const updateSchema = deref(ctx.contract, requestBodyOf(ctx.contract, updateOp)?.schema);
  const statusSchema = deref(ctx.contract, propertiesOf(ctx, updateSchema)[statusField]);
  const states = (isObject(statusSchema) && Array.isArray(statusSchema.enum) ? statusSchema.enum : []) as unknown[];
  const next = states.find((s) => s !== record[statusField]);
  if (typeof next !== 'string') {
    ctx.recorder.skip(opId, check, `the contract lists no subscription status other than ${show(record[statusField])}`);
    return;
  }
  const update = await ctx.request(updateOp, { body: { [identity]: id, [statusField]: next } });
  const where = `${updateOp.method.toUpperCase()} ${updateOp.path} {${identity}: ${id}, ${statusField}: ${next}}`;
  if (!isSuccess(update)) {
    ctx.judge(opId, check, false, `${where} ${answered(update)} for the subscription just created`, { exchange: update });
    return;
  }
  const after = jsonOf(update);
  if (!isObject(after)) {
    ctx.judge(opId, check, false, `${where} answered ${update.response?.status} without a subscription`, { exchange: update });
    return;
  }
  const { problems } = compareFields(ctx, { [identity]: id, [statusField]: next }, after, successSchema(ctx, updateOp));
  report(ctx, opId, problems.map((p) => ({ ...p, message: `${where}: ${p.message}` })), `${where} answers the subscription just created, now ${next}`, update);
}

/**
 * tenant_isolation: what one company (the run's API key) created is invisible and unusable to
 * another (`--second-api-key`). The seed's service serves companies: a charge is read "by its
 * identifier" within a company, `GET /client` lists "all clients of the company".
 *
 * - `getCharge`: the first company's charge read with the second key must not be answered
 *   2xx (a failure); that the answer is `404`, as for an unknown id, is D27 (the contract
 *   marks it on the path parameter), so another refusal is information in the `seed` profile.
 * - `listClients`: the first company's clients never appear in the second company's list,
 *   nor the second company's in the first's.
 * - `createPaymentLink`, `createSubscription`: a request of the second company naming the first
 *   company's product is refused with a 4xx; the same request with the second company's own
 *   product is sent as a control, so that a refusal for another reason proves nothing.
 *
 * Each control that would make a pass meaningless (the second key refused everywhere, the
 * first company unable to read its own charge) turns the check into a skip with the reason.
 */
import { validBodies } from '../data/bodies.js';
import { idOf } from '../data/fixtures.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/run.js';
import type { Exchange } from '../engine/types.js';
import { deref, type JsonObject } from '../../lib/contract/bundled.js';
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

const covered = ['getCharge', 'listClients', 'createPaymentLink', 'createSubscription'] as const;
/** The operations that name a product in their body. */
const productUsers = ['createPaymentLink', 'createSubscription'] as const;

/** Seed §2.2, §2.4: records are named by `id`. */
const identity = 'id';

/** RFC 9110 §15.5.5: the answer for a resource the caller cannot see, as for one that does not exist (D27). */
const notFound = 404;

export const tenantCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    const secondKey = ctx.options.secondApiKey;
    const reason = statefulSkipReason(ctx) ?? (secondKey ? undefined : noSecondKeyReason);
    if (reason || !secondKey) {
      skipAll(ctx, covered, check, reason ?? noSecondKeyReason);
      return;
    }
    if (!covered.some((op) => ctx.covers(op))) return;
    // The first company's client, and the second company's list, which also shows the second key works.
    const ownClient = ctx.covers('listClients') ? await createRecord(ctx, 'createClient') : {};
    const secondList = await ctx.request('listClients', { apiKey: secondKey });
    if (!isSuccess(secondList) || !Array.isArray(jsonOf(secondList))) {
      skipAll(ctx, covered, check, `the second API key is not accepted: GET /client with it ${answered(secondList)}${isSuccess(secondList) ? ' without an array' : ''}`);
      return;
    }
    if (ctx.covers('listClients')) await clientsStayApart(ctx, ownClient, secondList);
    if (ctx.covers('getCharge')) await chargeStaysHidden(ctx, secondKey);
    for (const opId of productUsers) if (ctx.covers(opId)) await productStaysOwn(ctx, secondKey, opId);
  },
};

/** Creates a record with the run's key and the first valid body; its id, or why there is none. */
async function createRecord(ctx: RunContext, operationId: string): Promise<{ id?: string; why?: string; exchange?: Exchange }> {
  const valid = validBodies(ctx, operationId)[0];
  if (!valid) return { why: `no valid request body for ${operationId}` };
  const exchange = await ctx.request(operationId, { body: valid.body });
  const id = idOf(exchange);
  if (id === undefined) return { why: `creating one with the first key ${answered(exchange)}${isSuccess(exchange) ? ` without an ${identity}` : ''}`, exchange };
  return { id, exchange };
}

function idsIn(list: Exchange): Set<unknown> {
  const items = jsonOf(list);
  return new Set(Array.isArray(items) ? items.map((c) => (isObject(c) ? c[identity] : undefined)) : []);
}

async function clientsStayApart(ctx: RunContext, ownClient: { id?: string; why?: string }, secondList: Exchange): Promise<void> {
  const opId = 'listClients';
  const firstIds = [ownClient.id, ctx.fixtures.clientId].filter((id): id is string => typeof id === 'string');
  if (firstIds.length === 0) {
    ctx.recorder.skip(opId, check, `the first company has no client to look for: ${ownClient.why ?? 'none was created'}`);
  } else {
    const seen = idsIn(secondList);
    const leaked = firstIds.filter((id) => seen.has(id));
    ctx.judge(opId, check, leaked.length === 0, leaked.length === 0 ? `the second company's GET /client does not list the first company's client(s) ${firstIds.join(', ')}` : `the second company's GET /client lists the first company's client(s) ${leaked.join(', ')}`, { exchange: secondList });
  }
  // The other way round: the second company's fixture client is not in the first company's list.
  const otherId = ctx.fixtures.other?.clientId;
  if (otherId) {
    const firstList = await ctx.request(opId);
    if (isSuccess(firstList)) {
      const leaked = idsIn(firstList).has(otherId);
      ctx.judge(opId, check, !leaked, leaked ? `the first company's GET /client lists the second company's client ${otherId}` : `the first company's GET /client does not list the second company's client ${otherId}`, { exchange: firstList });
    }
  }
}

async function chargeStaysHidden(ctx: RunContext, secondKey: string): Promise<void> {
  const opId = 'getCharge';
  const op = ctx.operation(opId);
  const charge = await createRecord(ctx, 'createPaymentLink');
  if (!charge.id) {
    ctx.recorder.skip(opId, check, `no charge of the first company to look for: ${charge.why ?? ''}`);
    return;
  }
  const parameter = ((op.operation.parameters ?? []) as unknown[]).map((p) => deref<JsonObject>(ctx.contract, p)).find((p) => p.in === 'path');
  const name = String(parameter?.name ?? identity);
  const pathParams = { [name]: charge.id };
  // Control: the owner reads it, so a refusal to the second company is about the company.
  const own = await ctx.request(op, { pathParams });
  if (!isSuccess(own)) {
    ctx.recorder.skip(opId, check, `the first company cannot read its own charge ${charge.id} either (GET ${answered(own)}), so a refusal to the second proves nothing`);
    return;
  }
  const foreign = await ctx.request(op, { pathParams, apiKey: secondKey });
  const status = foreign.response?.status;
  if (isSuccess(foreign)) {
    ctx.judge(opId, check, false, `the second company read the first company's charge ${charge.id} (${status})`, { exchange: foreign });
    return;
  }
  // D27 (marked on the path parameter's description): a foreign id is 404, as an unknown one.
  const decision = RunContext.decisionOf(parameter, 'description');
  if (status === notFound) ctx.judge(opId, check, true, `the first company's charge ${charge.id} is ${notFound} for the second company`, { exchange: foreign });
  else ctx.judge(opId, check, false, `the first company's charge ${charge.id} is refused to the second company with ${status ?? answered(foreign)}, not ${notFound} as an unknown charge`, { decision, exchange: foreign });
}

async function productStaysOwn(ctx: RunContext, secondKey: string, opId: string): Promise<void> {
  const firstProducts = [ctx.fixtures.productId, ctx.fixtures.subscriptionProductId].filter((id): id is string => typeof id === 'string');
  if (firstProducts.length === 0) {
    ctx.recorder.skip(opId, check, 'the run created no product with the first key (fixtures), so there is none to misuse');
    return;
  }
  const bodies = validBodies(ctx, opId).map((b: { body: unknown }) => b.body);
  const named = bodies.filter((b) => firstProducts.some((id) => containsValue(b, id)));
  const firstClient = ctx.fixtures.clientId;
  // Prefer a body that names no client of the first company, so the product alone is foreign.
  const body = named.find((b) => !firstClient || !containsValue(b, firstClient)) ?? named[0];
  if (body === undefined) {
    ctx.recorder.skip(opId, check, `no valid body of ${opId} names a product of the run`);
    return;
  }
  const otherClient = ctx.fixtures.other?.clientId;
  const toSecondClient = new Map(firstClient && otherClient ? [[firstClient, otherClient]] : []);
  const foreignBody = replaceValues(body, toSecondClient);
  const foreign = await ctx.request(opId, { body: foreignBody, apiKey: secondKey });
  const status = foreign.response?.status;
  if (isSuccess(foreign)) {
    ctx.judge(opId, check, false, `the second company's request naming the first company's product was accepted (${status})`, { exchange: foreign });
    return;
  }
  if (!isClientError(foreign)) {
    ctx.judge(opId, check, false, `the second company's request naming the first company's product ${answered(foreign)}, not a 4xx refusal`, { exchange: foreign });
    return;
  }
  const otherProduct = ctx.fixtures.other?.productId;
  if (!otherProduct) {
    // Without the control a refusal may be about anything else in the request: no verdict.
    ctx.recorder.skip(opId, check, `the second company's request naming the first company's product was refused with ${status}, but the second company has no product of its own for a control, so that proves nothing about the product`);
    return;
  }
  const ownBody = replaceValues(foreignBody, new Map(firstProducts.map((id) => [id, otherProduct])));
  const control = await ctx.request(opId, { body: ownBody, apiKey: secondKey });
  if (!isSuccess(control)) {
    ctx.recorder.skip(opId, check, `the same request with the second company's own product ${answered(control)} too, so the refusal (${status}) proves nothing about the product`);
    return;
  }
  ctx.judge(opId, check, true, `the second company's request naming the first company's product was refused with ${status}; with its own product it was accepted`, { exchange: foreign });
}

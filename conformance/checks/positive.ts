/**
 * positive_data_acceptance: a request the contract says is valid is accepted (2xx).
 *
 * Every valid body of an operation (conformance/data/bodies.ts: the contract's examples made
 * the run's own, their required-fields-only forms, every optional field filled, enumerated
 * values varied, numbers written with Brazilian punctuation) is sent; anything but a 2xx
 * fails, because a body valid under the full contract is valid under the seed too. The
 * exceptions are a body whose omitted fields are optional only by a decision of the contract
 * (the seed leaves the required fields open, e.g. D18 for payment links) and one whose values
 * only a decision admits (D46's punctuated tax numbers, phones and CEPs): refusing it departs
 * from that decision (info in the `seed` profile). GET operations are sent with valid parameters: a record this run created
 * through the operation the contract's links name (`getCharge` reads a charge of the run); an id
 * no link lets the run know is a skip.
 */
import type { ContractOperation } from '../../lib/contract/bundled.js';
import { validBodiesWithNotes } from '../data/bodies.js';
import { describeAnswer, existingPathParams, prepareBodies, registerCreated } from '../data/fixtures.js';
import type { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import { getOnlyReason, isSuccess } from './stateful.js';

const check = 'positive_data_acceptance' as const;

export const positiveCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    for (const op of ctx.operations) {
      if (op.method === 'get') await requestWithoutBody(ctx, op);
      else if (ctx.options.readOnly) ctx.recorder.skip(op.operationId, check, getOnlyReason);
      else if (!ctx.view(op).requestBody) await requestWithoutBody(ctx, op);
      else await bodyOperation(ctx, op);
    }
  },
};

async function bodyOperation(ctx: RunContext, op: ContractOperation): Promise<void> {
  const opId = op.operationId;
  const unprepared = await prepareBodies(ctx, opId);
  if (unprepared) return ctx.recorder.skip(opId, check, unprepared);
  const { bodies, dropped } = validBodiesWithNotes(ctx, opId);
  if (bodies.length === 0) {
    const reason = dropped.length > 0 ? `no valid body: ${dropped.join('; ')}` : 'the operation takes no request body the contract describes';
    return ctx.recorder.skip(opId, check, reason);
  }
  // Bodies that had to leave out a record the run could not make (its create failed) were not all sent as valid bodies go.
  if (dropped.length > 0) {
    const fields = [...new Set(dropped.map((note) => note.slice(note.indexOf(': ') + 2)))];
    ctx.recorder.partial(opId, check, `bodies sent without what names a record the run lacks: ${fields.join('; ')}`);
  }
  for (const { name, body, decision } of bodies) {
    // A path naming a record (`/webhook/{id}`, `/charge/{id}/simulate-…`) gets one of the run's.
    const existing = await existingPathParams(ctx, op);
    if ('reason' in existing) return ctx.recorder.skip(opId, check, existing.reason);
    const exchange = await ctx.request(op, { body, pathParams: existing.params });
    const ok = isSuccess(exchange);
    // The first record of a kind another request names (a subscription an update changes) is the run's.
    if (ok) registerCreated(ctx, opId, exchange);
    const why = decision ? ` (what it leaves out or how it writes its values rests on decision ${decision})` : '';
    ctx.judge(
      opId,
      check,
      ok,
      ok ? `${name}: accepted (${exchange.response!.status})` : `${name}: a valid body was refused (${describeAnswer(exchange)})${why}`,
      {
        decision,
        exchange,
      },
    );
  }
}

/** A request that has only parameters (a GET, or a bodiless POST such as simulate-expiration). */
async function requestWithoutBody(ctx: RunContext, op: ContractOperation): Promise<void> {
  const opId = op.operationId;
  const existing = await existingPathParams(ctx, op);
  if ('reason' in existing) return ctx.recorder.skip(opId, check, existing.reason);
  const pathParams = existing.params;
  const exchange = await ctx.request(op, { pathParams });
  const ok = isSuccess(exchange);
  const method = op.method.toUpperCase();
  const what =
    Object.keys(pathParams).length > 0
      ? `${method} with ${Object.entries(pathParams)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}`
      : method;
  ctx.judge(opId, check, ok, ok ? `${what}: answered ${exchange.response!.status}` : `${what}: a valid request was refused (${describeAnswer(exchange)})`, {
    exchange,
  });
}

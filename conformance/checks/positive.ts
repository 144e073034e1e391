/**
 * positive_data_acceptance: a request the contract says is valid is accepted (2xx).
 *
 * Every valid body of an operation (conformance/data/bodies.ts: the contract's examples made
 * the run's own, their required-fields-only forms, every optional field filled, enumerated
 * values varied) is sent; anything but a 2xx fails, because a body valid under the full
 * contract is valid under the seed too. The one exception is a body whose omitted fields are
 * optional only by a decision of the contract (the seed leaves the required fields open,
 * e.g. D18 for payment links): refusing it departs from that decision (info in the `seed`
 * profile). GET operations are sent with valid parameters: `getCharge` reads a charge this
 * run created; an id the run cannot know (a webhook's: no operation creates one) is a skip.
 */
import type { ContractOperation } from '../../lib/contract/bundled.js';
import { validBodiesWithNotes } from '../data/bodies.js';
import { describeAnswer, ensureCharge, ensureSubscription, idOf, registerSubscription } from '../data/fixtures.js';
import { parameterExample } from '../data/schema.js';
import type { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/run.js';
import type { Exchange } from '../engine/types.js';

const check = 'positive_data_acceptance' as const;

export const readOnlyReason = '--read-only: only GET requests are sent';

export const positiveCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    for (const op of ctx.operations) {
      if (op.method === 'get') await getOperation(ctx, op);
      else if (ctx.options.readOnly) ctx.recorder.skip(op.operationId, check, readOnlyReason);
      else await bodyOperation(ctx, op);
    }
  },
};

async function bodyOperation(ctx: RunContext, op: ContractOperation): Promise<void> {
  const opId = op.operationId;
  if (opId === 'updateSubscription' && !ctx.options.stateless) {
    // Its body names the subscription to change (D09): one the run created.
    const subscription = await ensureSubscription(ctx);
    if ('reason' in subscription) return ctx.recorder.skip(opId, check, `no subscription to update: ${subscription.reason}`);
  }
  const { bodies, dropped } = validBodiesWithNotes(ctx, opId);
  if (bodies.length === 0) {
    const reason = dropped.length > 0 ? `no valid body: ${dropped.join('; ')}` : 'the operation takes no request body the contract describes';
    return ctx.recorder.skip(opId, check, reason);
  }
  for (const { name, body, decision } of bodies) {
    const exchange = await ctx.request(op, { body });
    const ok = isSuccess(exchange);
    if (ok && opId === 'createSubscription') {
      const id = idOf(exchange);
      if (id) registerSubscription(ctx, id);
    }
    const why = decision ? ` (the fields it leaves out are optional by decision ${decision})` : '';
    ctx.judge(opId, check, ok, ok ? `${name}: accepted (${exchange.response!.status})` : `${name}: a valid body was refused (${describeAnswer(exchange)})${why}`, {
      decision,
      exchange,
    });
  }
}

async function getOperation(ctx: RunContext, op: ContractOperation): Promise<void> {
  const opId = op.operationId;
  const pathParams: Record<string, string> = {};
  for (const name of [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)) {
    const value = await pathValue(ctx, op, name);
    if ('reason' in value) return ctx.recorder.skip(opId, check, value.reason);
    pathParams[name] = value.id;
  }
  const exchange = await ctx.request(op, { pathParams });
  const ok = isSuccess(exchange);
  const what = Object.keys(pathParams).length > 0 ? `GET with ${Object.entries(pathParams).map(([k, v]) => `${k}=${v}`).join(', ')}` : 'GET';
  ctx.judge(opId, check, ok, ok ? `${what}: answered ${exchange.response!.status}` : `${what}: a valid request was refused (${describeAnswer(exchange)})`, { exchange });
}

/**
 * A valid value for a path parameter: against the stateless mock the contract's example
 * (the mock answers any id); otherwise an id of a record this run created.
 */
async function pathValue(ctx: RunContext, op: ContractOperation, name: string): Promise<{ id: string } | { reason: string }> {
  if (ctx.options.stateless) {
    const example = parameterExample(ctx.contract, op, name);
    return typeof example === 'string' ? { id: example } : { reason: `the contract gives no example of path parameter ${name}` };
  }
  if (op.operationId === 'getCharge') {
    const charge = await ensureCharge(ctx);
    return 'reason' in charge ? { reason: charge.reason } : charge;
  }
  return { reason: `no operation of the contract creates what ${op.path} reads, so the run knows no valid ${name}` };
}

function isSuccess(exchange: Exchange): boolean {
  const status = exchange.response?.status;
  return status !== undefined && status >= 200 && status < 300;
}

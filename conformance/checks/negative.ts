/**
 * negative_data_rejection: a request the contract says is invalid is refused with a 4xx.
 *
 * Every mutation of an operation's valid bodies, header and query parameters
 * (conformance/data/mutations.ts: `limit` below its minimum or above its maximum, a word for
 * it, an `after` breaking its pattern or length …) is sent. A 4xx passes. A 2xx fails when the
 * mutation breaks the seed, and is information (profile `seed`) when it breaks only a decision
 * of the contract, named in the finding. A broken body refused with a 4xx other than 422, where the
 * operation documents 422, departs from D02 (a request that parses but breaks the schema is 422; 400 is for malformed JSON,
 * D34): information under `seed`, a failure under `reference`. A 5xx, or no answer, always fails. Against the
 * stateless mock the mutations are sent too: the mock validates requests against the contract.
 *
 * An operation that takes query parameters is also sent one it does not declare: the contract
 * says how such a parameter is treated in the operation's description (`GET /client`: other
 * query parameters are ignored, D08), so the request must be answered as without it (a 2xx); a
 * refusal departs from the decision the description rests on, and a 5xx fails.
 */
import type { ContractOperation } from '../../lib/contract/bundled.js';
import { validBodies } from '../data/bodies.js';
import { describeAnswer, existingPathParams, prepareBodies } from '../data/fixtures.js';
import { mutationsFor, unknownParameter } from '../data/mutations.js';
import { RunContext } from '../engine/context.js';
import { missingOperationReason, targetLacks } from '../engine/preflight.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import { unnamedDecision } from './responses.js';
import { getOnlyReason } from './stateful.js';

const check = 'negative_data_rejection' as const;

export const negativeCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    for (const op of ctx.operations) {
      if (op.method !== 'get' && ctx.options.readOnly) ctx.recorder.skip(op.operationId, check, getOnlyReason);
      else await operation(ctx, op);
    }
  },
};

async function operation(ctx: RunContext, op: ContractOperation): Promise<void> {
  const opId = op.operationId;
  const view = ctx.view(op);
  const hasBody = view.requestBody !== undefined;
  const hasQuery = view.queryParameters.length > 0;
  if (!hasBody && !hasQuery && view.headerParameters.length === 0) {
    return ctx.recorder.skip(opId, check, 'no request body, header or query parameter whose schema a request could break');
  }
  // Mutate bodies that name real records, so that a refusal is about the mutation.
  const unprepared = await prepareBodies(ctx, opId);
  if (unprepared) return ctx.recorder.skip(opId, check, unprepared);
  const bodies = validBodies(ctx, opId).map((b) => b.body);
  if (hasBody && bodies.length === 0) return ctx.recorder.skip(opId, check, 'no valid body to mutate (see positive_data_acceptance)');
  const mutations = mutationsFor(ctx, opId, bodies);
  if (mutations.length === 0) return ctx.recorder.skip(opId, check, 'the contract gives no rule a request could break');

  const documents422 = view.responses.some((r) => r.key === '422');
  const not422: Array<{ what: string; status: number; exchange: Exchange }> = [];
  let refused = 0;
  for (const mutation of mutations) {
    // A path naming a record gets one of the run's, so that a refusal is about the mutation.
    const existing = await existingPathParams(ctx, op);
    if ('reason' in existing) return ctx.recorder.skip(opId, check, existing.reason);
    const exchange = await ctx.request(op, {
      body: mutation.body,
      pathParams: existing.params,
      ...(mutation.headers ? { headers: mutation.headers } : {}),
      ...(mutation.query ? { query: mutation.query } : {}),
    });
    const status = exchange.response?.status;
    const what = `${mutation.name} (breaks ${mutation.breaks === 'seed' ? 'the seed' : `decision ${mutation.decision ?? '?'}`})`;
    // A target without the operation refuses every request alike: that is no verdict on the mutation.
    if (status !== undefined && targetLacks(ctx, op)) return ctx.recorder.skip(opId, check, missingOperationReason(op, status));
    const bodyBroken = mutation.query === undefined && mutation.headers === undefined;
    if (status !== undefined && status >= 400 && status < 500 && status !== 422 && documents422 && bodyBroken) {
      // Any 4xx refuses it, as the seed asks; the contract says which (judged once, below).
      not422.push({ what, status, exchange });
      refused++;
    } else if (status !== undefined && status >= 400 && status < 500) {
      refused++;
      ctx.recorder.pass(opId, check, `${what}: refused (${status})`, exchange);
    } else if (status !== undefined && status >= 200 && status < 300) {
      ctx.judge(opId, check, false, `${what}: an invalid request was accepted (${status})`, {
        decision: mutation.breaks === 'decision' ? mutation.decision : undefined,
        exchange,
      });
    } else {
      ctx.recorder.fail(opId, check, `${what}: expected a 4xx refusal, got ${describeAnswer(exchange)}`, exchange);
    }
  }
  // A request that parses but breaks the schema is 422 (D02); 400 is for a body that is not JSON
  // at all (D34). One finding for the operation (one cause), with the first such refusal.
  const first = not422[0];
  if (first)
    ctx.judge(
      opId,
      check,
      false,
      `a body that parses but breaks the schema refused with ${first.status}, not 422 (a validation failure is 422, decision D02; 400 is for malformed JSON, D34)`,
      { decision: 'D02', exchange: first.exchange, detail: `${not422.length} of the ${refused} invalid requests refused; the first: ${first.what}` },
    );
  if (hasQuery) await undeclaredParameter(ctx, op, bodies[0]);
}

/** A query parameter the operation does not declare, sent with an otherwise valid request: answered as without it. */
async function undeclaredParameter(ctx: RunContext, op: ContractOperation, body: unknown): Promise<void> {
  const opId = op.operationId;
  const existing = await existingPathParams(ctx, op);
  if ('reason' in existing) return;
  const query = { [unknownParameter]: 'x' };
  const exchange = await ctx.request(op, { body, pathParams: existing.params, query });
  const status = exchange.response?.status;
  // The operation's description says how undeclared parameters are treated; it rests on the decision marked on it.
  const decision = RunContext.decisionOf(op.operation, 'description') ?? unnamedDecision;
  const what = `query ${new URLSearchParams(query)}: not a parameter of ${opId} (ignored, decision ${decision})`;
  if (status !== undefined && status >= 200 && status < 300) ctx.recorder.pass(opId, check, `${what}: answered as without it (${status})`, exchange);
  else if (status !== undefined && status >= 400 && status < 500)
    ctx.judge(opId, check, false, `${what}: refused (${describeAnswer(exchange)})`, { decision, exchange });
  else ctx.recorder.fail(opId, check, `${what}: expected the answer without it, got ${describeAnswer(exchange)}`, exchange);
}

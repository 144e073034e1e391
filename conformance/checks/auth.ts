/**
 * ignored_auth: every covered operation is sent a request that is valid in every respect
 * but the key — without `X-API-KEY`, with a well-formed key nobody issued, and with
 * garbage — and must refuse it with 401.
 *
 * What the seed holds: the `{base_url}` operations require the key (seed §5.1), so an answer
 * that is not a client error there means the key was not checked: fail in both profiles.
 * The `{base_url_alt}` operations require it only by decision (`x-decided: {security: D03}`),
 * and the code 401 itself is the error model's decision (the 401 response is `x-decision`):
 * a 403, or another 4xx because the server looked at the request before the key, departs
 * from decisions only. The request is made as valid as the run can make it (the operation's
 * first valid body from conformance/data/bodies.ts, naming the run's records; a charge the run
 * created for `GET /charge/{id}`), so a server that ignores the key answers 2xx.
 */
import { randomBytes } from 'node:crypto';
import type { ContractOperation } from '../../lib/contract/bundled.js';
import { validBodies } from '../data/bodies.js';
import { existingPathParams, prepareBodies } from '../data/fixtures.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import { describeExchange } from './responses.js';
import { getOnlyReason } from './stateful.js';

const alphabet = (chars: string, n: number): string => [...randomBytes(n)].map((byte) => chars[byte % chars.length]).join('');

/**
 * A key of the reference server's shape (`sk_` + 24 lower-case letters and digits + `_` +
 * 43 base64url characters, D04) that no deployment has issued: only the key is wrong.
 */
export function unknownApiKey(): string {
  const lower = 'abcdefghijklmnopqrstuvwxyz';
  return `sk_${alphabet(lower, 1)}${alphabet(`${lower}0123456789`, 23)}_${randomBytes(32).toString('base64url')}`;
}

/** Garbage where a key belongs. */
export const malformedApiKey = 'not-a-key';

export const authCheck: CheckModule = {
  checks: ['ignored_auth'],
  async run(ctx: RunContext): Promise<void> {
    for (const op of ctx.operations) {
      if (ctx.options.readOnly && op.method !== 'get') {
        ctx.recorder.skip(op.operationId, 'ignored_auth', getOnlyReason);
        continue;
      }
      await checkOperation(ctx, op);
    }
  },
};

async function checkOperation(ctx: RunContext, op: ContractOperation): Promise<void> {
  // Valid in every respect but the key: a record the run created (else the contract's example
  // id) and the operation's first valid body (devMode on, tagged with the run id).
  const existing = await existingPathParams(ctx, op);
  const pathParams = 'params' in existing ? existing.params : { ...ctx.view(op).pathExamples };
  await prepareBodies(ctx, op.operationId);
  const body = validBodies(ctx, op.operationId)[0]?.body;
  // A stateless target (the Prism mock) keeps no keys: it can only tell a missing key.
  const attempts: Array<[string, string | null]> = [['without a key', null]];
  if (!ctx.options.stateless) attempts.push(['with an unknown key', unknownApiKey()], ['with a malformed key', malformedApiKey]);

  // The seed leaves the key of the {base_url_alt} operations open (D03): anything there is a decision.
  const securityDecision = RunContext.decisionOf(op.operation, 'security');
  // 401 itself is the error model's decision (D02); the seed requires the key, not the code.
  const unauthorizedDecision = RunContext.decisionOf(ctx.view(op).response(401)?.response);

  const refused: Array<{ label: string; exchange: Exchange }> = [];
  const unanswered: string[] = [];
  for (const [label, apiKey] of attempts) {
    const exchange = await ctx.request(op, { pathParams, apiKey, ...(body !== undefined ? { body } : {}) });
    // No answer, or a 5xx: the key was not shown to be ignored; not_a_server_error reports it.
    if (!exchange.response || exchange.response.status >= 500) {
      unanswered.push(label);
      continue;
    }
    const status = exchange.response.status;
    if (status === 401) {
      refused.push({ label, exchange });
      continue;
    }
    const what = `${describeExchange(exchange)} ${label}`;
    if (status >= 400 && status < 500) {
      const why =
        status === 403
          ? 'refused with 403 where the contract answers 401'
          : 'the request was judged before the key (the contract answers a missing or unknown key with 401)';
      ctx.judge(op.operationId, 'ignored_auth', false, `${what}: ${why}`, { decision: securityDecision ?? unauthorizedDecision, exchange });
    } else {
      ctx.judge(op.operationId, 'ignored_auth', false, `${what}: not refused, the key was not checked`, { decision: securityDecision, exchange });
    }
  }
  if (unanswered.length === attempts.length) {
    ctx.recorder.skip(op.operationId, 'ignored_auth', 'the target did not answer without a server error (see not_a_server_error)');
    return;
  }
  if (refused.length > 0) {
    ctx.judge(op.operationId, 'ignored_auth', true, `401 ${refused.map((r) => r.label).join(', ')}`, { exchange: refused[0]!.exchange });
  }
  // What was not tried, or not answered, is not shown to be refused: the check did not run in full.
  if (ctx.options.stateless) ctx.recorder.partial(op.operationId, 'ignored_auth', statelessAuthReason);
  if (unanswered.length > 0) ctx.recorder.partial(op.operationId, 'ignored_auth', `${unanswered.join(', ')}: no answer or a 5xx (see not_a_server_error)`);
}

/** Why a stateless run judges only the request without a key. */
export const statelessAuthReason =
  'only the request without a key was sent; a stateless target (--stateless) keeps no keys, so an unknown or a malformed key cannot be told from a valid one';

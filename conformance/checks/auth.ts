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
 * from decisions only. The request is made as valid as the run can make it (the contract's
 * request example with the run's fixtures in place of the example's identifiers, a real
 * charge id for `GET /charge/{id}`), so a server that ignores the key answers 2xx.
 */
import { randomBytes } from 'node:crypto';
import { listOperations, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/run.js';
import type { Exchange } from '../engine/types.js';
import { describeExchange, documentedResponse, followRef, isObject, operationPointer } from './responses.js';

export const readOnlyReason = '--read-only: only GET requests are sent';

const alphabet = (chars: string, n: number): string =>
  [...randomBytes(n)].map((byte) => chars[byte % chars.length]).join('');

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

/** The first request example of an operation's JSON body (`examples` or `example`), or undefined. */
export function requestExample(ctx: RunContext, op: ContractOperation): unknown {
  const { node: body } = followRef(ctx.contract, op.operation.requestBody, `${operationPointer(op)}/requestBody`);
  if (!isObject(body) || !isObject(body.content)) return undefined;
  const media = Object.entries(body.content).find(([type]) => /json/i.test(type))?.[1];
  if (!isObject(media)) return undefined;
  if (isObject(media.examples)) {
    for (const raw of Object.values(media.examples)) {
      const { node } = followRef(ctx.contract, raw, '');
      if (isObject(node) && 'value' in node) return structuredClone(node.value);
    }
  }
  return 'example' in media ? structuredClone(media.example) : undefined;
}

/** The example values of an operation's path parameters (operation and path item level). */
export function pathParameterExamples(ctx: RunContext, op: ContractOperation): Record<string, string> {
  const params: Record<string, string> = {};
  const item = followRef(ctx.contract, (ctx.contract.paths as JsonObject)[op.path], '').node;
  const all = [...(isObject(item) && Array.isArray(item.parameters) ? item.parameters : []), ...(Array.isArray(op.operation.parameters) ? op.operation.parameters : [])];
  for (const raw of all) {
    const { node } = followRef(ctx.contract, raw, '');
    if (!isObject(node) || node.in !== 'path' || typeof node.name !== 'string') continue;
    const schema = followRef(ctx.contract, node.schema, '').node;
    const value = node.example ?? (isObject(schema) ? (Array.isArray(schema.examples) ? schema.examples[0] : schema.example) : undefined);
    if (value !== undefined) params[node.name] = String(value);
  }
  return params;
}

/**
 * The identifiers the run created, by prefix: identifiers are `prefix_cuid2` (the seed's
 * `clnt_`/`comp_`, D13 for the others), so an example's `prod_…` is replaced by the run's product.
 */
function fixtureIds(ctx: RunContext): Map<string, string> {
  const ids = new Map<string, string>();
  for (const id of [ctx.fixtures.productId, ctx.fixtures.subscriptionProductId, ctx.fixtures.clientId]) {
    const prefix = id && /^([a-z]+_)/.exec(id)?.[1];
    if (prefix && !ids.has(prefix)) ids.set(prefix, id);
  }
  return ids;
}

/**
 * An example body made fit to send: identifiers of example records replaced by the run's
 * fixtures, `name` and `externalId` tagged with the run id, development mode on where the
 * body has it (charges are created with `devMode: true`).
 */
export function preparedBody(ctx: RunContext, value: unknown, tag: string): unknown {
  const ids = fixtureIds(ctx);
  const visit = (node: unknown, key: string | undefined): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, key));
    if (isObject(node)) {
      const out: JsonObject = {};
      for (const [k, v] of Object.entries(node)) out[k] = visit(v, k);
      if ('devMode' in out) out.devMode = true;
      return out;
    }
    if (typeof node !== 'string') return node;
    if (key === 'externalId') return `${ctx.runId}-${tag}`;
    if (key === 'name') return `${node} ${ctx.runId}`;
    const prefix = /^([a-z]+_)[0-9a-z]+$/.exec(node)?.[1];
    return (prefix && ids.get(prefix)) ?? node;
  };
  return visit(value, undefined);
}

/** An id found in a creation response: the body's `id`, or `data.id` in the seed's charge envelope. */
function createdId(exchange: Exchange): string | undefined {
  const status = exchange.response?.status ?? 0;
  if (status < 200 || status >= 300) return undefined;
  try {
    const body = JSON.parse(exchange.response!.body) as unknown;
    const id = isObject(body) ? (isObject(body.data) ? body.data.id : body.id) : undefined;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Path parameters naming a record that exists: for `GET /charge/{id}`, the id of a record
 * created (with the run's key) through the POST of the same first path segment. Only when
 * the run may create records; otherwise, and when nothing can be created, the examples.
 */
async function existingPathParams(ctx: RunContext, op: ContractOperation): Promise<Record<string, string>> {
  const params = pathParameterExamples(ctx, op);
  const names = Object.keys(params);
  if (names.length !== 1 || ctx.options.readOnly || ctx.options.stateless) return params;
  const segment = op.path.split('/')[1];
  const creator = listOperations(ctx.contract).find((o) => o.method === 'post' && o.path.split('/')[1] === segment && !o.path.includes('{'));
  if (!creator) return params;
  const body = preparedBody(ctx, requestExample(ctx, creator), 'auth');
  const id = createdId(await ctx.request(creator, body === undefined ? {} : { body }));
  return id ? { [names[0]!]: id } : params;
}

export const authCheck: CheckModule = {
  checks: ['ignored_auth'],
  async run(ctx: RunContext): Promise<void> {
    for (const op of ctx.operations) {
      if (ctx.options.readOnly && op.method !== 'get') {
        ctx.recorder.skip(op.operationId, 'ignored_auth', readOnlyReason);
        continue;
      }
      await checkOperation(ctx, op);
    }
  },
};

async function checkOperation(ctx: RunContext, op: ContractOperation): Promise<void> {
  const pathParams = await existingPathParams(ctx, op);
  const example = requestExample(ctx, op);
  const body = example === undefined ? undefined : preparedBody(ctx, example, 'auth');
  // A stateless target (the Prism mock) keeps no keys: it can only tell a missing key.
  const attempts: Array<[string, string | null]> = [['without a key', null]];
  if (!ctx.options.stateless) attempts.push(['with an unknown key', unknownApiKey()], ['with a malformed key', malformedApiKey]);

  // The seed leaves the key of the {base_url_alt} operations open (D03): anything there is a decision.
  const securityDecision = RunContext.decisionOf(op.operation, 'security');
  // 401 itself is the error model's decision (D02); the seed requires the key, not the code.
  const unauthorizedDecision = RunContext.decisionOf(documentedResponse(ctx.contract, op, 401)?.response);

  const refused: Exchange[] = [];
  let answered = 0;
  for (const [label, apiKey] of attempts) {
    const exchange = await ctx.request(op, { pathParams, apiKey, ...(body !== undefined ? { body } : {}) });
    if (!exchange.response) continue; // not_a_server_error reports it
    answered++;
    const status = exchange.response.status;
    if (status === 401) {
      refused.push(exchange);
      continue;
    }
    const what = `${describeExchange(exchange)} ${label}`;
    if (status >= 400 && status < 500) {
      const why = status === 403 ? 'refused with 403 where the contract answers 401' : 'the request was judged before the key (the contract answers a missing or unknown key with 401)';
      ctx.judge(op.operationId, 'ignored_auth', false, `${what}: ${why}`, { decision: securityDecision ?? unauthorizedDecision, exchange });
    } else {
      ctx.judge(op.operationId, 'ignored_auth', false, `${what}: not refused, the key was not checked`, { decision: securityDecision, exchange });
    }
  }
  if (answered === 0) ctx.recorder.skip(op.operationId, 'ignored_auth', 'the target did not answer');
  else if (refused.length === attempts.length) {
    const tried = attempts.map(([label]) => label).join(', ');
    const note = ctx.options.stateless ? ' (unknown keys not tried: --stateless)' : '';
    ctx.judge(op.operationId, 'ignored_auth', true, `401 ${tried}${note}`, { exchange: refused[0]! });
  }
}

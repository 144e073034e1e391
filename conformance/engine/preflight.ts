/**
 * Before any check: is this a target the run can judge? A wrong target ends the run at once,
 * with one line saying why (the CLI exits 2), instead of a matrix of findings that all come from
 * the address, the key or a mock:
 *
 * 1. **The host answers**: one GET to each base URL within a few seconds (`PREFLIGHT_TIMEOUT_MS`,
 *    not the per-request timeout); no answer is told by its cause (connection refused, no such
 *    host, timed out, a TLS failure …, http.ts `whyNoAnswer`).
 * 2. **The keys work**: key-check.ts (a 401 to the run's key or the second key).
 * 3. **The base URLs serve this interface**: the key probe on `{base_url}` (the seed's own
 *    secured read, `keyProbeOperation`) answers as the contract says that operation can, and
 *    on `{base_url_alt}` one of the seed's own creates, sent an empty object (which the seed's
 *    required fields make invalid, so nothing is created), is not answered "no such operation".
 *    Only what no deployment of this interface answers counts (`notThisOperation`, a web page
 *    where JSON belongs): a foreign-but-correct deployment (other error codes, other bodies, other
 *    ids) passes.
 * 4. **The target is serving**: the key probe answered a server error (5xx), and so did the first
 *    create on `{base_url_alt}` sent `{}` (its database down, say): nothing could be judged, the
 *    run stops (`NotServingError`). A 5xx on the read alone, with the creates answering, is left to
 *    the checks.
 * 5. **The target keeps state** (`detectNoState`, after the run's fixtures, unless `--stateless`
 *    or `--read-only`): two creates with different bodies answered with the same id, or the
 *    record just created not found by the read the contract links to it, mean a mock or a stub
 *    (the Prism mock answers its examples). The run stops there and suggests `--stateless`: going
 *    on with the stateful checks marked not run would let a deployment that loses records pass,
 *    since the run cannot tell a mock from a store that forgets; the user can.
 */
import type { ContractOperation } from '../../lib/contract/bundled.js';
import { linkParameters, linkRole } from '../../lib/contract/links.js';
import { validBodies } from '../data/bodies.js';
import { idOf } from '../data/fixtures.js';
import { RunContext, TargetUnreachableError } from './context.js';
import { send } from './http.js';
import { checkKeysAccepted, keyProbeOperation } from './key-check.js';
import type { Exchange } from './types.js';

/** How long the first request to each base URL may take: a target that answers at all does within seconds. */
export const PREFLIGHT_TIMEOUT_MS = 5_000;

/** How long the run waits before reading a record just created a second time (a replica catching up). */
const READ_AGAIN_AFTER_MS = 1_000;

/** The base URL answers, but not like this interface (a wrong base path, another service). */
export class WrongBaseUrlError extends Error {
  override readonly name = 'WrongBaseUrlError';
}

/**
 * The target answers, but with server errors where it should serve (its database down, a
 * service it needs unreachable): nothing the run would send could be judged.
 */
export class NotServingError extends Error {
  override readonly name = 'NotServingError';
}

/** The target keeps no state (a mock, a stub): the message suggests `--stateless`. */
export class KeepsNoStateError extends Error {
  override readonly name = 'KeepsNoStateError';
}

/** Steps 1–4: throws TargetUnreachableError, KeyRefusedError, WrongBaseUrlError or NotServingError, each with the one line to print. */
export async function preflight(ctx: RunContext, fetchFn: typeof fetch = fetch): Promise<void> {
  const { options } = ctx;
  for (const base of new Set([options.baseUrl, options.baseUrlAlt])) {
    const probe = await send(fetchFn, { operationId: 'preflight', method: 'GET', url: base }, Math.min(PREFLIGHT_TIMEOUT_MS, options.timeoutMs));
    if (probe.error) throw new TargetUnreachableError(`${base} does not answer: ${probe.error}`);
  }
  const keyProbe = await checkKeysAccepted(options, ctx.contract, fetchFn);
  if (keyProbe?.error) throw new TargetUnreachableError(`${keyProbe.request.method} ${keyProbe.request.url} does not answer: ${keyProbe.error}`);
  const op = keyProbeOperation(ctx.contract);
  if (keyProbe && op) {
    const why = notLikeThisApi(op, keyProbe);
    if (why)
      throw new WrongBaseUrlError(`${nothingAnswers(options.baseUrl)} ${op.method.toUpperCase()} ${op.path} with the key answered ${why}${explained(why)}.`);
  }
  const alt = await altBaseServes(ctx);
  // The key probe answered a server error: the key, the base URL and every check after would rest
  // on answers that say nothing. Unless {base_url_alt} answers otherwise (a 4xx to `{}`: then only
  // that read is broken, which the checks report), the target is not serving.
  if (keyProbe && op && serverError(keyProbe) && (!alt || serverError(alt))) {
    const also = alt ? `, and ${alt.request.method} ${new URL(alt.request.url).pathname} sent {} answered ${answerOf(alt)}` : '';
    throw new NotServingError(
      `the target is not serving: ${op.method.toUpperCase()} ${op.path} with the key answered ${answerOf(keyProbe)}${also}. Nothing can be judged while it answers server errors (is its database, or a service it needs, down?); the run stops before any check.`,
    );
  }
}

function serverError(exchange: Exchange): boolean {
  return (exchange.response?.status ?? 0) >= 500;
}

/** `500 (body: {"error":"db down"})`: the status and the start of the body, on one line. */
function answerOf(exchange: Exchange): string {
  const body = (exchange.response?.body ?? '').replace(/\s+/g, ' ').trim();
  const shown = body.length > 120 ? `${body.slice(0, 120)}…` : body;
  return `${exchange.response?.status}${shown ? ` (body: ${shown})` : ''}`;
}

function nothingAnswers(base: string): string {
  return `nothing answers like this API at ${base}: is the base path right?`;
}

/**
 * `{base_url_alt}` serves at least one of the seed's own creates there: each is sent `{}` in
 * turn (invalid under the seed: nothing is created) until one is answered otherwise than "no
 * such operation". A foreign service may refuse `{}` with any 4xx, or 404 because a record it
 * names is missing; only when every create is answered so is the address wrong. Returns the
 * answer that showed it serves them (undefined when the contract has no such create).
 */
async function altBaseServes(ctx: RunContext): Promise<Exchange | undefined> {
  const creates = ctx.contractView.operations.filter((op) => {
    if (op.server !== 'base_url_alt' || op.method !== 'post' || RunContext.decisionOf(op.operation) !== undefined) return false;
    const body = ctx.view(op).requestBody;
    return body !== undefined && !ctx.seed.at(body.pointer)({});
  });
  const answers: string[] = [];
  for (const op of creates) {
    const exchange = await ctx.sendOnce(op, { body: {} });
    if (exchange.error) throw new TargetUnreachableError(`${exchange.request.method} ${exchange.request.url} does not answer: ${exchange.error}`);
    const why = notLikeThisApi(op, exchange);
    if (!why) return exchange;
    answers.push(`${op.method.toUpperCase()} ${op.path} → ${why}`);
  }
  if (answers.length === 0) return undefined;
  const { baseUrl, baseUrlAlt } = ctx.options;
  const elsewhere = baseUrlAlt === baseUrl ? ' If these operations are served at another address, give it as --base-url-alt.' : '';
  throw new WrongBaseUrlError(
    `${nothingAnswers(baseUrlAlt)} Its creates, each sent {}, answered ${answers.join(', ')}${explained(answers.join(' '))}.${elsewhere}`,
  );
}

/** What a status in a reason means. */
function explained(why: string): string {
  return /\b(404|405|501)\b/.test(why) ? ' (no such operation there: not an answer the contract has for it)' : '';
}

/**
 * Why an answer is not one this operation of this interface can give, or undefined when it is:
 * "no such operation" where the contract documents no such status for it (`notThisOperation`),
 * or a web page where the contract's success is JSON.
 */
function notLikeThisApi(op: ContractOperation, exchange: Exchange): string | undefined {
  const response = exchange.response;
  if (!response) return undefined;
  if (notThisOperation(op, response.status)) return String(response.status);
  if (response.status >= 200 && response.status < 300 && isWebPage(exchange))
    return `${response.status} with a web page (${response.headers['content-type'] ?? 'HTML'}), not JSON`;
  return undefined;
}

/**
 * Whether `status` says the target has no such operation at all: 404 (no such path), 405 (not
 * this method) or 501 (not implemented), where the contract documents no such answer for the
 * operation (a read by id answers 404 for a record it does not have; a list or a create never does).
 */
export function notThisOperation(op: ContractOperation, status: number): boolean {
  if (status !== 404 && status !== 405 && status !== 501) return false;
  const documented = Object.keys((op.operation.responses ?? {}) as Record<string, unknown>);
  return !documented.some((code) => code === String(status) || code === `${String(status)[0]}XX` || code === 'default');
}

/**
 * Whether the target lacks the operation altogether, as far as the run saw: every answer it gave
 * the operation so far (the valid requests of the checks before included) said "no such operation"
 * (`notThisOperation`). A refusal by such a status is then no verdict on what the request carried.
 */
export function targetLacks(ctx: RunContext, op: ContractOperation): boolean {
  const answers = ctx.exchanges.filter((e) => e.operationId === op.operationId && e.response);
  return answers.length > 0 && answers.every((e) => notThisOperation(op, e.response!.status));
}

/** Why a check did not judge an operation the target lacks (`targetLacks`). */
export function missingOperationReason(op: ContractOperation, status: number): string {
  return `${op.method.toUpperCase()} ${op.path} is answered ${status}, which the contract never answers to it: the target has no such operation, so nothing was judged`;
}

function isWebPage(exchange: Exchange): boolean {
  const type = exchange.response?.headers['content-type'] ?? '';
  return /html/i.test(type) || /^\s*</.test(exchange.response?.body ?? '');
}

/**
 * Step 5: whether the target keeps what it is sent, through the first create the seed has that
 * the contract links to a read by id the seed has too (`createPaymentLink` → `getCharge`): two
 * such creates with different bodies, then the second read back. Throws KeepsNoStateError when
 * both were answered the same id, or when the read answers 404 now and again a second later.
 * Anything else (a refused create, no id) is left to the checks. The exchanges are the run's
 * (recorded, judged, in the HAR file), and later checks reuse the records.
 */
export async function detectNoState(ctx: RunContext): Promise<void> {
  if (ctx.options.stateless || ctx.options.readOnly) return;
  const link = ctx.contractView.links.find(
    (l) =>
      linkRole(l) === 'read' &&
      l.source.method === 'post' &&
      RunContext.decisionOf(l.source.operation) === undefined &&
      RunContext.decisionOf(l.target.operation) === undefined,
  );
  if (!link) return;
  const create = link.source.operationId;
  const [one, other] = validBodies(ctx, create);
  if (!one) return;
  const first = await ctx.request(create, { body: one.body });
  const second = await ctx.request(create, { body: (other ?? validBodies(ctx, create)[0]!).body });
  const [a, b] = [idOf(first), idOf(second)];
  if (a === undefined || b === undefined) return;
  const stateless = 'if it is a mock or a stub, run again with --stateless (the checks that read back what they create are then not run).';
  if (a === b) throw new KeepsNoStateError(`the target keeps no state: two ${create} requests with different bodies were both answered id ${a}; ${stateless}`);
  const params = linkParameters(link, parseJson(second.response!.body));
  if (!params) return;
  let read = await ctx.request(link.target, { pathParams: params });
  if (read.response?.status !== 404) return;
  await new Promise((resolve) => setTimeout(resolve, READ_AGAIN_AFTER_MS));
  read = await ctx.request(link.target, { pathParams: params });
  if (read.response?.status !== 404) return;
  throw new KeepsNoStateError(
    `the target keeps no state: ${link.target.operationId} answered 404 for ${b}, which ${create} had just created (and again a second later); ${stateless}`,
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

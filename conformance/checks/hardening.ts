/**
 * What an attacker can try from outside with one company's key, as far as a run can see it
 * without harming the target (OWASP API Security Top 10 2023: API4 unrestricted resource
 * consumption, API7 server-side request forgery). Every expectation here rests on a decision of
 * the contract (the seed states no bound, no URL policy and no rate limit), so in the `seed`
 * profile every finding is information.
 *
 * - `bounded_input`: for every array of a request body that the contract bounds (`maxItems`),
 *   the operation's first valid body with that array grown to about 512 KiB of items (distinct
 *   strings where the items are strings: what made `uniqueItems` cost the server seconds) is
 *   refused with a 4xx, and within `PROMPT_MS`; so is the valid body with its first such array
 *   replaced by 500,000 nested arrays (1 MB, what `JSON.parse` spends hundreds of milliseconds
 *   on). A record it created anyway is deleted when the contract links a delete to its create.
 * - `webhook_url_policy` (only with `--production`): registrations at internal addresses
 *   (loopback, private, link-local, the cloud metadata address, `localhost.`, an IPv4-mapped
 *   loopback) are refused with a 4xx. Only registrations are sent: one that is accepted is
 *   deleted at once, before any event could be delivered to it, so the run never makes a
 *   deployment send traffic to an internal address.
 * - `auth_flood_limited` (only with `--flood`): requests with a key nobody issued, sent one after
 *   another, are answered `429` with a `Retry-After` within twice the quota their `RateLimit-Policy` announces
 *   (however a window's edge falls among them, one window sees more than the quota), or within
 *   `FLOOD_MAX` requests when none is announced.
 */
import type { ContractOperation } from '../../lib/contract/bundled.js';
import { validBodies } from '../data/bodies.js';
import { existingPathParams, prepareBodies } from '../data/fixtures.js';
import { itemsOf, keywordOf, sampleValue, typesOf, type SchemaView } from '../data/schema.js';
import { RunContext } from '../engine/context.js';
import { missingOperationReason, targetLacks } from '../engine/preflight.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import { unknownApiKey } from './auth.js';
import { answered, getOnlyReason, isClientError, isSuccess, statelessReason } from './stateful.js';

/** How long a refusal of an oversized body may take: generous (a bounded server answers in milliseconds; an unbounded one took 4 to 18 s). */
export const PROMPT_MS = 2_000;
/** The size an oversized array is grown to: large enough to cost an unbounded validator seconds, under every usual body limit. */
const OVERSIZED_BYTES = 512 * 1024;
/** The most requests the flood check sends when the target announces no quota. */
export const FLOOD_MAX = 300;

/** Webhook URLs at addresses a production deployment must not post to (D40). */
export const internalWebhookUrls: readonly string[] = [
  'https://127.0.0.1/hooks',
  'https://[::1]/hooks',
  'https://[::ffff:127.0.0.1]/hooks',
  'https://localhost./hooks',
  'https://10.0.0.1/hooks',
  'https://192.168.0.1/hooks',
  'https://169.254.169.254/latest/meta-data/',
  'http://127.0.0.1:8080/hooks',
];

export const hardeningCheck: CheckModule = {
  checks: ['bounded_input', 'webhook_url_policy', 'auth_flood_limited'],
  async run(ctx) {
    await boundedInput(ctx);
    await webhookUrlPolicy(ctx);
    // Last of the checks that send requests: it spends the run's anonymous quota.
    await authFlood(ctx);
  },
};

/** An array of a request body the contract bounds: its property, its bound and the decision the bound rests on. */
interface BoundedArray {
  property: string;
  maxItems: number;
  items: SchemaView | undefined;
  decision: string | undefined;
}

function boundedArrays(ctx: RunContext, op: ContractOperation): BoundedArray[] {
  const found: BoundedArray[] = [];
  for (const [property, view] of bodyProperties(ctx, op)) {
    const maxItems = keywordOf(view, 'maxItems');
    if (!typesOf(view).includes('array') || typeof maxItems?.value !== 'number') continue;
    found.push({ property, maxItems: maxItems.value, items: itemsOf(ctx.contract, view), decision: maxItems.decision });
  }
  return found;
}

/** `count` items like `item`; strings made distinct, so no early duplicate ends a uniqueness check. */
function oversized(item: unknown, count: number): unknown[] {
  if (typeof item === 'string') return Array.from({ length: count }, (_, i) => `${item}-${i}`);
  return Array.from({ length: count }, () => item);
}

async function boundedInput(ctx: RunContext): Promise<void> {
  const check = 'bounded_input' as const;
  for (const op of ctx.operations) {
    const arrays = boundedArrays(ctx, op);
    if (arrays.length === 0) continue;
    if (ctx.options.readOnly) {
      ctx.recorder.skip(op.operationId, check, getOnlyReason);
      continue;
    }
    await prepareBodies(ctx, op.operationId);
    const base = validBodies(ctx, op.operationId)[0]?.body;
    if (base === undefined || typeof base !== 'object' || base === null || Array.isArray(base)) {
      ctx.recorder.skip(op.operationId, check, `no valid ${op.operationId} body to grow`);
      continue;
    }
    const existing = await existingPathParams(ctx, op);
    if ('reason' in existing) {
      ctx.recorder.skip(op.operationId, check, existing.reason);
      continue;
    }
    for (const array of arrays) {
      const current = (base as Record<string, unknown>)[array.property];
      const item = Array.isArray(current) && current.length > 0 ? current[0] : array.items ? sampleValue(ctx.contract, array.items) : undefined;
      if (item === undefined) {
        ctx.recorder.partial(op.operationId, check, `${array.property} was not grown: no item to repeat in it`);
        continue;
      }
      const count = Math.max(array.maxItems * 10, Math.floor(OVERSIZED_BYTES / (JSON.stringify(item).length + 1)));
      const body = { ...(base as Record<string, unknown>), [array.property]: oversized(item, count) };
      const exchange = await ctx.request(op, { pathParams: existing.params, body });
      // The report shows what was sent, not half a megabyte of it.
      exchange.request.body = `(${exchange.request.body?.length ?? 0} bytes: the valid body with ${count} items in ${array.property})`;
      const what = `${op.method.toUpperCase()} ${op.path} with ${count.toLocaleString('en')} items in ${array.property} (at most ${array.maxItems} allowed)`;
      if (exchange.response && targetLacks(ctx, op)) {
        // "No such operation" is not a refusal of the size: nothing about the bound was shown.
        ctx.recorder.skip(op.operationId, check, missingOperationReason(op, exchange.response.status));
      } else {
        await judgeRefusal(ctx, op, exchange, what, array.decision, 'a bound checked before the items costs milliseconds');
      }
    }
    await deepBody(ctx, op, existing.params, base as Record<string, unknown>, arrays[0]!);
  }
}

/** Levels of `[` in the deep case: 1 MB of nesting, which `JSON.parse` took 200–600 ms over before a depth bound (D49). */
const DEEP_LEVELS = 500_000;

/**
 * The depth case of `bounded_input`: the operation's valid body with its first bounded array
 * replaced by 500,000 nested arrays (1 MB) is refused with a 4xx within `PROMPT_MS`; a
 * deployment that parses it before any bound takes longer, and several at once stall everyone.
 */
async function deepBody(
  ctx: RunContext,
  op: ContractOperation,
  pathParams: Record<string, string>,
  base: Record<string, unknown>,
  array: BoundedArray,
): Promise<void> {
  const marker = '"DEEP-NESTING-GOES-HERE"';
  const text = JSON.stringify({ ...base, [array.property]: 'DEEP-NESTING-GOES-HERE' }).replace(marker, `${'['.repeat(DEEP_LEVELS)}${']'.repeat(DEEP_LEVELS)}`);
  const exchange = await ctx.request(op, { pathParams, body: text, headers: { 'Content-Type': 'application/json' } });
  exchange.request.body = `(${text.length} bytes: the valid body with ${DEEP_LEVELS.toLocaleString('en')} nested arrays in ${array.property})`;
  const what = `${op.method.toUpperCase()} ${op.path} with ${DEEP_LEVELS.toLocaleString('en')} nested arrays in ${array.property}`;
  if (exchange.response && targetLacks(ctx, op)) return;
  await judgeRefusal(ctx, op, exchange, what, 'D49', 'a depth bound checked on the raw text costs a millisecond');
}

/**
 * `bounded_input`'s verdict on a body past a bound: accepted fails (and the record is deleted),
 * any answer but a 4xx fails, and a 4xx passes when it came within `PROMPT_MS` (`why` says what
 * a prompt refusal costs).
 */
async function judgeRefusal(
  ctx: RunContext,
  op: ContractOperation,
  exchange: Exchange,
  what: string,
  decision: string | undefined,
  why: string,
): Promise<void> {
  const check = 'bounded_input' as const;
  if (isSuccess(exchange)) {
    ctx.judge(op.operationId, check, false, `${what} was accepted (${exchange.response!.status})`, { decision, exchange });
    await ctx.deleteNow(op, exchange);
  } else if (!isClientError(exchange)) {
    ctx.judge(op.operationId, check, false, `${what} ${answered(exchange)}; it must be refused with a 4xx`, { decision, exchange });
  } else {
    const ms = Math.round(exchange.ms);
    const prompt = exchange.ms <= PROMPT_MS;
    ctx.judge(
      op.operationId,
      check,
      prompt,
      prompt ? `${what}: ${exchange.response!.status} in ${ms} ms` : `${what} was refused only after ${ms} ms (at most ${PROMPT_MS} ms: ${why})`,
      { decision, exchange },
    );
  }
}

async function webhookUrlPolicy(ctx: RunContext): Promise<void> {
  const check = 'webhook_url_policy' as const;
  // The operation that registers a URL: a create whose body has a `url` and whose answer a delete is linked to.
  const creates = ctx.operations.filter((op) => op.method === 'post' && bodyProperties(ctx, op).has('url') && ctx.canDelete(op.operationId));
  for (const op of creates) {
    const reason = ctx.options.stateless
      ? statelessReason
      : ctx.options.readOnly
        ? getOnlyReason
        : !ctx.options.production
          ? 'a development deployment may accept loopback receivers (D40); pass --production when the target is one'
          : undefined;
    if (reason) {
      ctx.recorder.skip(op.operationId, check, reason);
      continue;
    }
    await prepareBodies(ctx, op.operationId);
    const base = validBodies(ctx, op.operationId)[0]?.body as Record<string, unknown> | undefined;
    if (!base) {
      ctx.recorder.skip(op.operationId, check, `no valid ${op.operationId} body`);
      continue;
    }
    const decision = RunContext.decisionOf(op.operation);
    for (const url of internalWebhookUrls) {
      const exchange = await ctx.request(op, { body: { ...base, url } });
      if (exchange.response && targetLacks(ctx, op)) {
        // The target has no such registration at all: a 404 refuses no address in particular.
        ctx.recorder.skip(op.operationId, check, missingOperationReason(op, exchange.response.status));
        break;
      }
      const ok = isClientError(exchange);
      ctx.judge(
        op.operationId,
        check,
        ok,
        ok
          ? `${url}: refused (${exchange.response!.status})`
          : `a registration at ${url} ${answered(exchange)}; a production deployment must refuse internal addresses`,
        { decision, exchange },
      );
      // Deleted before anything could be delivered to it.
      if (isSuccess(exchange)) await ctx.deleteNow(op, exchange);
    }
  }
}

/** The properties of an operation's request body, each as a view of its schema. */
function bodyProperties(ctx: RunContext, op: ContractOperation): ReadonlyMap<string, SchemaView> {
  return ctx.view(op).requestBody?.properties ?? new Map();
}

/** The quota `RateLimit-Policy` announces (`"default";q=100;w=60`), if it does. */
export function announcedQuota(header: string | undefined): number | undefined {
  const q = header === undefined ? undefined : /(?:^|;)\s*q=(\d+)/.exec(header)?.[1];
  return q === undefined ? undefined : Number(q);
}

async function authFlood(ctx: RunContext): Promise<void> {
  const check = 'auth_flood_limited' as const;
  // One secured read with no path parameter: the cheapest request a flood can repeat.
  const op = ctx.operations.find(
    (o) => o.method === 'get' && !o.path.includes('{') && (o.operation.security === undefined || (o.operation.security as unknown[]).length > 0),
  );
  if (!op) return;
  if (ctx.options.stateless) return ctx.recorder.skip(op.operationId, check, statelessReason);
  if (!ctx.options.flood) return ctx.recorder.skip(op.operationId, check, `sends up to ${FLOOD_MAX} requests with a wrong key; pass --flood to run it`);
  // The quota and its 429 are the contract's decision (the seed: "Rate limits: not shown").
  const decision = RunContext.decisionOf(ctx.view(op).response(429)?.response);
  const key = unknownApiKey();
  let limit = FLOOD_MAX;
  let last: Exchange | undefined;
  for (let sent = 0; sent < limit; sent++) {
    // Sent as it is: ctx.request would wait out a 429 and send again.
    last = await ctx.sendOnce(op, { apiKey: key });
    if (!last.response) break;
    if (last.response.status === 429) break;
    // Twice the quota and one more: however a fixed window's edge falls among them, one window sees more than its quota.
    if (sent === 0) limit = Math.min(FLOOD_MAX, 2 * ((announcedQuota(last.response.headers['ratelimit-policy']) ?? FLOOD_MAX) + 1));
  }
  if (last) ctx.exchanges.push(last);
  const status = last?.response?.status;
  // The 429 says when to come back (RFC 6585, RFC 9110: delay-seconds or an HTTP-date), as D11 decides.
  const retryAfter = last?.response?.headers['retry-after'];
  const validRetryAfter = retryAfter !== undefined && (/^\d+$/.test(retryAfter.trim()) || !Number.isNaN(Date.parse(retryAfter)));
  ctx.judge(
    op.operationId,
    check,
    status === 429 && validRetryAfter,
    status !== 429
      ? `${limit} requests with a key nobody issued were all answered (the last ${last ? answered(last) : 'got no answer'}); failed-auth floods must be limited per client address`
      : validRetryAfter
        ? `requests with a key nobody issued were limited (429, Retry-After ${retryAfter})`
        : `requests with a key nobody issued were limited (429) ${retryAfter === undefined ? 'without Retry-After' : `with a Retry-After that is neither seconds nor a date ("${retryAfter}")`}; a 429 says when to come back (Retry-After, RFC 6585 and RFC 9110)`,
    { decision, ...(last ? { exchange: last } : {}) },
  );
}

/**
 * What the stateful checks (ensure_resource_availability, idempotency_replay,
 * tenant_isolation) share: when they cannot run, and small readers of exchanges and of the
 * contract's response schemas.
 */
import { isDeepStrictEqual } from 'node:util';
import { deref, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { isPlainObject as isObject } from '../data/schema.js';
import { RunContext } from '../engine/context.js';
import type { CheckName, Exchange } from '../engine/types.js';

export const statelessReason = '--stateless: the target keeps no state (e.g. the Prism mock)';
export const readOnlyReason = '--read-only: the check must create records';
/** Why a check that sends an operation's own request skips an operation that is not a GET. */
export const getOnlyReason = '--read-only: only GET requests are sent';
export const noSecondKeyReason = 'no --second-api-key';

/** Why a check that creates records cannot run on this target, if it cannot. */
export function statefulSkipReason(ctx: RunContext): string | undefined {
  if (ctx.options.stateless) return statelessReason;
  if (ctx.options.readOnly) return readOnlyReason;
  return undefined;
}

/** Records `check` as skipped for every operation of `operationIds` the run covers. */
export function skipAll(ctx: RunContext, operationIds: readonly string[], check: CheckName, reason: string): void {
  for (const operationId of operationIds) if (ctx.covers(operationId)) ctx.recorder.skip(operationId, check, reason);
}

export function isSuccess(exchange: Exchange): boolean {
  const status = exchange.response?.status;
  return status !== undefined && status >= 200 && status < 300;
}

export function isClientError(exchange: Exchange): boolean {
  const status = exchange.response?.status;
  return status !== undefined && status >= 400 && status < 500;
}

/** "answered 422" or "got no answer (why)", for messages. */
export function answered(exchange: Exchange): string {
  return exchange.response ? `answered ${exchange.response.status}` : `got no answer (${exchange.error ?? 'unknown error'})`;
}

/** The response body parsed as JSON, or undefined when there is none or it is not JSON. */
export function jsonOf(exchange: Exchange): unknown {
  const text = exchange.response?.body;
  if (text === undefined || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export { isPlainObject as isObject, replaceValues } from '../data/schema.js';

/**
 * The `data` of a charge envelope (seed §2.1: charge operations answer `{status, message,
 * data}`), or the body itself for the other operations.
 */
export function envelopeData(body: unknown): JsonObject | undefined {
  if (!isObject(body)) return undefined;
  return isObject(body.data) ? body.data : undefined;
}

/** The JSON schema of an operation's first documented 2xx response, dereferenced (its view's). */
export function successSchema(ctx: RunContext, op: ContractOperation): JsonObject | undefined {
  return ctx.view(op).success?.schema;
}

/** The headers of an operation's first documented 2xx response, dereferenced, by name. */
export function successHeaders(ctx: RunContext, op: ContractOperation): Record<string, JsonObject> {
  const headers: Record<string, JsonObject> = {};
  for (const [name, header] of Object.entries((ctx.view(op).success?.response.response.headers ?? {}) as JsonObject))
    headers[name] = deref(ctx.contract, header);
  return headers;
}

/** The properties a schema declares, its own and those of its `allOf` parts (as written, not dereferenced). */
export function propertiesOf(ctx: RunContext, schema: unknown): Record<string, JsonObject> {
  const s = deref(ctx.contract, schema);
  if (!isObject(s)) return {};
  const props: Record<string, JsonObject> = {};
  for (const part of (s.allOf ?? []) as unknown[]) Object.assign(props, propertiesOf(ctx, part));
  Object.assign(props, (s.properties ?? {}) as Record<string, JsonObject>);
  return props;
}

/** Whether a schema (or one of its `allOf` parts) lists `name` as required, and the decision marked on that `required`, if any. */
export function requiredness(ctx: RunContext, schema: unknown, name: string): { required: boolean; decision?: string | undefined } {
  const s = deref(ctx.contract, schema);
  if (!isObject(s)) return { required: false };
  if (Array.isArray(s.required) && s.required.includes(name)) return { required: true, decision: RunContext.decisionOf(s, 'required') };
  for (const part of (s.allOf ?? []) as unknown[]) {
    const found = requiredness(ctx, part, name);
    if (found.required) return found;
  }
  return { required: false };
}

/**
 * Whether two field values are the same: equal JSON, or two timestamps naming the same
 * instant (seed: timestamps are ISO 8601 strings, which may write one instant in several ways).
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (isDeepStrictEqual(a, b)) return true;
  const timestamp = /^\d{4}-\d{2}-\d{2}T/;
  if (typeof a === 'string' && typeof b === 'string' && timestamp.test(a) && timestamp.test(b)) {
    const ta = Date.parse(a);
    return !Number.isNaN(ta) && ta === Date.parse(b);
  }
  return false;
}

/** Whether `value` contains the string `needle` anywhere (as a whole string value). */
export function containsValue(value: unknown, needle: string): boolean {
  if (value === needle) return true;
  if (Array.isArray(value)) return value.some((v) => containsValue(v, needle));
  if (isObject(value)) return Object.values(value).some((v) => containsValue(v, needle));
  return false;
}

/** Short JSON of a value for messages. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

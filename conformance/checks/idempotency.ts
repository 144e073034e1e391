/**
 * idempotency_replay: for every operation that declares an `Idempotency-Key` header parameter
 * in the contract (`createPaymentLink`), a retry with the same key is answered with the first
 * response, and the key cannot be reused for another request.
 *
 * 1. Body B with a fresh key K answers 2xx (and is not marked as a replay).
 * 2. B again with K answers the first response again: the same status and the same JSON body
 *    (seed §4.1: "the earlier response is returned again (cached)"; a failure otherwise). That
 *    it is byte for byte the same text and carries the replay marker header the contract
 *    declares on the success response (`Idempotent-Replayed: true`) rests on D10.
 * 3. Another body B′ with K is refused with a 4xx (D10; in the reference profile with the
 *    status the contract gives the reused-key problem, 422).
 */
import { isDeepStrictEqual } from 'node:util';
import { randomBytes } from 'node:crypto';
import { deref, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { validBodies } from '../data/bodies.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import { answered, isClientError, isObject, isSuccess, jsonOf, show, skipAll, statefulSkipReason, successHeaders } from './stateful.js';

const check = 'idempotency_replay' as const;

/** The header parameter named by the IETF Idempotency-Key draft (seed §4.1). */
const keyHeader = 'idempotency-key';

/** D10 (and the contract's Problem table): the problem type of a key reused with another body. */
const reusedKeyProblem = /idempotency-key-reused$/;

export const idempotencyCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    const operations = idempotentOperations(ctx);
    const reason = statefulSkipReason(ctx);
    if (reason) {
      skipAll(
        ctx,
        operations.map((o) => o.op.operationId),
        check,
        reason,
      );
      return;
    }
    for (const { op, parameter } of operations) await replay(ctx, op, parameter);
  },
};

/** The operations of the run that declare an `Idempotency-Key` header parameter, with that parameter. */
export function idempotentOperations(ctx: RunContext): Array<{ op: ContractOperation; parameter: JsonObject }> {
  const found: Array<{ op: ContractOperation; parameter: JsonObject }> = [];
  for (const op of ctx.operations) {
    for (const raw of (op.operation.parameters ?? []) as unknown[]) {
      const parameter = deref(ctx.contract, raw);
      if (parameter.in === 'header' && String(parameter.name).toLowerCase() === keyHeader) found.push({ op, parameter });
    }
  }
  return found;
}

/** A value of a response header, by case-insensitive name. */
function header(exchange: Exchange, name: string): string | undefined {
  return exchange.response?.headers[name.toLowerCase()];
}

/**
 * The header the contract declares on the success response to mark a replay (one whose schema
 * admits a single value, marked with a decision, as `Idempotent-Replayed` is with D10).
 */
function replayMarker(ctx: RunContext, op: ContractOperation): { name: string; value: string; decision: string | undefined } | undefined {
  for (const [name, h] of Object.entries(successHeaders(ctx, op))) {
    const schema = deref(ctx.contract, h.schema);
    const values = isObject(schema) && Array.isArray(schema.enum) ? schema.enum : [];
    const decision = RunContext.decisionOf(h);
    if (values.length === 1 && typeof values[0] === 'string' && decision) return { name, value: values[0], decision };
  }
  return undefined;
}

/** The status the contract gives the reused-key problem on this operation (the response whose example is that problem). */
function reusedKeyStatus(ctx: RunContext, op: ContractOperation): number | undefined {
  for (const [code, raw] of Object.entries((op.operation.responses ?? {}) as JsonObject)) {
    const response = deref(ctx.contract, raw);
    for (const media of Object.values((response.content ?? {}) as Record<string, JsonObject>)) {
      for (const example of Object.values((media.examples ?? {}) as JsonObject)) {
        const value = deref(ctx.contract, example).value;
        if (isObject(value) && typeof value.type === 'string' && reusedKeyProblem.test(value.type)) return Number(code);
      }
    }
  }
  return undefined;
}

/**
 * Another body for the same operation: the first body with one run-tagged string changed
 * (for a payment link, its `externalId`), else the next valid body that differs.
 */
function otherBody(ctx: RunContext, body: unknown, alternatives: unknown[]): unknown {
  let changed = false;
  const change = (value: unknown): unknown => {
    if (!changed && typeof value === 'string' && value.includes(ctx.runId)) {
      changed = true;
      return `${value}-b`;
    }
    if (Array.isArray(value)) return value.map(change);
    if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, change(v)]));
    return value;
  };
  if (isObject(body)) {
    // Top-level strings first: they are the record's own tags (names, externalId).
    for (const [k, v] of Object.entries(body)) {
      if (typeof v === 'string' && v.includes(ctx.runId)) return { ...body, [k]: `${v}-b` };
    }
  }
  const deep = change(body);
  if (changed) return deep;
  return alternatives.find((b) => !isDeepStrictEqual(b, body));
}

async function replay(ctx: RunContext, op: ContractOperation, parameter: JsonObject): Promise<void> {
  const opId = op.operationId;
  const bodies = validBodies(ctx, opId).map((b: { body: unknown }) => b.body);
  const body = bodies[0];
  if (body === undefined) {
    ctx.recorder.skip(opId, check, `no valid request body for ${opId}`);
    return;
  }
  const name = String(parameter.name);
  const key = `${ctx.runId}-${randomBytes(6).toString('hex')}`;
  const decision = RunContext.decisionOf(parameter, 'schema') ?? RunContext.decisionOf(parameter);
  const marker = replayMarker(ctx, op);

  const first = await ctx.request(op, { headers: { [name]: key }, body });
  if (!isSuccess(first)) {
    ctx.recorder.skip(
      opId,
      check,
      `the first request with ${name} ${answered(first)}, so there is nothing to replay (positive_data_acceptance judges valid bodies)`,
    );
    return;
  }
  if (marker) {
    const value = header(first, marker.name);
    const fresh = value !== marker.value;
    ctx.judge(
      opId,
      check,
      fresh,
      fresh
        ? `the first response to a new ${name} is not marked as a replay`
        : `the first response to a new ${name} is marked \`${marker.name}: ${value}\` although nothing was replayed`,
      { decision: marker.decision, exchange: first },
    );
  }

  // Seed §4.1: the same key again returns the earlier response.
  const second = await ctx.request(op, { headers: { [name]: key }, body });
  if (!second.response) {
    ctx.judge(opId, check, false, `the retry with the same ${name} ${answered(second)}`, { exchange: second });
  } else {
    const sameStatus = second.response.status === first.response!.status;
    const firstJson = jsonOf(first);
    // A first body that is not JSON (response_schema_conformance reports that) is compared as text.
    const sameJson = firstJson !== undefined ? isDeepStrictEqual(jsonOf(second), firstJson) : second.response.body === first.response!.body;
    if (!sameStatus)
      ctx.judge(
        opId,
        check,
        false,
        `the retry with the same ${name} and body answered ${second.response.status}, the first request ${first.response!.status}`,
        { exchange: second },
      );
    if (!sameJson)
      ctx.judge(
        opId,
        check,
        false,
        `the retry with the same ${name} and body did not return the first response's body${describeDifference(firstJson, jsonOf(second))}`,
        { exchange: second },
      );
    if (sameStatus && sameJson) {
      ctx.judge(opId, check, true, `the retry with the same ${name} and body returned the first response (status ${second.response.status}, same JSON body)`, {
        exchange: second,
      });
      // D10: byte for byte, and marked as a replay.
      const sameText = second.response.body === first.response!.body;
      ctx.judge(
        opId,
        check,
        sameText,
        sameText ? 'the replayed body is byte for byte the first one' : 'the replayed body is the same JSON but not byte for byte the first response',
        { decision, exchange: second },
      );
    }
    if (marker && isSuccess(second)) {
      const value = header(second, marker.name);
      ctx.judge(
        opId,
        check,
        value === marker.value,
        value === marker.value
          ? `the replay is marked \`${marker.name}: ${value}\``
          : `the replay does not carry \`${marker.name}: ${marker.value}\`${value === undefined ? '' : ` (got ${show(value)})`}`,
        { decision: marker.decision, exchange: second },
      );
    }
  }

  // D10: the same key with another body is refused (422, the reused-key problem).
  const different = otherBody(ctx, body, bodies.slice(1));
  if (different === undefined) {
    // The replay passed, but the key's reuse with another body was not tried: not run in full.
    ctx.recorder.partial(opId, check, `the key was not reused with another body: no second valid body of ${opId}`);
    return;
  }
  const third = await ctx.request(op, { headers: { [name]: key }, body: different });
  const status = third.response?.status;
  if (!isClientError(third)) {
    const what = isSuccess(third) ? `was accepted (${status})` : answered(third);
    ctx.judge(opId, check, false, `the same ${name} with a different body ${what} instead of being refused with a 4xx`, { decision, exchange: third });
    return;
  }
  const expected = reusedKeyStatus(ctx, op);
  if (expected !== undefined && status !== expected) {
    ctx.judge(opId, check, false, `the same ${name} with a different body was refused with ${status}, not ${expected} (the reused-key problem)`, {
      decision,
      exchange: third,
    });
    return;
  }
  ctx.judge(opId, check, true, `the same ${name} with a different body was refused with ${status}`, { exchange: third });
}

/** Which top-level field differs, for the message (the new record's id, typically). */
function describeDifference(a: unknown, b: unknown): string {
  if (b === undefined) return ' (the retry has no JSON body)';
  const aData = isObject(a) && isObject(a.data) ? a.data : a;
  const bData = isObject(b) && isObject(b.data) ? b.data : b;
  if (isObject(aData) && isObject(bData)) {
    const field = [...new Set([...Object.keys(aData), ...Object.keys(bData)])].find((k) => !isDeepStrictEqual(aData[k], bData[k]));
    if (field) return `: \`${field}\` is ${show(bData[field])}, was ${show(aData[field])}`;
  }
  return '';
}

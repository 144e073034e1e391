import { hash } from 'node:crypto';
import type { Context } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import type { OperationRules } from './operations.js';
import { ProblemError } from './problems.js';
import { REQUEST_ID_HEADER, stampedResponse } from './request-id.js';
import type { IdempotencyClaimInput } from '../store/types.js';

/**
 * The IETF Idempotency-Key protocol (D10) for every operation whose contract takes the
 * `Idempotency-Key` header. The first request with a key claims it; a retry with the same key and
 * body gets the first answer again (`Idempotent-Replayed: true`); a retry while the first is still
 * running is `409`, the key with another body `422`. Only a success is remembered, and it is
 * remembered in the transaction that makes it (the handler hands the claim, `idempotency`, to its
 * store call): a key is never answered with a success that was not stored, nor left claimed by a failure.
 */
export function idempotencyLayer(
  deps: Deps,
  rules: OperationRules,
  replayHeaders: (status: number, body: string) => Record<string, string>,
): ((c: Context<AppEnv>, handle: () => Promise<Response>) => Promise<Response>) | undefined {
  if (!rules.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')) return undefined;
  return async (c, handle) => {
    const key = idempotencyKey(c.req.header('idempotency-key'));
    if (!key) return handle();
    const companyId = c.get('company').doc.id;
    const now = deps.now();
    const input: IdempotencyClaimInput = {
      companyId,
      key,
      fingerprint: fingerprint(c, c.get('body')),
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + deps.config.idempotencyLeaseSeconds * 1000).toISOString(),
      expiresAt: new Date(now.getTime() + deps.config.idempotencyTtlSeconds * 1000).toISOString(),
    };
    const claim = await deps.store.claimIdempotencyKey(input);
    switch (claim.kind) {
      case 'replay':
        return stampedResponse(claim.body, claim.status, {
          'Content-Type': 'application/json',
          [REQUEST_ID_HEADER]: c.get('requestId'),
          ...c.get('rateLimit'),
          ...replayHeaders(claim.status, claim.body),
          'Idempotent-Replayed': 'true',
        });
      case 'in-flight':
        throw new ProblemError('idempotencyInProgress', 'A request with this Idempotency-Key is still being processed; retry after it has finished.');
      case 'mismatch':
        throw new ProblemError('idempotencyKeyReused', 'This Idempotency-Key was already used with a different request body; use a new key for a new request.');
      case 'claimed': {
        c.set('idempotency', input);
        // After any failure, thrown or answered, the key is free again.
        let answer: Response;
        try {
          answer = await handle();
        } catch (error) {
          await deps.store.releaseIdempotencyKey(companyId, key);
          throw error;
        }
        if (answer.status >= 300) await deps.store.releaseIdempotencyKey(companyId, key);
        return answer;
      }
    }
  };
}

/** The key as the IETF draft sends it (a quoted structured-field string) or bare. */
function idempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  return /^".*"$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
}

/** What "the same request" means for a key: the same operation and the same body as stored (D46), field order aside. */
function fingerprint(c: Context<AppEnv>, body: unknown): string {
  return hash('sha256', `${c.req.method} ${c.req.path}\n${canonicalJson(body)}`);
}

/** JSON with every object's keys in code-unit order, at any depth: one text for one value, however its fields were ordered. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += `${i > 0 ? ',' : ''}${canonicalJson(value[i])}`;
    return `${text}]`;
  }
  if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    // Object.keys' array sorted in place: no entry pairs made only to be sorted.
    const keys = Object.keys(object).sort();
    let text = '{';
    for (let i = 0; i < keys.length; i++) text += `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:${canonicalJson(object[keys[i]!])}`;
    return `${text}}`;
  }
  return JSON.stringify(value);
}

/**
 * Retries of one request with exponential backoff and full jitter. What is worth retrying: a
 * network failure, a `5xx`, a `429` (waiting at least its `Retry-After`), and a `409` whose
 * problem says an earlier request with the same `Idempotency-Key` is still in progress. Whether a
 * request may be retried at all is decided by the caller (client/operation-fetch.ts): only a
 * request that is safe to send twice is.
 */
import { inProgressProblemTypes } from '../generated/client-routes.js';

export interface RetryOptions {
  /** Attempts in all, the first included (default 4). */
  attempts?: number;
  /** Upper bound of the first backoff, doubled at each retry (default 250 ms). */
  baseDelayMs?: number;
  /** Largest backoff (default 5000 ms). */
  maxDelayMs?: number;
  /** A `Retry-After` longer than this is not waited for: the answer is returned (default 30 000 ms). */
  maxRetryAfterMs?: number;
}

export type RetryPolicy = Required<RetryOptions>;

export const defaultRetryPolicy: RetryPolicy = { attempts: 4, baseDelayMs: 250, maxDelayMs: 5000, maxRetryAfterMs: 30_000 };

/** The clock and dice of the retries, replaced in tests. */
export interface Pacing {
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random: () => number;
}

export const realPacing: Pacing = {
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    }),
  random: Math.random,
};

/** Milliseconds a `Retry-After` asks for (seconds or an HTTP date), or undefined when it has none. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

async function isInProgress(response: Response, url: string): Promise<boolean> {
  try {
    const problem: unknown = await response.clone().json();
    if (typeof problem !== 'object' || problem === null || !('type' in problem) || typeof problem.type !== 'string') return false;
    // Problem types are URI references relative to the base URL: compare them resolved.
    const type = new URL(problem.type, url).href;
    return inProgressProblemTypes.some((known) => new URL(known, url).href === type);
  } catch {
    return false;
  }
}

/** How long to wait before retrying after `response`, or undefined when it is final. */
async function waitAfter(response: Response, url: string, backoff: number, policy: RetryPolicy): Promise<number | undefined> {
  const { status } = response;
  const retryable = status === 429 || status >= 500 || (status === 409 && (await isInProgress(response, url)));
  if (!retryable) return undefined;
  const asked = retryAfterMs(response.headers.get('retry-after'));
  if (asked === undefined) return backoff;
  if (asked > policy.maxRetryAfterMs) return undefined;
  return Math.max(asked, backoff);
}

/** Sends `request` until an answer is final or the attempts run out; the last answer or failure is the caller's. */
export async function fetchWithRetry(
  fetchFn: (request: Request) => Promise<Response>,
  request: Request,
  policy: RetryPolicy = defaultRetryPolicy,
  pacing: Pacing = realPacing,
): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const backoff = pacing.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    const last = attempt >= policy.attempts;
    let response: Response;
    try {
      // Each attempt sends a copy: a body can be read only once.
      response = await fetchFn(request.clone());
    } catch (error) {
      if (last || request.signal.aborted) throw error;
      await pacing.sleep(backoff, request.signal);
      continue;
    }
    const wait = last ? undefined : await waitAfter(response, request.url, backoff, policy);
    if (wait === undefined) return response;
    await response.body?.cancel();
    await pacing.sleep(wait, request.signal);
  }
}

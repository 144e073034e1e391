/**
 * When a failed webhook delivery is tried again (D14): the configured schedule of delays between
 * attempts with ±20 % jitter, at least as long as a `Retry-After` on `429`/`503`, given up once
 * the schedule is used up. Pure functions: the worker passes the clock and the random source.
 */

/** The share of a delay by which it is moved at random either way, so that retries do not bunch up. */
export const JITTER = 0.2;

/** The longest `Retry-After` honoured: an endpoint cannot park an event for longer than a day per attempt. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

/** Status codes whose `Retry-After` is honoured (RFC 9110 §10.2.3 names 503; RFC 6585 names 429). */
const RETRY_AFTER_STATUSES: ReadonlySet<number> = new Set([429, 503]);

/** `delayMs` moved by up to ±JITTER of itself; `random` returns a number in [0, 1). */
export function withJitter(delayMs: number, random: () => number): number {
  return Math.max(0, Math.round(delayMs * (1 + (random() * 2 - 1) * JITTER)));
}

/**
 * The delay in milliseconds of a `Retry-After` value, either delay-seconds or an HTTP date
 * (RFC 9110 §10.2.3), capped at MAX_RETRY_AFTER_MS; undefined when absent or unreadable. A date
 * in the past is a delay of 0.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^[0-9]+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  // Every HTTP date form starts with a weekday name; Date.parse alone would take "2026" or "-1" too.
  if (!/^[A-Za-z]{3,9},? /.test(text)) return undefined;
  // The asctime form names no zone; every HTTP date is in GMT.
  const at = Date.parse(/GMT$/.test(text) ? text : `${text} GMT`);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

export interface FailedAttempt {
  /** The attempt that failed, from 1. */
  attempt: number;
  /** The endpoint's status code, when it answered. */
  httpStatus?: number;
  /** Its `Retry-After` header, as sent. */
  retryAfter?: string | null;
}

/**
 * How long to wait before trying again after `failed`, in milliseconds, or undefined when the
 * schedule (seconds between attempts: entry n follows attempt n) is used up and the delivery is
 * given up.
 */
export function retryDelayMs(scheduleSeconds: readonly number[], failed: FailedAttempt, now: Date, random: () => number): number | undefined {
  const seconds = scheduleSeconds[failed.attempt - 1];
  if (seconds === undefined) return undefined;
  const delay = withJitter(seconds * 1000, random);
  if (failed.httpStatus === undefined || !RETRY_AFTER_STATUSES.has(failed.httpStatus)) return delay;
  return Math.max(delay, parseRetryAfter(failed.retryAfter, now) ?? 0);
}

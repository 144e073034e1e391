import { validationProblem } from '../http/problems.js';

/** RFC 3339 has four-digit years only; JavaScript writes other years as `+010000` or `-000001`. */
const rfc3339Year = /^\d{4}-/;

/** Whether a Date can be written as the service writes timestamps (D35). */
export function isWritableInstant(date: Date): boolean {
  return !Number.isNaN(date.getTime()) && rfc3339Year.test(date.toISOString());
}

/**
 * A timestamp from a request, rewritten the way the service writes every timestamp
 * (D35: UTC, milliseconds, `Z`). RFC 3339 allows what cannot be written back that way (a
 * leap second; a year past 9999 once the offset is applied): such a value is a 422 on its
 * field, never a crash and never an invalid timestamp in a response.
 */
export function toUtcTimestamp(value: string, pointer: string): string {
  const date = new Date(value);
  if (!isWritableInstant(date)) {
    throw validationProblem([{ pointer, detail: 'must be a date-time between the years 0000 and 9999 in UTC, without a leap second', keyword: 'format' }]);
  }
  return date.toISOString();
}

import { validationProblem } from '../http/problems.js';

/**
 * A timestamp from a request, rewritten the way the service writes every timestamp
 * (D35: UTC, milliseconds, `Z`). RFC 3339 allows what JavaScript cannot represent
 * (a leap second): such a value is a 422 on its field, never a crash.
 */
export function toUtcTimestamp(value: string, pointer: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw validationProblem([{ pointer, detail: 'must be a date-time the service can represent', keyword: 'format' }]);
  }
  return date.toISOString();
}

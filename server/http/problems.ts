import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { components } from '../../generated/openapi.js';
import type { FieldError } from '../../lib/contract/ajv.js';
import { cut, MAX_ECHO, validationFields } from '../../lib/problems/field-errors.mjs';
import { instanceOf } from '../../lib/problems/instance.mjs';

export type Problem = components['schemas']['Problem'];

/**
 * The problem types of the contract (D02, the table in the `Problem` schema). A test
 * checks this catalogue against that table, so the two cannot drift apart.
 */
export const problemTypes = {
  malformedRequest: { type: '/problems/malformed-request', title: 'Malformed request body', status: 400 },
  unauthorized: { type: '/problems/unauthorized', title: 'Unauthorized', status: 401 },
  liveCharge: { type: '/problems/live-charge', title: 'Not a development charge', status: 403 },
  sandboxOnly: { type: '/problems/sandbox-only', title: 'Only on a development deployment', status: 403 },
  notFound: { type: '/problems/not-found', title: 'Not found', status: 404 },
  methodNotAllowed: { type: '/problems/method-not-allowed', title: 'Method not allowed', status: 405 },
  requestTimeout: { type: '/problems/request-timeout', title: 'Request timeout', status: 408 },
  idempotencyInProgress: { type: '/problems/idempotency-request-in-progress', title: 'Idempotent request in progress', status: 409 },
  invalidTransition: { type: '/problems/invalid-transition', title: 'Invalid state transition', status: 409 },
  webhookLimitReached: { type: '/problems/webhook-limit-reached', title: 'Webhook limit reached', status: 409 },
  payloadTooLarge: { type: '/problems/payload-too-large', title: 'Payload too large', status: 413 },
  uriTooLong: { type: '/problems/uri-too-long', title: 'URI too long', status: 414 },
  unsupportedMediaType: { type: '/problems/unsupported-media-type', title: 'Unsupported media type', status: 415 },
  validation: { type: '/problems/validation-error', title: 'Request validation failed', status: 422 },
  idempotencyKeyReused: { type: '/problems/idempotency-key-reused', title: 'Idempotency-Key reused', status: 422 },
  rateLimited: { type: '/problems/rate-limited', title: 'Too many requests', status: 429 },
  headersTooLarge: { type: '/problems/header-fields-too-large', title: 'Request header fields too large', status: 431 },
  internal: { type: '/problems/internal-error', title: 'Internal server error', status: 500 },
} as const;

export type ProblemKind = keyof typeof problemTypes;

/** An error that answers as an RFC 9457 problem; thrown anywhere, rendered by `app.onError`. */
export class ProblemError extends HTTPException {
  readonly kind: ProblemKind;
  readonly detail: string;
  readonly errors: FieldError[] | undefined;
  readonly omittedErrors: number;
  readonly extraHeaders: Record<string, string>;

  constructor(kind: ProblemKind, detail: string, options: { errors?: FieldError[]; omittedErrors?: number; headers?: Record<string, string> } = {}) {
    super(problemTypes[kind].status as ContentfulStatusCode, { message: detail });
    this.kind = kind;
    // The contract's bound on `detail` (2048, D49), whatever a message forgot to cut.
    this.detail = cut(detail, MAX_DETAIL);
    this.errors = options.errors;
    this.omittedErrors = options.omittedErrors ?? 0;
    this.extraHeaders = options.headers ?? {};
  }

  /** The problem body; `instance` is the path the request was sent to, where one is known. */
  toProblem(pathname?: string): Problem {
    const { type, title, status } = problemTypes[this.kind];
    return {
      type,
      title,
      status,
      detail: this.detail,
      ...(pathname !== undefined ? { instance: instanceOf(pathname) } : {}),
      ...(this.errors ? { errors: this.errors } : {}),
      ...(this.omittedErrors > 0 ? { omittedErrors: this.omittedErrors } : {}),
    };
  }
}

/**
 * The one rendering of a problem as an answer, for every route (`app.onError`, the payment
 * pages); `headers` are the route's own, under the error's.
 */
export function problemResponse(error: ProblemError, pathname: string, headers: Record<string, string> = {}): Response {
  const body = error.toProblem(pathname);
  return new Response(JSON.stringify(body), {
    status: body.status,
    headers: { 'Content-Type': 'application/problem+json', ...headers, ...error.extraHeaders },
  });
}

/** `instance`: one definition for the server and the mock's front (lib/problems/instance.mjs). */
export { instanceOf };

const MAX_DETAIL = 2048;

/**
 * A value the caller chose (an id, a path, a method), as a problem's `detail` repeats it: at most
 * 200 characters, cut with an ellipsis, as every echo of the API's problems.
 */
export function echo(value: string): string {
  return cut(value, MAX_ECHO);
}

/**
 * A 422 naming the failing fields (D02, D49): `errors` lists the first 20, `omittedErrors` counts
 * the rest, and `detail` says the first five in words, so a person reading it knows what to fix
 * (`items/0/productId must look like prod_…; total must be at least 500.`). The answer stays
 * small however many fields are wrong.
 */
export function validationProblem(errors: FieldError[], omitted = 0): ProblemError {
  const fields = validationFields(errors, omitted);
  return new ProblemError('validation', fields.detail, { errors: fields.errors, omittedErrors: fields.omittedErrors });
}

export function notFound(what: string, id: string): ProblemError {
  return new ProblemError('notFound', `No ${what} with id ${echo(id)} exists for this company.`);
}

/** The field error of a body field that refers to something the company does not have (D27). */
export function unknownReferenceError(pointer: string, what: string): FieldError {
  return { pointer, detail: `names no ${what} of this company`, keyword: 'exists' };
}

/** The field error of a body field that refers to an INACTIVE product or client (D45). */
export function inactiveReferenceError(pointer: string, what: string): FieldError {
  return { pointer, detail: `names an INACTIVE ${what}; only an ACTIVE ${what} can be sold or billed`, keyword: 'active' };
}

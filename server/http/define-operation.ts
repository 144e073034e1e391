/**
 * Operations registered by operationId. A handler names its operation; the method and path come
 * from the contract, and the request it receives and the answer it returns are typed by the
 * generated `operations`, so the compiler holds each handler to its operation: a body the
 * contract does not send, a status it does not document or an answer of the wrong shape does
 * not compile. Errors are not answers: they are thrown as problems (`ProblemError`).
 */
import type { Context } from 'hono';
import type { operations } from '../../generated/openapi.js';
import type { AppEnv, Deps } from '../deps.js';
import type { CompanyRecord, IdempotencyClaimInput } from '../store/types.js';
import { REQUEST_ID_HEADER, stampedResponse } from './request-id.js';

export type OperationId = keyof operations;

type Responses<Id extends OperationId> = operations[Id]['responses'];
type SuccessStatus<Id extends OperationId> = Extract<keyof Responses<Id>, 200 | 201 | 202 | 203 | 204 | 205 | 206>;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;

declare const serialised: unique symbol;
const utf8 = new TextDecoder();
/**
 * The JSON of a `T`, as text or as its UTF-8 bytes: an answer kept serialised (a stored charge,
 * an idempotent replay, a whole client list) is sent as it is. Bytes are for large answers kept
 * in memory: a socket takes them as they are, where a string is encoded again on every send.
 */
export type Serialised<T> = SerialisedText<T> | ((Uint8Array | ReadableStream<Uint8Array>) & { readonly [serialised]: T });
/** The JSON text of a `T` (what a store keeps as text). */
export type SerialisedText<T> = string & { readonly [serialised]: T };

/** JSON known to be of a `T`: made by `serialise`, or read back from where a `serialise`d text was stored. */
export function asSerialised<T>(json: string): SerialisedText<T>;
export function asSerialised<T>(json: string | Uint8Array | ReadableStream<Uint8Array>): Serialised<T>;
export function asSerialised<T>(json: string | Uint8Array | ReadableStream<Uint8Array>): Serialised<T> {
  return json as Serialised<T>;
}

export function serialise<T>(value: T): SerialisedText<T> {
  return asSerialised<T>(JSON.stringify(value));
}

/**
 * A value and its JSON, made once: the answer sends the JSON as it is, and what the contract
 * reads from the answer (its `Location`) is read from the value, not parsed back from the text.
 */
export class WithJson<T> {
  readonly json: SerialisedText<T>;
  constructor(readonly value: T) {
    this.json = serialise(value);
  }
}

/** The value a `Serialised` text holds. */
export function parseSerialised<T>(json: Serialised<T>): T {
  if (json instanceof ReadableStream) throw new Error('A streamed answer cannot be parsed here.');
  return JSON.parse(typeof json === 'string' ? json : utf8.decode(json)) as T;
}

/** One documented success of the operation: its status, and its JSON body unless it has none (204). */
export type Answer<Id extends OperationId> = {
  [S in SuccessStatus<Id>]: [JsonOf<Responses<Id>[S]>] extends [never]
    ? { status: S; body?: never; headers?: Record<string, string> }
    : {
        status: S;
        body: JsonOf<Responses<Id>[S]> | Serialised<JsonOf<Responses<Id>[S]>> | WithJson<JsonOf<Responses<Id>[S]>>;
        headers?: Record<string, string>;
      };
}[SuccessStatus<Id>];

type Parameters<Id extends OperationId> = operations[Id]['parameters'];

/** The JSON request body as validated and normalised (D46); undefined only where the contract makes it optional. */
export type RequestBody<Id extends OperationId> = operations[Id] extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : operations[Id] extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B | undefined
    : undefined;

export type PathParams<Id extends OperationId> = Parameters<Id> extends { path: infer P } ? P : Record<string, never>;

export type QueryParams<Id extends OperationId> = Parameters<Id> extends { query?: infer Q } ? NonNullable<Q> : Record<string, never>;

export interface OperationInput<Id extends OperationId> {
  /**
   * The operation's path template as the contract has it (`/client`, `/client/{id}`): what a
   * handler names itself by (a list's next-page `Link`), without looking the operation up.
   */
  path: string;
  body: RequestBody<Id>;
  params: PathParams<Id>;
  /** The query parameters sent, valid against their schemas. */
  query: QueryParams<Id>;
  /** The caller's company (every operation of the contract is secured). */
  company: CompanyRecord;
  /**
   * The claim of the Idempotency-Key this request sent (operations that take one): the handler
   * stores its answer under it in the transaction that makes the record, so a retry is answered
   * with it.
   */
  idempotency: IdempotencyClaimInput | undefined;
}

/** Where an answer's `Location` points, from the contract (server/http/location.ts). */
export type LocationOf = (status: number, body: unknown) => string | undefined;

/** Where the operation is mounted, from the contract: its path template and its `Location` rule. */
export interface OperationRoute {
  path: string;
  location?: LocationOf;
}

export interface DefinedOperation {
  operationId: OperationId;
  handle(c: Context<AppEnv>, route: OperationRoute): Promise<Response>;
}

export function defineOperation<Id extends OperationId>(operationId: Id, handler: (input: OperationInput<Id>) => Promise<Answer<Id>>): DefinedOperation {
  return {
    operationId,
    async handle(c, { path, location }) {
      // The request's checks validated both against this operation's schemas before the handler runs.
      const body = c.get('body') as RequestBody<Id>;
      const params = c.req.param() as PathParams<Id>;
      const query = c.get('query') as QueryParams<Id>;
      return respond(c, await handler({ path, body, params, query, company: c.get('company'), idempotency: c.get('idempotency') }), location);
    },
  };
}

/**
 * The answer as a Response of its own with plain headers, not through `c.body`: with more than
 * one header Hono would build a `Headers` object, which the Node server then copies back into a
 * plain one to write. Its headers are one object, filled in order.
 */
function respond(c: Context<AppEnv>, answer: { status: number; body?: unknown; headers?: Record<string, string> }, location?: LocationOf): Response {
  const { body } = answer;
  const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json' };
  headers[REQUEST_ID_HEADER] = c.get('requestId');
  const rateLimit = c.get('rateLimit');
  if (rateLimit !== undefined) Object.assign(headers, rateLimit);
  if (body === undefined) {
    if (answer.headers !== undefined) Object.assign(headers, answer.headers);
    return stampedResponse(null, answer.status, headers);
  }
  // No operation answers a bare JSON string: a string (or bytes) body is a `Serialised` answer, already JSON.
  let json: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
  let value: unknown;
  if (body instanceof WithJson) {
    json = body.json;
    value = body.value;
  } else if (typeof body === 'string' || body instanceof Uint8Array || body instanceof ReadableStream) {
    json = body as string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array>;
    value = undefined;
  } else {
    json = JSON.stringify(body);
    value = body;
  }
  if (location !== undefined) {
    const at = location(answer.status, value === undefined ? parseSerialised(asSerialised<unknown>(json)) : value);
    if (at) headers.Location = at;
  }
  if (answer.headers !== undefined) Object.assign(headers, answer.headers);
  return stampedResponse(json, answer.status, headers);
}

/** A resource's handlers, built from the app's dependencies. */
export type ResourceOperations = (deps: Deps) => DefinedOperation[];

import { NOSNIFF, NOSNIFF_HEADER } from './security-headers.js';

/**
 * The `X-Request-Id` every answer carries, and `X-Content-Type-Options: nosniff` (D50). An
 * operation's answer is built with them (and the RateLimit fields of its caller,
 * server/http/rate-limit.ts) among plain headers, so that the server writes them as they are; any
 * other answer (a problem, a page, the docs) gets them added afterwards, which turns its headers
 * into a `Headers` object first.
 */
export const REQUEST_ID_HEADER = 'X-Request-Id';

const stamped = new WeakSet<Response>();

/** An answer whose headers already hold the request id; `headers` (the caller's own new object) gets `nosniff` too. */
export function stampedResponse(
  body: string | Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> | null,
  status: number,
  headers: Record<string, string>,
): Response {
  headers[NOSNIFF_HEADER] = NOSNIFF;
  const response = new Response(body, { status, headers });
  stamped.add(response);
  return response;
}

/** Whether an answer was built with the request id and the RateLimit fields among its plain headers. */
export function isStamped(response: Response): boolean {
  return stamped.has(response);
}

/** Adds the request id, and `nosniff`, to an answer that was not built with them. */
export function stampRequestId(response: Response, requestId: string): void {
  if (stamped.has(response) || response.headers.has(REQUEST_ID_HEADER)) return;
  response.headers.set(REQUEST_ID_HEADER, requestId);
  response.headers.set(NOSNIFF_HEADER, NOSNIFF);
}

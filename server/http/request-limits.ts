import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../deps.js';
import { problemTypes, ProblemError, type ProblemKind } from './problems.js';

/** Longest request target (path and query) served (D34); longer ones are a 414 problem. */
export const MAX_URL_BYTES = 8_192;
/** Largest header section served (D34); Node itself refuses beyond NODE_MAX_HEADER_BYTES, without a body. */
export const MAX_HEADER_BYTES = 16_384;
/** Node's own limit, set above ours so that the answer between the two is a Problem. */
export const NODE_MAX_HEADER_BYTES = 65_536;

/** Refuses over-long URLs and header sections with RFC 9457 problems, before any other work. */
export function requestLimits(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // The request target is what follows the origin in the URL (the path and the query).
    const url = c.req.url;
    const target = url.length - url.indexOf('/', url.indexOf('//') + 2);
    if (target > MAX_URL_BYTES) {
      throw new ProblemError('uriTooLong', `The request target is ${target} bytes long; at most ${MAX_URL_BYTES} are served.`);
    }
    let headerBytes = 0;
    c.req.raw.headers.forEach((value, name) => {
      headerBytes += name.length + value.length + 4;
    });
    if (headerBytes > MAX_HEADER_BYTES) {
      throw new ProblemError('headersTooLarge', `The request headers are about ${headerBytes} bytes; at most ${MAX_HEADER_BYTES} are served.`);
    }
    await next();
  };
}

const rawDetails: Partial<Record<ProblemKind, string>> = {
  headersTooLarge: `The request headers are larger than this server accepts (${NODE_MAX_HEADER_BYTES} bytes).`,
  requestTimeout: 'The request did not arrive in time; the connection is closed.',
  malformedRequest: 'The request is not valid HTTP.',
};

/** A whole HTTP/1.1 answer with a Problem body, for a socket Node refused before any handler ran. */
export function rawProblemResponse(kind: ProblemKind): string {
  const { title, status } = problemTypes[kind];
  const body = JSON.stringify(new ProblemError(kind, rawDetails[kind] ?? title).toProblem());
  return `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

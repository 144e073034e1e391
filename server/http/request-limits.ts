import type { Context } from 'hono';
import type { AppEnv, RateLimitFields } from '../deps.js';
import { problemTypes, ProblemError, type ProblemKind } from './problems.js';

/** Longest request target (path and query) served (D34); longer ones are a 414 problem. */
export const MAX_URL_BYTES = 8_192;
/** Largest header section served (D34), every field line as sent, repeated names each counted; Node itself refuses beyond NODE_MAX_HEADER_BYTES. */
export const MAX_HEADER_BYTES = 16_384;
/** Most header fields served (D34), each line as sent (a name sent twice is two fields). */
export const MAX_HEADER_COUNT = 100;
/** Node's own limit, set above ours so that the answer between the two is a Problem. */
export const NODE_MAX_HEADER_BYTES = 65_536;
/**
 * How many header fields Node keeps of a request (`server.maxHeadersCount`): 0, no count, so that
 * requestLimits sees every field line as sent (Node's byte limit still bounds them). Node's own
 * count differs by line: Node 20 drops the fields past it without a word (so 3,000 fields of
 * 10 bytes were once served), Node 22 and 24 refuse the request with the same error as a header
 * section past NODE_MAX_HEADER_BYTES, whose answer could not name the count.
 */
export const NODE_MAX_HEADERS_COUNT = 0;

/**
 * Refuses over-long URLs and header sections with RFC 9457 problems, before any other work. The
 * header section is judged from the raw field lines Node received (`rawHeaders`), not from the
 * `Headers` Hono sees, where repeated names are joined into one and Node's count has dropped the rest.
 */
export function checkRequestLimits(c: Context<AppEnv>): void {
  // The request target is what follows the origin in the URL (the path and the query).
  const url = c.req.url;
  const target = url.length - url.indexOf('/', url.indexOf('//') + 2);
  if (target > MAX_URL_BYTES) {
    throw new ProblemError('uriTooLong', `The request target is ${target} bytes long; at most ${MAX_URL_BYTES} are served.`);
  }
  const raw = c.env?.incoming?.rawHeaders;
  let fields = 0;
  let headerBytes = 0;
  if (raw) {
    // [name, value, name, value, …]; Node reads header bytes as latin1, one character a byte.
    fields = raw.length >> 1;
    for (let i = 0; i < raw.length; i++) headerBytes += raw[i]!.length;
    headerBytes += fields * 4;
  } else {
    // Not behind Node's server (app.request in tests): the Headers are all there is.
    c.req.raw.headers.forEach((value, name) => {
      fields++;
      headerBytes += name.length + value.length + 4;
    });
  }
  if (fields > MAX_HEADER_COUNT) {
    throw new ProblemError('headersTooLarge', `The request has more than ${MAX_HEADER_COUNT} header fields; at most ${MAX_HEADER_COUNT} are served.`);
  }
  if (headerBytes > MAX_HEADER_BYTES) {
    throw new ProblemError('headersTooLarge', `The request headers are about ${headerBytes} bytes; at most ${MAX_HEADER_BYTES} are served.`);
  }
}

const rawDetails: Partial<Record<ProblemKind, string>> = {
  headersTooLarge: `The request headers are larger than this server accepts (${NODE_MAX_HEADER_BYTES} bytes).`,
  requestTimeout: 'The request did not arrive in time; the connection is closed.',
  malformedRequest: 'The request is not valid HTTP.',
};

/**
 * A whole HTTP/1.1 answer with a Problem body, for a socket Node refused before any handler ran;
 * with the RateLimit fields of the quota it spent, when it spent one (D11).
 */
export function rawProblemResponse(kind: ProblemKind, rateLimit?: RateLimitFields): string {
  const { title, status } = problemTypes[kind];
  const body = JSON.stringify(new ProblemError(kind, rawDetails[kind] ?? title).toProblem());
  const fields = rateLimit ? `RateLimit: ${rateLimit.RateLimit}\r\nRateLimit-Policy: ${rateLimit['RateLimit-Policy']}\r\n` : '';
  return `HTTP/1.1 ${status} ${title}\r\nContent-Type: application/problem+json\r\nX-Content-Type-Options: nosniff\r\n${fields}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

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
 * What the front door reads of a request's header section: its field lines and their bytes as
 * sent (D34's limits), and the `X-API-KEY` it presents, if any (as `c.req.header` reads it: the
 * values of every line of that name joined by `, `, without surrounding whitespace).
 */
export interface RequestHead {
  fields: number;
  headerBytes: number;
  apiKey: string | undefined;
}

const API_KEY_HEADER = 'x-api-key';

/**
 * The request's head in one pass over the raw field lines Node received (`rawHeaders`), not the
 * `Headers` Hono sees, where repeated names are joined into one and Node's count has dropped the
 * rest. Reading the key here too spares Node building its header object for a request that reads
 * no other header (a GET).
 */
export function readRequestHead(c: Context<AppEnv>): RequestHead {
  const raw = c.env?.incoming?.rawHeaders;
  let fields = 0;
  let headerBytes = 0;
  let apiKey: string | undefined;
  if (raw) {
    // [name, value, name, value, …]; Node reads header bytes as latin1, one character a byte.
    fields = raw.length >> 1;
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]!;
      const value = raw[i + 1]!;
      headerBytes += name.length + value.length;
      if (name.length === API_KEY_HEADER.length && name.toLowerCase() === API_KEY_HEADER) apiKey = apiKey === undefined ? value : `${apiKey}, ${value}`;
    }
    headerBytes += fields * 4;
    if (apiKey !== undefined && (isHttpWhitespace(apiKey.charCodeAt(0)) || isHttpWhitespace(apiKey.charCodeAt(apiKey.length - 1))))
      apiKey = apiKey.replace(surroundingWhitespace, '');
  } else {
    // Not behind Node's server (app.request in tests): the Headers are all there is.
    c.req.raw.headers.forEach((value, name) => {
      fields++;
      headerBytes += name.length + value.length + 4;
    });
    apiKey = c.req.header(API_KEY_HEADER);
  }
  return { fields, headerBytes, apiKey };
}

/** HTTP's whitespace around a field value (RFC 9110 §5.5), as the Fetch standard strips it. */
const surroundingWhitespace = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const isHttpWhitespace = (code: number) => code === 9 || code === 10 || code === 13 || code === 32;

/**
 * Refuses over-long URLs and header sections (`head`, from `readRequestHead`) with RFC 9457
 * problems, before any other work.
 */
export function checkRequestLimits(c: Context<AppEnv>, { fields, headerBytes }: RequestHead): void {
  // The request target is what follows the origin in the URL (the path and the query).
  const url = c.req.url;
  const target = url.length - url.indexOf('/', url.indexOf('//') + 2);
  if (target > MAX_URL_BYTES) {
    throw new ProblemError('uriTooLong', `The request target is ${target} bytes long; at most ${MAX_URL_BYTES} are served.`);
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

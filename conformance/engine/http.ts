import { fetchFailure } from '../../lib/net/fetch-failure.js';
import type { Exchange, KeyUsed, RecordedRequest } from './types.js';

/**
 * The API key as reports show it: enough to tell keys apart, never enough to use one. At most
 * a quarter of it (and never more than 6 characters) is shown, so a short key is not half given away.
 */
export function maskKey(key: string): string {
  return key.length <= 8 ? '****' : `${key.slice(0, Math.min(6, Math.floor(key.length / 4)))}…****`;
}

export interface SendInput {
  operationId: string;
  method: string;
  /** Absolute URL. */
  url: string;
  headers?: Record<string, string>;
  /** A value to send as JSON, or a string sent as it is. */
  body?: unknown;
  /** Headers whose values are secrets (the API key): recorded masked. */
  secretHeaders?: readonly string[];
  /** Whose key the request carries, recorded with it (the value itself is masked in the headers). */
  apiKey?: KeyUsed;
}

/**
 * Sends one request and records it as an Exchange (key masked). A network failure or a
 * timeout is recorded as `error`, never thrown: a check decides what it means.
 */
export async function send(fetchFn: typeof fetch, input: SendInput, timeoutMs: number): Promise<Exchange> {
  const headers: Record<string, string> = { Accept: 'application/json, application/problem+json', ...input.headers };
  let body: string | undefined;
  if (input.body !== undefined) {
    body = typeof input.body === 'string' ? input.body : JSON.stringify(input.body);
    if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['Content-Type'] = 'application/json';
  }
  const request: RecordedRequest = {
    method: input.method.toUpperCase(),
    url: input.url,
    headers: maskHeaders(headers, input.secretHeaders ?? []),
    ...(body !== undefined ? { body } : {}),
    ...(input.apiKey ? { apiKey: input.apiKey } : {}),
  };
  const startedAt = new Date().toISOString();
  const started = performance.now();
  try {
    const response = await fetchFn(input.url, {
      method: request.method,
      headers,
      ...(body !== undefined ? { body } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      responseHeaders[name.toLowerCase()] = value;
    });
    return {
      operationId: input.operationId,
      request,
      response: { status: response.status, headers: responseHeaders, body: text },
      ms: performance.now() - started,
      startedAt,
    };
  } catch (error) {
    return { operationId: input.operationId, request, error: whyNoAnswer(error, input.url, timeoutMs), ms: performance.now() - started, startedAt };
  }
}

/**
 * Why a request got no answer, in words QA can act on: the cause Node's fetch wraps (refused,
 * no such host, timed out, a TLS failure …, lib/net/fetch-failure.ts), the host and port it is
 * about, and what to look at.
 */
export function whyNoAnswer(thrown: unknown, url: string, timeoutMs: number): string {
  const { kind, code, message } = fetchFailure(thrown);
  const target = new URL(url);
  const port = target.port || (target.protocol === 'https:' ? '443' : '80');
  const host = `${target.hostname}:${port}`;
  // The code, and the cause's own words where they are short and add to it (`self-signed certificate`).
  const words = message !== undefined && message !== 'fetch failed' && message.length <= 80 && !/\n|:error:/.test(message) ? message : undefined;
  const detail = code === undefined ? words : words === undefined || words.includes(code) ? code : `${words}, ${code}`;
  const said = detail === undefined ? '' : `: ${detail}`;
  switch (kind) {
    case 'timeout':
      return `timed out: no answer within ${timeoutMs >= 1000 && timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`}`;
    case 'refused':
      return `connection refused: nothing listens on ${host} (is the service up, the port right?)`;
    case 'no-such-host':
      return `no such host: ${target.hostname} does not resolve (DNS${said}); is the name right?`;
    case 'dns-failed':
      return `DNS lookup failed for ${target.hostname}${said} (is the network or the resolver up?)`;
    case 'connect-timeout':
      return `timed out connecting to ${host}${said} (a firewall dropping the packets?)`;
    case 'unreachable':
      return `host unreachable: no route to ${target.hostname}${said}`;
    case 'closed':
      return `connection closed without an answer by ${host}${said}${target.protocol === 'http:' ? ' (does it speak https only?)' : ''}`;
    case 'tls':
      return `TLS failure with ${host}${said}${tlsHint(code)}`;
    case 'not-http':
      return `${host} answered something that is not HTTP${said}`;
    case 'blocked-port':
      return `port ${port} is one fetch never connects to (a blocked "bad port" of the Fetch standard); use another`;
    default:
      return `no answer from ${host}${said || `: ${thrown instanceof Error ? thrown.message : String(thrown)}`}`;
  }
}

/** What to do about a TLS failure, by its code. */
function tlsHint(code: string | undefined): string {
  if (code === undefined) return '';
  if (/WRONG_VERSION_NUMBER|PACKET_LENGTH_TOO_LONG|HTTP_REQUEST/.test(code)) return ' (is it http://, not https://?)';
  if (/SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY/.test(code)) return ' (a certificate of a private CA: trust the CA with NODE_EXTRA_CA_CERTS=ca.pem)';
  if (/EXPIRED|NOT_YET_VALID/.test(code)) return ' (the certificate is out of its dates)';
  if (/ALTNAME|HOSTNAME/.test(code)) return ' (the certificate is for another name)';
  return '';
}

function maskHeaders(headers: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  const secret = new Set(secrets.map((name) => name.toLowerCase()));
  const masked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) masked[name] = secret.has(name.toLowerCase()) ? maskKey(value) : value;
  return masked;
}

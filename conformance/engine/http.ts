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
    const reason = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (error as Error).message;
    return { operationId: input.operationId, request, error: reason, ms: performance.now() - started, startedAt };
  }
}

function maskHeaders(headers: Record<string, string>, secrets: readonly string[]): Record<string, string> {
  const secret = new Set(secrets.map((name) => name.toLowerCase()));
  const masked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) masked[name] = secret.has(name.toLowerCase()) ? maskKey(value) : value;
  return masked;
}

/**
 * `createPixClient`: one openapi-fetch client per base URL, each typed with only the operations
 * its base URL serves (client/served-paths.ts), sending the API key, and sending through the
 * operation-aware fetch that adds idempotency keys and retries (client/operation-fetch.ts).
 */
import createClient from 'openapi-fetch';
import { apiKeyHeader } from '../generated/client-routes.js';
import { operationFetch } from './operation-fetch.js';
import { defaultRetryPolicy, type RetryOptions } from './retry.js';
import { strict, type StrictClient } from './strict-client.js';
import type { OperationId, ServedPaths, ServerName } from './served-paths.js';

export interface PixClientOptions {
  /** Where `{base_url}` is: charges, client listing, webhooks. */
  baseUrl: string;
  /** Where `{base_url_alt}` is: products, orders, subscriptions, client creation. */
  baseUrlAlt: string;
  /** The company's API key (`sk_…`), sent in the contract's API key header. */
  apiKey: string;
  /** The fetch to send with (default: the runtime's `fetch`). */
  fetch?: (request: Request) => Promise<Response>;
  /**
   * Retries. Operations that take an `Idempotency-Key` (creating a payment link) are always
   * retried, with the same key; others only when named in `operations`, because repeating them
   * may repeat their effect.
   */
  retry?: RetryOptions & { operations?: readonly OperationId[] };
}

export interface PixClient {
  /** The operations of `{base_url}`. */
  base: StrictClient<ServedPaths<'base_url'>>;
  /** The operations of `{base_url_alt}`. */
  alt: StrictClient<ServedPaths<'base_url_alt'>>;
}

function absoluteUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`createPixClient: ${name} must be an absolute http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError(`createPixClient: ${name} must be an http(s) URL, got ${url.protocol}`);
  return value.replace(/\/+$/, '');
}

export function createPixClient(options: PixClientOptions): PixClient {
  if (typeof options.apiKey !== 'string' || options.apiKey === '') throw new TypeError('createPixClient: apiKey is required (the sk_… key of the company)');
  const { attempts, baseDelayMs, maxDelayMs, maxRetryAfterMs, operations = [] } = options.retry ?? {};
  const policy = {
    attempts: attempts ?? defaultRetryPolicy.attempts,
    baseDelayMs: baseDelayMs ?? defaultRetryPolicy.baseDelayMs,
    maxDelayMs: maxDelayMs ?? defaultRetryPolicy.maxDelayMs,
    maxRetryAfterMs: maxRetryAfterMs ?? defaultRetryPolicy.maxRetryAfterMs,
  };
  const alsoRetry = new Set(operations);
  // Looked up at call time, not now: a test or polyfill may replace globalThis.fetch later.
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const clientFor = <Server extends ServerName>(server: Server, name: string, url: string) => {
    const baseUrl = absoluteUrl(name, url);
    return strict(
      createClient<ServedPaths<Server>>({
        baseUrl,
        headers: { [apiKeyHeader]: options.apiKey },
        fetch: operationFetch({ server, baseUrl, fetch: send, policy, alsoRetry }),
      }),
    );
  };
  return { base: clientFor('base_url', 'baseUrl', options.baseUrl), alt: clientFor('base_url_alt', 'baseUrlAlt', options.baseUrlAlt) };
}

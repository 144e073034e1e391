/**
 * The `fetch` each base URL's client sends through: it finds the contract operation a request is
 * for (from the generated route table), gives a request to an operation that takes an
 * `Idempotency-Key` a fresh key when the caller sent none, and retries only what is safe to send
 * again: those keyed requests (the service answers a repeated key with the first answer, D10) and
 * the operations the caller named.
 */
import { pathPattern } from '../lib/contract/paths.js';
import { routes } from '../generated/client-routes.js';
import { fetchWithRetry, realPacing, type Pacing, type RetryPolicy } from './retry.js';
import type { OperationId, Route, ServerName } from './served-paths.js';

const idempotencyKeyHeader = 'Idempotency-Key';

interface Matcher {
  operationId: OperationId;
  route: Route;
  method: string;
  pattern: RegExp;
}

function matchers(server: ServerName): Matcher[] {
  return Object.entries(routes)
    .filter(([, route]) => route.server === server)
    .map(([operationId, route]) => ({
      operationId: operationId as OperationId,
      route,
      method: route.method.toUpperCase(),
      pattern: pathPattern(route.path),
    }));
}

export interface OperationFetchOptions {
  server: ServerName;
  baseUrl: string;
  fetch: (request: Request) => Promise<Response>;
  policy: RetryPolicy;
  /** Operations retried although they take no `Idempotency-Key`: the caller says they are safe to repeat. */
  alsoRetry: ReadonlySet<OperationId>;
  pacing?: Pacing;
  newKey?: () => string;
}

export function operationFetch(options: OperationFetchOptions): (request: Request) => Promise<Response> {
  const known = matchers(options.server);
  const basePath = new URL(options.baseUrl).pathname.replace(/\/+$/, '');
  const newKey = options.newKey ?? (() => crypto.randomUUID());
  return async (request) => {
    const pathname = new URL(request.url).pathname;
    const path = pathname.startsWith(basePath) ? pathname.slice(basePath.length) : pathname;
    const match = known.find((m) => m.method === request.method && m.pattern.test(path));
    if (!match) return options.fetch(request);
    let sent = request;
    if (match.route.idempotencyKey && !request.headers.has(idempotencyKeyHeader)) {
      const headers = new Headers(request.headers);
      headers.set(idempotencyKeyHeader, newKey());
      sent = new Request(request, { headers });
    }
    if (!match.route.idempotencyKey && !options.alsoRetry.has(match.operationId)) return options.fetch(sent);
    return fetchWithRetry(options.fetch, sent, options.policy, options.pacing ?? realPacing);
  };
}

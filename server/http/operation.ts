import type { MiddlewareHandler } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import { Authenticator } from '../auth/authenticator.js';
import type { OperationCatalog } from './operations.js';
import { notFound, ProblemError, validationProblem } from './problems.js';
import { RateLimiter } from './rate-limit.js';
import { readJsonBody } from './request-body.js';

/**
 * The middleware every route puts in front of its handler: the operation's rules from
 * the contract, in the order a client can act on: authentication (401), the key's quota
 * (429), the body's media type, size and syntax (415, 413, 400), then parameters and body
 * against the schemas (422, every failing field at once); a valid body is handed on in its
 * stored form (D46), the query parameters as their schemas read them.
 */
export function operationMiddleware(deps: Deps, catalog: OperationCatalog) {
  const limiter = new RateLimiter(deps.config.rateLimitRequests, deps.config.rateLimitWindowSeconds, (key, windowStart) =>
    deps.store.countRequest(key, windowStart),
  );
  const authenticator = new Authenticator(deps.store);
  return (operationId: string): MiddlewareHandler<AppEnv> => {
    const rules = catalog.get(operationId);
    return async (c, next) => {
      if (rules.secured) {
        const authenticated = await authenticator.authenticate(c.req.header('x-api-key'));
        if (!authenticated) throw new ProblemError('unauthorized', 'The X-API-KEY header is missing or does not hold a valid API key.');
        const { company, keyId } = authenticated;
        c.set('company', company);
        await limiter.take(keyId, deps.now().getTime());
      }
      const body = rules.hasBody ? await readJsonBody(c, deps.config.bodyLimitBytes, { optional: !rules.bodyRequired }) : undefined;
      const query = rules.hasQuery ? (name: string) => c.req.queries(name) ?? [] : undefined;
      const { errors, omitted, malformedPath } = catalog.check(rules, {
        path: c.req.param() as Record<string, string>,
        header: (name) => c.req.header(name),
        ...(query ? { query } : {}),
        body,
      });
      if (malformedPath !== undefined) throw notFound(malformedPath.record, malformedPath.id);
      if (errors.length > 0 || omitted > 0) throw validationProblem(errors, omitted);
      c.set('body', catalog.normalise(rules, body));
      c.set('query', query ? catalog.query(rules, query) : {});
      await next();
    };
  };
}

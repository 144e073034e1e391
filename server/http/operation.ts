import type { Context } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import type { OperationCatalog } from './operations.js';
import { notFound, ProblemError, validationProblem } from './problems.js';
import { readJsonBody } from './request-body.js';
import { shapeLimits } from '../../lib/contract/json-shape.js';

/**
 * The checks of an operation's request, made before its handler runs; a refusal is thrown. An
 * operation without a body is checked at once (undefined: nothing to wait for); one with a body
 * answers a promise, settled once the body is read and checked.
 */
export type RequestCheck = (c: Context<AppEnv>) => Promise<void> | undefined;

/**
 * What every operation checks before its handler runs: the operation's rules from the
 * contract, in the order a client can act on: authentication (401; the key was read, and the
 * caller's quota spent, by the caller middleware in front of every route), the body's media
 * type, size, shape (422 past D49's depth or fields per object, before parsing) and syntax (415,
 * 413, 422, 400), then parameters and body against the schemas (422,
 * every failing field at once); a valid body is handed on in its stored form (D46), the query
 * parameters as their schemas read them.
 */
export function requestChecks(deps: Deps, catalog: OperationCatalog) {
  // D49: how deep and wide any request body may be, from the contract, checked before parsing.
  const shape = shapeLimits(deps.validator.contract);
  return (operationId: string): RequestCheck => {
    const rules = catalog.get(operationId);
    const checkWith = (c: Context<AppEnv>, body: unknown) => {
      // The query string parsed once, for every parameter (Hono parses it again for each name asked).
      const sent = rules.hasQuery ? c.req.queries() : undefined;
      const query = sent ? (name: string) => sent[name] ?? [] : undefined;
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
    };
    return (c) => {
      if (rules.secured && c.get('company') === undefined)
        throw new ProblemError('unauthorized', 'The X-API-KEY header is missing or does not hold a valid API key.');
      // Without a body there is nothing to wait for: no promise to settle and await.
      if (!rules.hasBody) {
        checkWith(c, undefined);
        return undefined;
      }
      return readJsonBody(c, deps.config.bodyLimitBytes, { optional: !rules.bodyRequired, shape }).then((body) => checkWith(c, body));
    };
  };
}

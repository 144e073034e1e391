import { Hono, type Context } from 'hono';
import { honoPath } from '../../lib/contract/paths.js';
import type { AppEnv, Deps } from '../deps.js';
import type { DefinedOperation, OperationId } from './define-operation.js';
import { idempotencyLayer } from './idempotency.js';
import { locationRules } from './location.js';
import type { RequestCheck } from './operation.js';
import type { OperationCatalog } from './operations.js';

/**
 * Routes every operation of the contract to its handler: method and path from the contract, one
 * Hono instance per resource (the path's first segment) mounted with `app.route`, the request's
 * checks first, then the Idempotency-Key protocol where the operation takes the header; an
 * answer whose response declares `Location` gets it from the contract's read link. A contract
 * operation without a handler, or with two, stops the server from being built, so an operation
 * is never silently left unserved. Each route is one Hono handler calling the three in turn
 * (Hono composes nothing for it), inside `door` when one is given (the app's front door), and
 * what they throw reaches the app's one `onError`.
 */
export function mountOperations(
  app: Hono<AppEnv>,
  deps: Deps,
  catalog: OperationCatalog,
  checks: (operationId: OperationId) => RequestCheck,
  defined: readonly DefinedOperation[],
  door?: (c: Context<AppEnv>, route: (c: Context<AppEnv>) => Promise<Response>) => Promise<Response>,
): void {
  const handled = new Map(defined.map((op) => [op.operationId as string, op]));
  const unserved = catalog
    .all()
    .filter((rules) => !handled.has(rules.operationId))
    .map((rules) => rules.operationId);
  if (unserved.length > 0) throw new Error(`No handler for the contract's operations ${unserved.join(', ')}`);
  if (handled.size !== defined.length) throw new Error('An operation has two handlers');

  const resources = new Map<string, Hono<AppEnv>>();
  const locationOf = locationRules(catalog.validator.contract);
  for (const rules of catalog.all()) {
    const operation = handled.get(rules.operationId)!;
    const [, resource = '', ...rest] = rules.path.split('/');
    const routes = resources.get(resource) ?? new Hono<AppEnv>();
    resources.set(resource, routes);
    const location = locationOf(rules.operationId);
    const idempotency = idempotencyLayer(deps, rules, (status, body): Record<string, string> => {
      const at = location?.(status, JSON.parse(body));
      return at ? { Location: at } : {};
    });
    const check = checks(operation.operationId);
    const handle = (c: Context<AppEnv>) => operation.handle(c, { path: rules.path, location });
    const answer = idempotency ? (c: Context<AppEnv>) => idempotency(c, () => handle(c)) : handle;
    // Not an async function: a request checked at once (no body to read) is answered without a turn of waiting.
    const route = (c: Context<AppEnv>) => {
      const checked = check(c);
      return checked === undefined ? answer(c) : checked.then(() => answer(c));
    };
    routes.on(rules.method.toUpperCase(), honoPath(`/${rest.join('/')}`), door ? (c) => door(c, route) : route);
  }
  for (const [resource, routes] of resources) app.route(`/${resource}`, routes);
}

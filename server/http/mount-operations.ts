import { Hono, type MiddlewareHandler } from 'hono';
import { honoPath } from '../../lib/contract/paths.js';
import type { AppEnv, Deps } from '../deps.js';
import type { DefinedOperation, OperationId } from './define-operation.js';
import { idempotencyLayer } from './idempotency.js';
import { locationRule } from './location.js';
import type { OperationCatalog } from './operations.js';

const passOn: MiddlewareHandler<AppEnv> = (_c, next) => next();

/**
 * Routes every operation of the contract to its handler: method and path from the contract, one
 * Hono instance per resource (the path's first segment) mounted with `app.route`, the operation
 * middleware in front, then the Idempotency-Key protocol where the operation takes the header;
 * an answer whose response declares `Location` gets it from the contract's read link. A contract
 * operation without a handler, or with two, stops the server from being built, so an operation
 * is never silently left unserved.
 */
export function mountOperations(
  app: Hono<AppEnv>,
  deps: Deps,
  catalog: OperationCatalog,
  middleware: (operationId: OperationId) => MiddlewareHandler<AppEnv>,
  defined: readonly DefinedOperation[],
): void {
  const handled = new Map(defined.map((op) => [op.operationId as string, op]));
  const unserved = catalog
    .all()
    .filter((rules) => !handled.has(rules.operationId))
    .map((rules) => rules.operationId);
  if (unserved.length > 0) throw new Error(`No handler for the contract's operations ${unserved.join(', ')}`);
  if (handled.size !== defined.length) throw new Error('An operation has two handlers');

  const resources = new Map<string, Hono<AppEnv>>();
  for (const rules of catalog.all()) {
    const operation = handled.get(rules.operationId)!;
    const [, resource = '', ...rest] = rules.path.split('/');
    const routes = resources.get(resource) ?? new Hono<AppEnv>();
    resources.set(resource, routes);
    const location = locationRule(catalog.validator.contract, rules.operationId);
    const idempotency = idempotencyLayer(deps, rules, (status, body): Record<string, string> => {
      const at = location?.(status, JSON.parse(body));
      return at ? { Location: at } : {};
    });
    routes.on(rules.method.toUpperCase(), honoPath(`/${rest.join('/')}`), middleware(operation.operationId), idempotency ?? passOn, (c) =>
      operation.handle(c, location),
    );
  }
  for (const [resource, routes] of resources) app.route(`/${resource}`, routes);
}

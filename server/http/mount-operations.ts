import { Hono, type MiddlewareHandler } from 'hono';
import { honoPath } from '../../lib/contract/paths.js';
import type { AppEnv } from '../deps.js';
import type { DefinedOperation, OperationId } from './define-operation.js';
import type { OperationCatalog } from './operations.js';

/**
 * Routes every operation of the contract to its handler: method and path from the contract, one
 * Hono instance per resource (the path's first segment) mounted with `app.route`, the operation
 * middleware in front. A contract operation without a handler, or a handler of an operation the
 * contract does not have, stops the server from being built, so an operation is never silently
 * left unserved.
 */
export function mountOperations(app: Hono<AppEnv>, catalog: OperationCatalog, middleware: (operationId: OperationId) => MiddlewareHandler<AppEnv>, defined: readonly DefinedOperation[]): void {
  const handled = new Map(defined.map((op) => [op.operationId as string, op]));
  const unserved = catalog.all().filter((rules) => !handled.has(rules.operationId)).map((rules) => rules.operationId);
  if (unserved.length > 0) throw new Error(`No handler for the contract's operations ${unserved.join(', ')}`);
  if (handled.size !== defined.length) throw new Error('An operation has two handlers');

  const resources = new Map<string, Hono<AppEnv>>();
  for (const rules of catalog.all()) {
    const operation = handled.get(rules.operationId)!;
    const [, resource = '', ...rest] = rules.path.split('/');
    const routes = resources.get(resource) ?? new Hono<AppEnv>();
    resources.set(resource, routes);
    routes.on(rules.method.toUpperCase(), honoPath(`/${rest.join('/')}`), middleware(operation.operationId), (c) => operation.handle(c));
  }
  for (const [resource, routes] of resources) app.route(`/${resource}`, routes);
}

import { listLists } from '../../lib/contract/lists.js';
import type { Deps } from '../deps.js';

/**
 * The `maxItems` of the array an operation answers `200` with: how many records a list holds at
 * most (D49), read from the contract (lib/contract/lists.ts) so the bound is stated once.
 */
export function listBound(deps: Pick<Deps, 'validator'>, operationId: string): number {
  const list = listLists(deps.validator.contract).find((l) => l.operation.operationId === operationId);
  if (!list) throw new Error(`${operationId} does not answer 200 with a list in the contract`);
  return list.bound;
}

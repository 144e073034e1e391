import { deref, isJsonObject, listOperations, type JsonObject } from '../../lib/contract/bundled.js';
import type { Deps } from '../deps.js';

/**
 * The `maxItems` of the array an operation answers `200` with: how many records a list holds at
 * most (D49), read from the contract so the bound is stated once.
 */
export function listBound(deps: Pick<Deps, 'validator'>, operationId: string): number {
  const contract = deps.validator.contract;
  const operation = listOperations(contract).find((op) => op.operationId === operationId);
  const response = deref<JsonObject | undefined>(contract, (operation?.operation.responses as JsonObject | undefined)?.['200']);
  const content = response?.content;
  const schema =
    isJsonObject(content) && isJsonObject(content['application/json']) ? deref<JsonObject>(contract, content['application/json'].schema) : undefined;
  if (typeof schema?.maxItems !== 'number') throw new Error(`The contract gives ${operationId}'s list no maxItems`);
  return schema.maxItems;
}

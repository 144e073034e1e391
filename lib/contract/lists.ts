/**
 * The contract's lists, as the contract has them (D48, D49): an operation that answers `200` with
 * an array is a list, bounded by the array's `maxItems`; one that also takes the query parameters
 * `limit` and `after` is a paged list. The server's paging, its build's validators and the tests
 * that walk every list read them here, so a new list is picked up by all of them from its path
 * file alone.
 */
import { deref, followRef, isJsonObject, type ContractOperation, type JsonObject, listOperations } from './bundled.js';

export interface ContractList {
  operation: ContractOperation;
  /** The array's `maxItems`: most records one answer holds (D49). */
  bound: number;
  /** Where the schema of the list's records lives. */
  itemSchema: string;
  /** Where the schema of a record's `id` lives, when the records have one: a page cursor names it. */
  idSchema: string | undefined;
}

export interface PagedList extends ContractList {
  /** The `maximum` of its `limit`: the largest page. */
  largestPage: number;
}

/** Every operation answering `200` with a JSON array, in the contract's order. */
export function listLists(contract: JsonObject): ContractList[] {
  return listOperations(contract).flatMap((operation) => {
    const responses = isJsonObject(operation.operation.responses) ? operation.operation.responses : {};
    const ok = deref<JsonObject | undefined>(contract, responses['200']);
    const media = isJsonObject(ok?.content) && isJsonObject(ok.content['application/json']) ? ok.content['application/json'] : undefined;
    const schema = media && deref<JsonObject>(contract, media.schema);
    if (schema?.type !== 'array' || !isJsonObject(schema.items)) return [];
    if (typeof schema.maxItems !== 'number') throw new Error(`The contract gives ${operation.operationId}'s list no maxItems (D49)`);
    const item = followRef(contract, schema.items, '');
    const properties = isJsonObject(item.node) && isJsonObject(item.node.properties) ? item.node.properties : {};
    const idSchema = 'id' in properties ? followRef(contract, properties.id, `${item.pointer}/properties/id`).pointer : undefined;
    return [{ operation, bound: schema.maxItems, itemSchema: item.pointer, idSchema }];
  });
}

/** The query parameters of an operation, by name, dereferenced. */
function queryParameters(contract: JsonObject, operation: ContractOperation): Map<string, JsonObject> {
  const raw = Array.isArray(operation.operation.parameters) ? operation.operation.parameters : [];
  const parameters = raw.map((p) => deref<JsonObject>(contract, p)).filter((p) => p.in === 'query');
  return new Map(parameters.map((p) => [String(p.name), p]));
}

/** Every list that takes `limit` and `after` (D48). */
export function listPagedLists(contract: JsonObject): PagedList[] {
  return listLists(contract).flatMap((list) => {
    const query = queryParameters(contract, list.operation);
    const limit = query.get('limit');
    if (!limit || !query.has('after')) return [];
    const maximum = deref<JsonObject>(contract, limit.schema).maximum;
    if (typeof maximum !== 'number') throw new Error(`${list.operation.operationId}'s limit has no maximum (D48)`);
    return [{ ...list, largestPage: maximum }];
  });
}

/** The paged list `operationId` answers. */
export function pagedList(contract: JsonObject, operationId: string): PagedList {
  const list = listPagedLists(contract).find((l) => l.operation.operationId === operationId);
  if (!list) throw new Error(`${operationId} is not a paged list of the contract (an array answer, with the query parameters limit and after)`);
  if (!list.idSchema) throw new Error(`The records of ${operationId} have no id for a page cursor to name`);
  return list;
}

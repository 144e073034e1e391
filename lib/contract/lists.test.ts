/**
 * The contract's lists are read from the contract (D48, D49): a new array answer is a list, and
 * with `limit` and `after` a paged one, with no code naming it.
 *
 * @operation-wide: it enumerates the contract's lists, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { type JsonObject, loadBundledContract } from './bundled.js';
import { listLists, listPagedLists, pagedList } from './lists.js';

const contract = loadBundledContract();

/** The contract with a second paged list, `GET /product`, paged by the shared parameters as `GET /client` is. */
function withProductList(): JsonObject {
  const copy = structuredClone(contract) as { paths: Record<string, Record<string, JsonObject>> };
  const clients = copy.paths['/client']!.get!;
  copy.paths['/product'] = {
    ...copy.paths['/product'],
    get: {
      ...clients,
      operationId: 'listProducts',
      responses: {
        '200': {
          description: 'Products',
          content: { 'application/json': { schema: { type: 'array', maxItems: 500, items: { $ref: '#/components/schemas/Product' } } } },
        },
      },
    },
  };
  return copy;
}

describe('the lists of the contract', () => {
  test('every list has a bound, and every paged list a largest page and an id its cursor names', () => {
    const lists = listLists(contract);
    expect(lists.length).toBeGreaterThan(0);
    for (const list of lists) expect(list.bound, list.operation.operationId).toBeGreaterThan(0);
    const paged = listPagedLists(contract);
    expect(paged.map((l) => l.operation.operationId)).toContain('listClients');
    for (const list of paged) {
      expect(list.largestPage).toBeGreaterThan(0);
      expect(list.idSchema, list.operation.operationId).toMatch(/^\/components\/schemas\//);
    }
  });

  test('a new paged list is found from its path alone', () => {
    const list = pagedList(withProductList(), 'listProducts');
    expect(list.operation.path).toBe('/product');
    expect(list.bound).toBe(500);
    expect(list.largestPage).toBe(pagedList(contract, 'listClients').largestPage);
    expect(list.idSchema).toBe('/components/schemas/Product/properties/id');
  });

  test('an operation that is not a paged list is refused with what makes one', () => {
    expect(() => pagedList(contract, 'getClient')).toThrow(/an array answer, with the query parameters limit and after/);
  });
});

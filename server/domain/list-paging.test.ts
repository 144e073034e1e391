/**
 * The one paging module serves every paged list of the contract (D48): a second list, added to a
 * copy of the contract with the shared paging parameters, pages with no code of its own, and a
 * cursor names a record of its own list only.
 */
import { describe, expect, test } from 'vitest';
import { ContractValidator } from '../../lib/contract/ajv.js';
import { type JsonObject, loadBundledContract } from '../../lib/contract/bundled.js';
import { ProblemError } from '../http/problems.js';
import { cursorOf, DEFAULT_PAGE_SIZE, listPaging } from './pages.js';

/** The contract with `GET /product` (`listProducts`), paged by the shared parameters as `GET /client` is. */
function withProductList(): JsonObject {
  const copy = structuredClone(loadBundledContract()) as { paths: Record<string, Record<string, JsonObject>> };
  copy.paths['/product'] = {
    ...copy.paths['/product'],
    get: {
      ...copy.paths['/client']!.get!,
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

const validator = new ContractValidator(withProductList());
const products = listPaging(validator, 'listProducts');
const clients = listPaging(validator, 'listClients');
const createdAt = '2026-11-21T14:35:12.345Z';
const product = { createdAt, id: 'prod_xwp2y3orwc5f5mau1k8yl3f1' };
const client = { createdAt, id: 'clnt_qf1ntfya8fmpj4swmjr4645w' };

function refusal(work: () => unknown): ProblemError {
  try {
    work();
  } catch (error) {
    if (error instanceof ProblemError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('listPaging', () => {
  test("a new list's bound and largest page come from its own answer and the shared limit", () => {
    expect(products.bound).toBe(500);
    expect(products.largestPage).toBe(clients.largestPage);
  });

  test('no paging parameter is the whole list; `after` alone is a page of the default size', () => {
    expect(products.request({})).toBeUndefined();
    expect(products.request({ limit: 5 })).toEqual({ limit: 5 });
    expect(products.request({ after: cursorOf(product) })).toEqual({ limit: DEFAULT_PAGE_SIZE, after: product });
  });

  test("the next page's Link names the operation's own path, and its cursor reads back", () => {
    const link = products.nextLink('/product', 5, product);
    expect(link).toBe(`</product?limit=5&after=${cursorOf(product)}>; rel="next"`);
    const after = /after=([^>]+)>/.exec(link)?.[1];
    expect(products.request({ limit: 5, after: after! })).toEqual({ limit: 5, after: product });
  });

  test("a cursor of another list's record is refused with a 422 naming after", () => {
    const problem = refusal(() => products.request({ after: cursorOf(client) }));
    expect(problem.status).toBe(422);
    expect(problem.errors?.map((e) => e.parameter)).toEqual(['after']);
    expect(refusal(() => clients.request({ after: cursorOf(product) })).status).toBe(422);
    expect(clients.request({ after: cursorOf(client) })).toEqual({ limit: DEFAULT_PAGE_SIZE, after: client });
  });
});

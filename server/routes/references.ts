import type { FieldError } from '../../lib/contract/ajv.js';
import type { Deps } from '../deps.js';
import { unknownReferenceError } from '../http/problems.js';
import type { ProductDoc } from '../store/types.js';

/**
 * The company's products named by `items`, and a field error for each item whose product
 * the company does not have (D27). Callers add their other reference errors and answer
 * all of them in one 422.
 */
export async function itemProducts(
  deps: Deps,
  companyId: string,
  items: ReadonlyArray<{ productId: string }>,
): Promise<{ products: Map<string, ProductDoc>; errors: FieldError[] }> {
  const products = await deps.store.getProducts(companyId, items.map((item) => item.productId));
  const errors = items.flatMap((item, i) => (products.has(item.productId) ? [] : [unknownReferenceError(`/items/${i}/productId`, 'product')]));
  return { products, errors };
}

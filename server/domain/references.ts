import type { FieldError } from '../../lib/contract/ajv.js';
import type { Deps } from '../deps.js';
import { inactiveReferenceError, unknownReferenceError } from '../http/problems.js';
import type { ClientDoc, ProductDoc } from '../store/types.js';

/**
 * The field error of a body field naming a record: none when the company has it and it is
 * ACTIVE; unknown or foreign (D27) and INACTIVE (D45) are refused alike with a 422 naming the field.
 */
export function referenceError(record: { status: string } | undefined, pointer: string, what: 'product' | 'client'): FieldError[] {
  if (!record) return [unknownReferenceError(pointer, what)];
  return record.status === 'ACTIVE' ? [] : [inactiveReferenceError(pointer, what)];
}

/**
 * The references of a record being written are looked up `forWrite`: they only shape that record.
 *
 * The company's products named by `items`, and a field error for each item whose product
 * the company does not have (D27) or is INACTIVE (D45). Callers add their other reference
 * errors and answer all of them in one 422.
 */
export async function itemProducts(
  deps: Deps,
  companyId: string,
  items: ReadonlyArray<{ productId: string }>,
): Promise<{ products: Map<string, ProductDoc>; errors: FieldError[] }> {
  const products = await deps.store.getProducts(
    companyId,
    items.map((item) => item.productId),
    { forWrite: true },
  );
  const errors = items.flatMap((item, i) => referenceError(products.get(item.productId), `/items/${i}/productId`, 'product'));
  return { products, errors };
}

/** The company's client named by a body field, and its field errors (D27, D45); no errors when the field was not sent. */
export async function referencedClient(
  deps: Deps,
  companyId: string,
  id: string | undefined,
  pointer: string,
): Promise<{ client?: ClientDoc; errors: FieldError[] }> {
  if (id === undefined) return { errors: [] };
  const client = await deps.store.getClient(companyId, id, { forWrite: true });
  return { ...(client ? { client } : {}), errors: referenceError(client, pointer, 'client') };
}

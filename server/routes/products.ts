import { defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { newId } from '../domain/ids.js';
import { notFound } from '../http/problems.js';
import type { ProductDoc } from '../store/types.js';

export const productOperations: ResourceOperations = (deps) => [
  defineOperation('createProduct', async ({ body, company }) => {
    const at = deps.now().toISOString();
    const product: ProductDoc = {
      id: newId('product'),
      name: body.name,
      description: body.description,
      price: body.price,
      companyId: company.doc.id,
      // The contract's defaults (D32) were filled in by validation.
      status: body.status ?? 'ACTIVE',
      isSubscription: body.isSubscription ?? false,
      createdAt: at,
      updatedAt: at,
      sku: body.sku,
      displayId: body.displayId,
      // D44: the seed's product has these; the request is where they can come from.
      ...(body.storefrontVariantId !== undefined ? { storefrontVariantId: body.storefrontVariantId } : {}),
      ...(body.imageUrl !== undefined ? { imageUrl: body.imageUrl } : {}),
      ...(body.defaultPeriod !== undefined ? { defaultPeriod: body.defaultPeriod } : {}),
      ...(body.defaultTrialDays !== undefined ? { defaultTrialDays: body.defaultTrialDays } : {}),
    };
    await deps.store.insertProduct(product);
    return { status: 201, body: product };
  }),

  defineOperation('getProduct', async ({ params: { id }, company }) => {
    const product = (await deps.store.getProducts(company.doc.id, [id])).get(id);
    if (!product) throw notFound('product', id);
    return { status: 200, body: product };
  }),
];

import { Hono } from 'hono';
import type { components } from '../../generated/openapi.js';
import type { RouteFactory } from '../app.js';
import type { AppEnv } from '../deps.js';
import { newId } from '../domain/ids.js';
import type { ProductDoc } from '../store/types.js';

type ProductCreate = components['schemas']['ProductCreate'];

export const productRoutes: RouteFactory = (deps, operation) => {
  const routes = new Hono<AppEnv>();

  routes.post('/', operation('createProduct'), async (c) => {
    const body = c.get('body') as ProductCreate;
    const at = deps.now().toISOString();
    const product: ProductDoc = {
      id: newId('product'),
      name: body.name,
      description: body.description,
      price: body.price,
      companyId: c.get('company').doc.id,
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
    return c.json(product, 201);
  });

  return routes;
};

import { defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { createOrder } from '../domain/orders.js';
import { notFound } from '../http/problems.js';

export const orderOperations: ResourceOperations = (deps) => [
  defineOperation('createOrder', async ({ body, company }) => ({ status: 201, body: await createOrder(deps, company, body) })),

  defineOperation('getOrder', async ({ params: { id }, company }) => {
    const order = await deps.store.getOrder(company.doc.id, id);
    if (!order) throw notFound('order', id);
    return { status: 200, body: order };
  }),
];

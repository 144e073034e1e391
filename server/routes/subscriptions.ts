import { defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { createSubscription, updateSubscription } from '../domain/subscriptions.js';
import { notFound } from '../http/problems.js';

export const subscriptionOperations: ResourceOperations = (deps) => [
  defineOperation('createSubscription', async ({ body, company }) => ({ status: 201, body: await createSubscription(deps, company, body) })),

  defineOperation('updateSubscription', async ({ body, company }) => ({ status: 200, body: await updateSubscription(deps, company, body) })),

  defineOperation('getSubscription', async ({ params: { id }, company }) => {
    const subscription = await deps.store.getSubscription(company.doc.id, id);
    if (!subscription) throw notFound('subscription', id);
    return { status: 200, body: subscription };
  }),
];

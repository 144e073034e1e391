import { defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { resetCompany } from '../domain/sandbox.js';
import { ProblemError } from '../http/problems.js';

/** D51: the sandbox reset of the caller's company, refused by a production deployment. */
export const sandboxOperations: ResourceOperations = (deps) => [
  defineOperation('resetSandbox', async ({ company }) => {
    const companyId = company.doc.id;
    const outcome = await resetCompany(deps, companyId, 'request');
    if (outcome && 'refused' in outcome) throw new ProblemError('sandboxOnly', outcome.refused);
    // The key's company exists (it authenticated); only a company deleted meanwhile has nothing to reset.
    return { status: 200, body: { companyId, deleted: outcome?.deleted ?? { charges: 0, clients: 0, products: 0, subscriptions: 0, orders: 0, webhooks: 0 } } };
  }),
];

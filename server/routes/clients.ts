import { asSerialised, defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { buildClient, clientCreateResult } from '../domain/clients.js';
import { companyIdMustMatch } from '../domain/company-scope.js';

export const clientOperations: ResourceOperations = (deps) => [
  // The stored documents are sent as they are, without a parse and a stringify of each.
  defineOperation('listClients', async ({ company }) => ({ status: 200, body: asSerialised(await deps.store.listClientsJson(company.doc.id)) })),

  defineOperation('createClient', async ({ body, company }) => {
    const companyId = company.doc.id;
    companyIdMustMatch(body.companyId, companyId, '/companyId');
    const client = buildClient(companyId, { ...body, taxId: body.cpfCnpj }, deps.now());
    await deps.store.insertClient(client);
    return { status: 201, body: clientCreateResult(client) };
  }),
];

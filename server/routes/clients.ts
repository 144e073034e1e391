import { asSerialised, defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { listPaging, readList } from '../domain/pages.js';
import { buildClient, clientCreateResult } from '../domain/clients.js';
import { companyIdMustMatch } from '../domain/company-scope.js';
import { notFound } from '../http/problems.js';

export const clientOperations: ResourceOperations = (deps) => {
  const paging = listPaging(deps.validator, 'listClients');
  return [
    // The stored documents are sent as they are, without a parse and a stringify of each.
    defineOperation('listClients', async ({ company, query, path }) => {
      const { body, link } = await readList(deps.store, paging, 'clients', company.doc.id, query, path);
      return { status: 200, body: asSerialised(body), ...(link ? { headers: { Link: link } } : {}) };
    }),

    defineOperation('createClient', async ({ body, company }) => {
      const companyId = company.doc.id;
      companyIdMustMatch(body.companyId, companyId, '/companyId');
      const client = buildClient(companyId, { ...body, taxId: body.cpfCnpj }, deps.now());
      await deps.store.insertClient(client);
      return { status: 201, body: clientCreateResult(client) };
    }),

    // The stored client is the list form, as the read answers it (D37).
    defineOperation('getClient', async ({ params: { id }, company }) => {
      const client = await deps.store.getClient(company.doc.id, id);
      if (!client) throw notFound('client', id);
      return { status: 200, body: client };
    }),
  ];
};

import { listOperations } from '../../lib/contract/bundled.js';
import { asSerialised, defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { clientPageRequest, nextClientPageLink, wholeClientList } from '../domain/client-pages.js';
import { buildClient, clientCreateResult } from '../domain/clients.js';
import { companyIdMustMatch } from '../domain/company-scope.js';

export const clientOperations: ResourceOperations = (deps) => {
  // The next page's link names the operation's own path, as the contract has it.
  const listPath = listOperations(deps.validator.contract).find((op) => op.operationId === 'listClients')?.path ?? '/client';
  return [
    // The stored documents are sent as they are, without a parse and a stringify of each.
    defineOperation('listClients', async ({ company, query }) => {
      const companyId = company.doc.id;
      const page = clientPageRequest(query, deps.validator);
      if (!page) return { status: 200, body: asSerialised(await wholeClientList(deps.store, companyId)) };
      const { json, next } = await deps.store.listClientsPageJson(companyId, page.limit, page.after);
      return { status: 200, body: asSerialised(json), ...(next ? { headers: { Link: nextClientPageLink(listPath, page.limit, next) } } : {}) };
    }),

    defineOperation('createClient', async ({ body, company }) => {
      const companyId = company.doc.id;
      companyIdMustMatch(body.companyId, companyId, '/companyId');
      const client = buildClient(companyId, { ...body, taxId: body.cpfCnpj }, deps.now());
      await deps.store.insertClient(client);
      return { status: 201, body: clientCreateResult(client) };
    }),
  ];
};

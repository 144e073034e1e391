import { asSerialised, defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { listPaging, listsInFlight, WHOLE_LIST_AT_ONCE, WHOLE_LIST_PART, wholeList } from '../domain/pages.js';
import { buildClient, clientCreateResult } from '../domain/clients.js';
import { companyIdMustMatch } from '../domain/company-scope.js';
import { notFound } from '../http/problems.js';

export const clientOperations: ResourceOperations = (deps) => {
  const paging = listPaging(deps.validator, 'listClients');
  // Each company's streamed whole lists in flight in this instance, of every list (D48).
  const inFlight = listsInFlight(deps.store);
  return [
    // The stored documents are sent as they are, without a parse and a stringify of each.
    defineOperation('listClients', async ({ company, query, path }) => {
      const companyId = company.doc.id;
      const page = paging.request(query);
      if (!page) {
        const whole = await wholeList(deps.store, 'clients', companyId, paging.bound, { atOnce: WHOLE_LIST_AT_ONCE, part: WHOLE_LIST_PART, inFlight });
        // Past its bound the list goes on in pages of the largest size (D48, D49).
        const link = whole.next ? { headers: { Link: paging.nextLink(path, paging.largestPage, whole.next) } } : {};
        return { status: 200, body: asSerialised(whole.body), ...link };
      }
      const { json, next } = await deps.store.listPageJson('clients', companyId, page.limit, page.after);
      return { status: 200, body: asSerialised(json), ...(next ? { headers: { Link: paging.nextLink(path, page.limit, next) } } : {}) };
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

import type { components } from '../../generated/openapi.js';
import { asSerialised, defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { newId } from '../domain/ids.js';
import type { ClientDoc } from '../store/types.js';
import { companyIdMustMatch } from './company-scope.js';

type ClientCreateResult = components['schemas']['ClientCreateResult'];

/** The create-result form of a client (`cpfCnpj`, no address), also nested in orders. */
export function clientCreateResult(client: ClientDoc): ClientCreateResult {
  const { id, taxId, name, email, phone, status, companyId, createdAt, updatedAt } = client;
  return { id, cpfCnpj: taxId, name, email, phone, status, companyId, createdAt, updatedAt };
}

/** A new client in the stored (list) form; optional address parts are kept only when sent. */
export function buildClient(
  companyId: string,
  input: { name: string; taxId: string; email: string; phone: string; status?: ClientDoc['status'] } & Partial<
    Pick<ClientDoc, 'postalCode' | 'address' | 'district' | 'number' | 'line1'>
  >,
  now: Date,
): ClientDoc {
  const at = now.toISOString();
  const client: ClientDoc = {
    id: newId('client'),
    taxId: input.taxId,
    name: input.name,
    email: input.email,
    phone: input.phone,
    status: input.status ?? 'ACTIVE',
    companyId,
    createdAt: at,
    updatedAt: at,
  };
  for (const key of ['postalCode', 'address', 'district', 'number', 'line1'] as const) {
    if (input[key] !== undefined) client[key] = input[key];
  }
  return client;
}

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

import type { components } from '../../generated/openapi.js';
import type { ClientDoc } from '../store/types.js';
import { newId } from './ids.js';

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

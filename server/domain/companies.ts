import type { CompanyRecord } from '../store/types.js';
import { newId } from './ids.js';

export interface NewCompany {
  name: string;
  /** CNPJ (or CPF), digits only; it is also the company's Pix key. */
  taxId: string;
  city?: string;
  color?: string;
}

/** A company as the API nests it in orders (2.8), with the sandbox's default checkout preferences. */
export function buildCompany(input: NewCompany, now: Date): CompanyRecord {
  const at = now.toISOString();
  const id = newId('company');
  const color = input.color ?? '#0E7C66';
  return {
    city: input.city ?? 'São Paulo',
    color,
    doc: {
      id,
      name: input.name,
      cpfCnpj: input.taxId,
      status: 'ACTIVE',
      storeType: 'ONLINE',
      needGatewaySetup: 'false',
      createdAt: at,
      updatedAt: at,
      checkoutPreferences: {
        id: newId('checkoutPreferences'),
        companyId: id,
        backgroundColor: '#FFFFFF',
        bannerColor: color,
        checkoutStyle: 'DEFAULT',
        pix: true,
        boleto: false,
        creditCard: false,
        timer: true,
        timerMinutes: 60,
        pixDiscount: 0,
        delivery: true,
        createdAt: at,
        updatedAt: at,
      },
    },
  };
}

import type { CompanyRecord } from '../store/types.js';
import { newId } from './ids.js';

export interface NewCompany {
  name: string;
  /** CNPJ (or CPF), digits only. Not a Pix key: a company names its key in `pixKey` (D43). */
  taxId: string;
  /** The company's Pix key as `readPixKey` gives it; without one no charge of the company can be paid (D43). */
  pixKey?: string;
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
    ...(input.pixKey !== undefined ? { pixKey: input.pixKey } : {}),
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

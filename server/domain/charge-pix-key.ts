import { UNPAYABLE_PIX_KEY } from '../../lib/pix/pix-key.js';
import type { CompanyRecord } from '../store/types.js';

/**
 * The Pix key a new charge's BR Code names (D43). A development charge never names a key that
 * could receive money, whatever the company has configured: a developer who scans a sandbox QR
 * code with a real bank app must not be able to pay anyone. A live charge names the company's own
 * key; a company without one (the development company is such) gets the unpayable key too.
 */
export function chargePixKey(company: Pick<CompanyRecord, 'pixKey'>, devMode: boolean): string {
  return devMode || company.pixKey === undefined ? UNPAYABLE_PIX_KEY : company.pixKey;
}

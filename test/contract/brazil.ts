/**
 * Brazilian identifiers used by the example checks: CPF and CNPJ check digits
 * (mod 11, Receita Federal) and phone numbers with an Anatel area code (DDD).
 */

import { isValidCnpj, isValidCpf } from '../../lib/brazil/tax-id.js';

/**
 * Problems of a value found at a CPF/CNPJ location. Masked forms (`529.982.247-25`,
 * `11.222.333/0001-81`) are read as their digits; what remains must be a valid
 * 11-digit CPF or 14-digit CNPJ.
 */
export function taxIdProblems(value: string): string[] {
  const masked = /^\d{3}\.\d{3}\.\d{3}-\d{2}$|^\d{2}\.\d{3}\.\d{3}\/\d{4}-\d{2}$/.test(value);
  const digits = masked ? value.replace(/\D/g, '') : value;
  if (digits.length === 11 && /^\d+$/.test(digits)) return isValidCpf(digits) ? [] : [`${value} is not a valid CPF (check digits)`];
  if (digits.length === 14 && /^\d+$/.test(digits)) return isValidCnpj(digits) ? [] : [`${value} is not a valid CNPJ (check digits)`];
  return [`${value} is neither an 11-digit CPF nor a 14-digit CNPJ`];
}

/** Area codes (DDD) assigned by Anatel. */
export const brazilianDdds: ReadonlySet<string> = new Set([
  // SP
  '11',
  '12',
  '13',
  '14',
  '15',
  '16',
  '17',
  '18',
  '19',
  // RJ, ES
  '21',
  '22',
  '24',
  '27',
  '28',
  // MG
  '31',
  '32',
  '33',
  '34',
  '35',
  '37',
  '38',
  // PR, SC
  '41',
  '42',
  '43',
  '44',
  '45',
  '46',
  '47',
  '48',
  '49',
  // RS
  '51',
  '53',
  '54',
  '55',
  // DF, GO, TO, MT, MS, AC, RO
  '61',
  '62',
  '63',
  '64',
  '65',
  '66',
  '67',
  '68',
  '69',
  // BA, SE
  '71',
  '73',
  '74',
  '75',
  '77',
  '79',
  // PE, AL, PB, RN, CE, PI
  '81',
  '82',
  '83',
  '84',
  '85',
  '86',
  '87',
  '88',
  '89',
  // PA, AM, RR, AP, MA
  '91',
  '92',
  '93',
  '94',
  '95',
  '96',
  '97',
  '98',
  '99',
]);

export function isValidDdd(ddd: string): boolean {
  return brazilianDdds.has(ddd);
}

/**
 * Problems of a Brazilian phone number written as digits: `^[0-9]{10,11}$`
 * (DDD + 8-digit landline or DDD + 9-digit mobile), a DDD that exists, and an
 * 11-digit (mobile) number's subscriber part starting with 9.
 */
export function phoneProblems(phone: string): string[] {
  if (!/^[0-9]{10,11}$/.test(phone)) return [`${phone} does not match ^[0-9]{10,11}$`];
  const problems: string[] = [];
  const ddd = phone.slice(0, 2);
  if (!isValidDdd(ddd)) problems.push(`${phone} has DDD ${ddd}, which is not a Brazilian area code`);
  if (phone.length === 11 && phone[2] !== '9') problems.push(`${phone} has 11 digits but is not a mobile number (9 after the DDD)`);
  return problems;
}

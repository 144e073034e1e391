/**
 * Pix keys (chaves Pix) in the five kinds the Banco Central's DICT registers, and the one key
 * no one can ever register, which every sandbox BR Code carries (D43).
 */
import { isValidCnpj, isValidCpf } from '../brazil/tax-id.js';

/**
 * An e-mail key at the `.invalid` top-level domain, reserved by RFC 2606 and RFC 6761: no DNS
 * answers for it, so no mailbox there can receive the confirmation code the DICT sends before it
 * registers an e-mail key. A bank app that reads a BR Code naming it finds no account to pay.
 */
export const UNPAYABLE_PIX_KEY = 'sandbox@pix.invalid';

/**
 * Whether no one can ever register `key` with the DICT: an e-mail at a special-use top-level
 * domain (RFC 6761: `invalid`, `test`, `example`, `localhost`), which is never delegated, so no
 * mailbox there can receive the code that confirms an e-mail key.
 */
export function isUnregistrablePixKey(key: string): boolean {
  return /^[^@\s]+@(?:[^@\s]+\.)?(?:invalid|test|example|localhost)$/i.test(key);
}

export type PixKeyKind = 'cpf' | 'cnpj' | 'email' | 'phone' | 'evp';

export type PixKeyReading = { key: string; kind: PixKeyKind } | { problem: string };

// The forms of the DICT's interface manual: keys are stored lower case, e-mails up to 77 characters
// (which is also what fits field 26 of a BR Code next to the GUI), phones in E.164.
const EMAIL = /^[a-z0-9.!#$&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const EMAIL_MAX = 77;
/** +55, a DDD (two digits 1–9) and a mobile number (nine digits starting with 9): the only phones Pix registers. */
const PHONE = /^\+55[1-9]{2}9\d{8}$/;
/** A random key (EVP) is a UUID the DICT generates (version 4). */
const EVP = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The key as the DICT would hold it (e-mails and random keys lower case), and its kind; or why it is none. */
export function readPixKey(input: string): PixKeyReading {
  const given = input.trim();
  if (/^\d+$/.test(given)) {
    if (given.length === 11) return isValidCpf(given) ? { key: given, kind: 'cpf' } : { problem: 'a CPF key needs valid check digits' };
    if (given.length === 14) return isValidCnpj(given) ? { key: given, kind: 'cnpj' } : { problem: 'a CNPJ key needs valid check digits' };
    return { problem: 'a key of digits is a CPF (11) or a CNPJ (14)' };
  }
  if (given.startsWith('+'))
    return PHONE.test(given) ? { key: given, kind: 'phone' } : { problem: 'a phone key is +55, the DDD and a nine-digit mobile number (+5511987654321)' };
  const lower = given.toLowerCase();
  if (EVP.test(lower)) return { key: lower, kind: 'evp' };
  if (lower.includes('@')) {
    if (lower.length > EMAIL_MAX || !EMAIL.test(lower)) return { problem: `an e-mail key is an address of at most ${EMAIL_MAX} characters` };
    if (isUnregistrablePixKey(lower)) return { problem: 'an e-mail at a reserved domain (.invalid, .test, .example, .localhost) can never be registered' };
    return { key: lower, kind: 'email' };
  }
  return { problem: 'a Pix key is a CPF, a CNPJ, an e-mail, a +55 mobile number or a random key (UUID)' };
}

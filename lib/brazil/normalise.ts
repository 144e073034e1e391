/**
 * Brazilian numbers as people write them, read as the digits the contract stores (D46).
 *
 * Where the separators may stand is the contract's to say (the request patterns `TaxIdInput`,
 * `PhoneInput`, `PostalCodeInput`, checked before this runs); this only drops them:
 * - CPF/CNPJ: spaces, dots, dashes and slashes (`529.982.247-25`, `11.222.333/0001-81`);
 * - phone: spaces, dots, dashes and parentheses, and a leading `+55` (Brazil's country code:
 *   `+55 11 98765-4321`, `(11) 98765-4321`);
 * - CEP: spaces, dots and dashes (`01310-100`, `01.310-100`).
 *
 * Any other character (a letter, another country code, a tab) is kept, so the value stays
 * invalid for the digits-only checks that follow: nothing is guessed.
 */

const taxIdSeparators = /[ ./-]/g;
const phoneSeparators = /[ ().-]/g;
const postalCodeSeparators = /[ .-]/g;

export function normaliseTaxId(value: string): string {
  return value.replace(taxIdSeparators, '');
}

export function normalisePhone(value: string): string {
  return value.replace(/^\+55/, '').replace(phoneSeparators, '');
}

export function normalisePostalCode(value: string): string {
  return value.replace(postalCodeSeparators, '');
}

/** A Brazilian phone once normalised: area code (DDD) and number, the seed's `^[0-9]{10,11}$`. */
export function isPhoneDigits(value: string): boolean {
  return /^[0-9]{10,11}$/.test(value);
}

/** A CEP once normalised: eight digits. */
export function isPostalCodeDigits(value: string): boolean {
  return /^[0-9]{8}$/.test(value);
}

/**
 * CPF and CNPJ check digits (Receita Federal, modulus 11), digits-only forms as the
 * contract requires (D23). A number made of one repeated digit passes the arithmetic
 * but is never issued, so it is refused too.
 */
function checkDigit(digits: readonly number[], weights: readonly number[]): number {
  const sum = weights.reduce((acc, weight, i) => acc + weight * digits[i]!, 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

function toDigits(value: string, length: number): number[] | undefined {
  if (value.length !== length || !/^[0-9]+$/.test(value) || /^(\d)\1+$/.test(value)) return undefined;
  return [...value].map(Number);
}

const cpfWeights1 = [10, 9, 8, 7, 6, 5, 4, 3, 2];
const cpfWeights2 = [11, 10, 9, 8, 7, 6, 5, 4, 3, 2];
const cnpjWeights1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
const cnpjWeights2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

export function isValidCpf(value: string): boolean {
  const d = toDigits(value, 11);
  return !!d && checkDigit(d, cpfWeights1) === d[9] && checkDigit(d, cpfWeights2) === d[10];
}

export function isValidCnpj(value: string): boolean {
  const d = toDigits(value, 14);
  return !!d && checkDigit(d, cnpjWeights1) === d[12] && checkDigit(d, cnpjWeights2) === d[13];
}

export function isValidCpfOrCnpj(value: string): boolean {
  return value.length === 11 ? isValidCpf(value) : isValidCnpj(value);
}

/** Appends the two check digits to a 9-digit CPF or 12-digit CNPJ base (for fixtures and seed data). */
export function withCheckDigits(base: string): string {
  const digits = [...base].map(Number);
  const [w1, w2] = base.length === 9 ? [cpfWeights1, cpfWeights2] : [cnpjWeights1, cnpjWeights2];
  digits.push(checkDigit(digits, w1));
  digits.push(checkDigit(digits, w2));
  return digits.join('');
}

/** A tax number as Brazilians read it, with the name of its kind. */
export interface FormattedTaxId {
  kind: 'CPF' | 'CNPJ';
  /** `123.456.789-09` or `12.345.678/0001-90`. */
  text: string;
}

/**
 * The stored digits (D23) written with the Receita Federal's mask, for people to read (the
 * payment page shows the merchant's). Check digits are not judged here: a number that was
 * accepted is shown as it is. Anything but 11 or 14 digits has no mask, and is `undefined`.
 */
export function formatTaxId(digits: string): FormattedTaxId | undefined {
  const cpf = /^(\d{3})(\d{3})(\d{3})(\d{2})$/.exec(digits);
  if (cpf) return { kind: 'CPF', text: `${cpf[1]}.${cpf[2]}.${cpf[3]}-${cpf[4]}` };
  const cnpj = /^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/.exec(digits);
  if (cnpj) return { kind: 'CNPJ', text: `${cnpj[1]}.${cnpj[2]}.${cnpj[3]}/${cnpj[4]}-${cnpj[5]}` };
  return undefined;
}

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

/**
 * Money is computed in integer cents, never in floating-point reais: the contract's
 * amounts have at most two decimal places (format `brl`), so each converts exactly.
 */
export function toCents(reais: number): number {
  return Math.round(reais * 100);
}

export function toReais(cents: number): number {
  return cents / 100;
}

/** `cents × basisPoints / 10 000`, rounded half up to the cent (D30). */
export function percentOfCents(cents: number, basisPoints: number): number {
  return Math.floor((cents * basisPoints + 5_000) / 10_000);
}

import type { components } from '../../generated/openapi.js';
import type { FieldError } from '../../lib/contract/ajv.js';
import { percentOfCents, toCents } from './money.js';

type PaymentMethod = components['schemas']['PaymentMethod'];

/**
 * D29: the amounts of an order must add up to the cent. Returns one field error per
 * amount that does not.
 */
export function amountErrors(input: { subtotal: number; discount: number; shippingCost: number; total: number; itemsCents?: number }): FieldError[] {
  const errors: FieldError[] = [];
  const subtotal = toCents(input.subtotal);
  if (input.itemsCents !== undefined && input.itemsCents !== subtotal) {
    errors.push({
      pointer: '/subtotal',
      detail: `must equal the sum of the items (${(input.itemsCents / 100).toFixed(2)}), got ${input.subtotal}`,
      keyword: 'sum',
    });
  }
  const expected = subtotal - toCents(input.discount) + toCents(input.shippingCost);
  if (toCents(input.total) !== expected) {
    errors.push({
      pointer: '/total',
      detail: `must equal subtotal − discount + shippingCost (${(expected / 100).toFixed(2)}), got ${input.total}`,
      keyword: 'sum',
    });
  }
  return errors;
}

/** D30: the fees of a sale, in cents. */
export function saleFees(totalCents: number, method: PaymentMethod): { checkoutFee: number; gatewayFee: number; net: number } {
  const checkoutFee = percentOfCents(totalCents, 100);
  const gatewayFee = method === 'BOLETO' ? 349 : percentOfCents(totalCents, method === 'PIX' ? 99 : 499);
  return { checkoutFee, gatewayFee, net: totalCents - checkoutFee - gatewayFee };
}

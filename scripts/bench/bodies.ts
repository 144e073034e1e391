/**
 * Request bodies that the contract accepts (generated/openapi.yaml: ClientCreate, ProductCreate,
 * PaymentLinkCreate, OrderCreate). Typed with the generated types, so a contract change that
 * breaks one shows up in `tsc` rather than as a 422 under load.
 */
import type { components } from '../../generated/openapi.js';
import { withCheckDigits } from '../../lib/brazil/tax-id.js';

type Schemas = components['schemas'];

/** A valid CPF, different for every `index` below 10^8 (the base never repeats one digit). */
export function benchCpf(index: number): string {
  return withCheckDigits(String(100_000_000 + index).padStart(9, '0'));
}

export function clientBody(index: number): Schemas['ClientCreate'] {
  return {
    name: `Cliente Bench ${index}`,
    status: 'ACTIVE',
    cpfCnpj: benchCpf(index),
    email: `cliente${index}@example.com`,
    // A mobile number: area code 11, then 9 and eight digits.
    phone: `119${String(index).padStart(8, '0')}`,
  };
}

/** The three products of the order scenario; prices in cents, so sums are exact. */
export const benchProducts = [
  { name: 'Café especial 250 g', priceCents: 3_990, sku: 'BENCH-CAFE-250' },
  { name: 'Filtro de papel 103', priceCents: 1_250, sku: 'BENCH-FILTRO-103' },
  { name: 'Caneca esmaltada', priceCents: 725, sku: 'BENCH-CANECA' },
] as const;

export function productBody(product: (typeof benchProducts)[number]): Schemas['ProductCreate'] {
  return {
    name: product.name,
    description: `Produto do benchmark (${product.sku})`,
    // D17: money is a JSON number of reais with at most two decimals.
    price: product.priceCents / 100,
    sku: product.sku,
    displayId: product.sku.toLowerCase(),
  };
}

/** A payment link for two units of the first product: 79.80 BRL, above the 5.00 minimum. */
export function paymentLinkBody(productIds: readonly string[]): Schemas['PaymentLinkCreate'] {
  return { items: [{ productId: productIds[0]!, quantity: 2 }], devMode: true };
}

/**
 * An order of the three products (1, 2 and 3 units). The amounts must add up to the cent:
 * subtotal = sum(price x quantity), total = subtotal - discount + shippingCost.
 */
export function orderBody(productIds: readonly string[]): Schemas['OrderCreate'] {
  const items = productIds.map((productId, i) => ({ productId, quantity: i + 1 }));
  const subtotalCents = items.reduce((sum, item, i) => sum + benchProducts[i]!.priceCents * item.quantity, 0);
  const discountCents = 500;
  const shippingCostCents = 1_500;
  return {
    items,
    subtotal: subtotalCents / 100,
    discount: discountCents / 100,
    shippingCost: shippingCostCents / 100,
    total: (subtotalCents - discountCents + shippingCostCents) / 100,
    paymentMethod: 'PIX',
  };
}

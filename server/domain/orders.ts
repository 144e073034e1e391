import type { components } from '../../generated/openapi.js';
import type { FieldError } from '../../lib/contract/ajv.js';
import { percentOfCents, toCents, toReais } from './money.js';
import type { Deps } from '../deps.js';
import { asSerialised, type SerialisedText } from '../http/define-operation.js';
import { validationProblem } from '../http/problems.js';
import type { CompanyRecord, OrderDoc } from '../store/types.js';
import { clientCreateResult } from './clients.js';
import { companyIdMustMatch } from './company-scope.js';
import { definedFields } from './defined-fields.js';
import { newId } from './ids.js';
import { itemProducts, referencedClient } from './references.js';
import { toUtcTimestamp } from './time.js';

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

type OrderCreate = components['schemas']['OrderCreate'];
type OrderCreated = components['schemas']['OrderCreated'];
type ShippingAddress = components['schemas']['ShippingAddress'];

/** Fields of the request that the order keeps as they were sent. */
const copiedFields = [
  'cpfCnpj',
  'name',
  'email',
  'phone',
  'postalCode',
  'street',
  'number',
  'neighborhood',
  'city',
  'state',
  'complement',
  'addressType',
  'installments',
  'shippingMethod',
  'trackingCode',
  'trackingUrl',
  'storefrontOrderId',
  'notes',
] as const;

/** What a new order is (seed §3, rule 1), whatever it becomes later. */
const newOrderState = { status: 'CREATED', paymentStatus: 'PENDING' } as const;

/** D07: the complete address, assembled from the parts that were sent. */
function shippingAddress(body: OrderCreate): ShippingAddress | undefined {
  if (body.postalCode === undefined && body.street === undefined && body.city === undefined) return undefined;
  return { country: 'BR', ...definedFields(body, ['postalCode', 'street', 'number', 'complement', 'neighborhood', 'city', 'state', 'addressType']) };
}

/**
 * A new order (seed §4.8, D07, D26, D27, D29, D30, D45): its references checked, its amounts
 * adding up, its number the company's next, its sale and fees computed; stored and answered.
 */
export async function createOrder(deps: Deps, company: CompanyRecord, body: OrderCreate): Promise<SerialisedText<OrderCreated>> {
  const companyId = company.doc.id;
  companyIdMustMatch(body.companyId, companyId, '/companyId');
  body.items?.forEach((item, i) => {
    companyIdMustMatch(item.companyId, companyId, `/items/${i}/companyId`);
  });

  const requested = body.items ?? [];
  const { products, errors: referenceErrors } = await itemProducts(deps, companyId, requested);
  const { client, errors: clientErrors } = await referencedClient(deps, companyId, body.clientId, '/clientId');
  referenceErrors.unshift(...clientErrors);
  if (referenceErrors.length > 0) throw validationProblem(referenceErrors);

  const discount = body.discount ?? 0;
  const shippingCost = body.shippingCost ?? 0;
  const itemsCents = body.items ? requested.reduce((sum, item) => sum + toCents(products.get(item.productId)!.price) * item.quantity, 0) : undefined;
  const errors = amountErrors({ subtotal: body.subtotal, discount, shippingCost, total: body.total, ...(itemsCents !== undefined ? { itemsCents } : {}) });
  if (errors.length > 0) throw validationProblem(errors);
  const paymentDate = body.paymentDate !== undefined ? toUtcTimestamp(body.paymentDate, '/paymentDate') : undefined;
  const deliveryDate = body.deliveryDate !== undefined ? toUtcTimestamp(body.deliveryDate, '/deliveryDate') : undefined;

  const at = deps.now().toISOString();
  const paymentMethod = body.paymentMethod ?? 'PIX';
  const { json } = await deps.store.insertOrder(companyId, (orderNumber) => {
    const id = newId('order');
    const fees = saleFees(toCents(body.total), paymentMethod);
    const doc: OrderDoc = {
      id,
      orderNumber: String(orderNumber).padStart(6, '0'),
      status: newOrderState.status,
      subtotal: body.subtotal,
      discount,
      shippingCost,
      total: body.total,
      paymentStatus: newOrderState.paymentStatus,
      companyId,
      company: company.doc,
      orderItems: requested.map((item) => ({
        id: newId('orderItem'),
        companyId,
        productId: item.productId,
        orderId: id,
        quantity: item.quantity,
        createdAt: at,
        updatedAt: at,
        product: products.get(item.productId)!,
      })),
      createdAt: at,
      updatedAt: at,
      ...definedFields(body, copiedFields),
      paymentMethod,
      isStorefrontOrder: body.isStorefrontOrder ?? false,
      sales: {
        id: newId('sales'),
        companyId,
        orderId: id,
        value: body.total,
        totalValue: toReais(fees.net),
        checkoutFee: toReais(fees.checkoutFee),
        gatewayFee: toReais(fees.gatewayFee),
        createdAt: at,
        updatedAt: at,
        order: id,
      },
    };
    const address = shippingAddress(body);
    if (address) doc.shippingAddress = address;
    if (paymentDate) doc.paymentDate = paymentDate;
    if (deliveryDate) doc.deliveryDate = deliveryDate;
    if (client) {
      doc.clientId = client.id;
      doc.client = clientCreateResult(client);
    }
    return doc;
  });
  // The order as stored is the answer: a new order is in `newOrderState`. Serialised once, by the store.
  return asSerialised<OrderCreated>(json);
}

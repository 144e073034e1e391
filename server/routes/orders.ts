import type { components } from '../../generated/openapi.js';
import { defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { newId } from '../domain/ids.js';
import { toCents, toReais } from '../domain/money.js';
import { amountErrors, saleFees } from '../domain/orders.js';
import { toUtcTimestamp } from '../domain/time.js';
import { definedFields } from '../domain/defined-fields.js';
import { notFound, validationProblem } from '../http/problems.js';
import type { OrderDoc } from '../store/types.js';
import { clientCreateResult } from '../domain/clients.js';
import { companyIdMustMatch } from '../domain/company-scope.js';
import { itemProducts, referencedClient } from '../domain/references.js';

type OrderCreate = components['schemas']['OrderCreate'];
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

export const orderOperations: ResourceOperations = (deps) => [
  defineOperation('createOrder', async ({ body, company }) => {
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
    const order = await deps.store.insertOrder(companyId, (orderNumber) => {
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
    return { status: 201, body: { ...order, ...newOrderState } };
  }),

  defineOperation('getOrder', async ({ params: { id }, company }) => {
    const order = await deps.store.getOrder(company.doc.id, id);
    if (!order) throw notFound('order', id);
    return { status: 200, body: order };
  }),
];

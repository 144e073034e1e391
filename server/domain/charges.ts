import type { components } from '../../generated/openapi.js';
import { toFieldErrors } from '../../lib/contract/ajv.js';
import { buildBrCode } from '../../lib/pix/brcode.js';
import type { Deps } from '../deps.js';
import { WithJson } from '../http/define-operation.js';
import { validationProblem } from '../http/problems.js';
import type { ChargeDoc, ClientDoc, CompanyRecord, IdempotencyClaimInput, StoredCharge, StoredResponse } from '../store/types.js';
import { namedSchemas } from '../validation.js';
import { chargeEvent } from './charge-lifecycle.js';
import { chargePixKey } from './charge-pix-key.js';
import { buildClient } from './clients.js';
import { newId } from './ids.js';
import { toCents } from './money.js';
import { itemProducts, referencedClient } from './references.js';

type PaymentLinkCreate = components['schemas']['PaymentLinkCreate'];
type PaymentLinkResponse = components['schemas']['PaymentLinkResponse'];

/** D28: a charge can be paid for 60 minutes. */
const CHARGE_LIFETIME_MS = 60 * 60 * 1000;

/**
 * A new charge from a payment-link request (D28, D43, D48): its items priced from the company's
 * products, its customer a reference or a client found or made by tax number, its BR Code; stored with its first event
 * (D15) and, under an Idempotency-Key, with the answer a retry gets (D10), in one transaction.
 */
export async function createCharge(
  deps: Deps,
  company: CompanyRecord,
  body: PaymentLinkCreate,
  claim: IdempotencyClaimInput | undefined,
): Promise<WithJson<PaymentLinkResponse>> {
  const companyId = company.doc.id;
  const now = deps.now();

  let customer: ChargeDoc['customer'];
  let customerClient: ClientDoc | undefined;
  const requested = body.items ?? [];
  const { products, errors } = await itemProducts(deps, companyId, requested);
  if (body.customerId !== undefined) {
    const { client, errors: clientErrors } = await referencedClient(deps, companyId, body.customerId, '/customerId');
    if (client) customer = { name: client.name, taxId: client.taxId, email: client.email, phone: client.phone };
    errors.unshift(...clientErrors);
  } else if (body.customer) {
    // D48: the store reuses the company's client with this tax number; the charge keeps what was sent.
    customerClient = buildClient(companyId, body.customer, now);
    customer = { name: customerClient.name, taxId: customerClient.taxId, email: customerClient.email, phone: customerClient.phone };
  }
  if (errors.length > 0) throw validationProblem(errors);
  const items: ChargeDoc['items'] = requested.map((item) => {
    const product = products.get(item.productId)!;
    return {
      productId: product.id,
      companyId,
      quantity: item.quantity,
      product: {
        id: product.id,
        name: product.name,
        description: product.description,
        price: product.price,
        needShipping: !product.isSubscription,
        companyId,
        status: product.status,
        ...(product.sku !== undefined ? { sku: product.sku } : {}),
        ...(product.imageUrl !== undefined ? { imageUrl: product.imageUrl } : {}),
      },
    };
  });

  const total = body.total ?? items.reduce((sum, item) => sum + toCents(item.product.price) * item.quantity, 0);
  // A computed total obeys the same limits as a sent one: the contract's Cents schema (D18, D25).
  const validCents = deps.validator.at(namedSchemas.cents);
  if (body.total === undefined && !validCents(total)) {
    const broken = toFieldErrors(validCents.errors ?? [])[0];
    throw validationProblem([
      {
        pointer: '/items',
        detail: `come to ${total} cents in all, and the total ${broken?.detail ?? 'is out of range'}`,
        keyword: broken?.keyword ?? 'total',
      },
    ]);
  }

  const id = newId('charge');
  const devMode = body.devMode ?? false;
  const brCode = buildBrCode({
    pixKey: chargePixKey(company, devMode),
    amountCents: total,
    merchantName: company.doc.name,
    merchantCity: company.city,
    txid: id.slice(id.indexOf('_') + 1),
  });
  const charge: StoredCharge = {
    id,
    total,
    url: `${deps.config.publicUrl}/pay/${id}`,
    status: 'OPEN',
    paymentStatus: 'PENDING',
    devMode,
    needShipping: body.needShipping ?? false,
    expiresAt: new Date(now.getTime() + CHARGE_LIFETIME_MS).toISOString(),
    company: { taxId: company.doc.cpfCnpj, name: company.doc.name, color: company.color },
    ...(body.successUrl !== undefined ? { successUrl: body.successUrl } : {}),
    ...(body.failedUrl !== undefined ? { failedUrl: body.failedUrl } : {}),
    brCode,
    items,
    ...(customer ? { customer } : {}),
    ...(body.externalId !== undefined ? { externalId: body.externalId } : {}),
  };

  const response: PaymentLinkResponse = {
    status: 201,
    message: 'Payment link created',
    data: {
      id,
      url: charge.url,
      devMode: charge.devMode,
      total,
      ...(body.externalId !== undefined ? { externalId: body.externalId } : {}),
    },
  };
  // Serialised once: sent as the answer, and stored as what a retry with the key is answered.
  const answer = new WithJson(response);
  const stored: StoredResponse | undefined = claim ? { ...claim, status: 201, body: answer.json } : undefined;
  // D15: a new charge emits charge.pending, in the transaction that stores it.
  await deps.store.insertCharge(charge, companyId, {
    ...(customerClient ? { customer: customerClient } : {}),
    ...(stored ? { response: stored } : {}),
    events: [chargeEvent(charge, now)],
  });
  return answer;
}

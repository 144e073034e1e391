/**
 * Records for the store tests: valid documents of every kind, with a fixed clock, built the way
 * the routes build them.
 */
import { randomBytes } from 'node:crypto';
import { issueApiKey } from '../auth/api-keys.js';
import { buildCompany } from '../domain/companies.js';
import { newId } from '../domain/ids.js';
import type {
  ChargeDoc,
  ChargeEventType,
  ClientDoc,
  CompanyRecord,
  DueDelivery,
  IdempotencyClaimInput,
  NewEvent,
  OrderDoc,
  ProductDoc,
  Store,
  StoredCharge,
  SubscriptionDoc,
  WebhookDeliveryDoc,
  WebhookDoc,
} from './types.js';

export const NOW = new Date('2025-03-10T12:00:00.000Z');
export const at = NOW.toISOString();
export const later = (seconds: number): string => new Date(NOW.getTime() + seconds * 1000).toISOString();

export async function addCompany(store: Store, name: string, taxId: string): Promise<CompanyRecord> {
  const company = buildCompany({ name, taxId, city: 'Recife', color: '#112233' }, NOW);
  await store.createCompany(company, issueApiKey(company.doc.id, NOW).record);
  return company;
}

export function client(companyId: string, name = 'Maria Silva Souza', overrides: Partial<ClientDoc> = {}): ClientDoc {
  return {
    id: newId('client'),
    taxId: '52998224725',
    name,
    email: 'maria@example.com',
    phone: '11987654321',
    status: 'ACTIVE',
    companyId,
    createdAt: at,
    updatedAt: at,
    postalCode: '01310100',
    address: 'Avenida Paulista',
    number: '1000',
    ...overrides,
  };
}

export function product(companyId: string): ProductDoc {
  return {
    id: newId('product'),
    name: 'Café especial 250 g',
    description: 'Grãos torrados do Cerrado Mineiro',
    price: 39.9,
    companyId,
    status: 'ACTIVE',
    isSubscription: false,
    createdAt: at,
    updatedAt: at,
    sku: 'CAFE-250',
    displayId: 'cafe-250',
  };
}

export function subscription(productId: string, clientId: string): SubscriptionDoc {
  return {
    id: newId('subscription'),
    productId,
    clientId,
    period: 'MONTHLY',
    price: 39.9,
    trialDays: 7,
    status: 'TRIALING',
    createdAt: at,
    updatedAt: at,
    trialEndsAt: '2025-03-17T12:00:00.000Z',
    nextBillingAt: '2025-03-17T12:00:00.000Z',
  };
}

/** A charge as stored at creation: without its QR image, which is rendered later. */
export function charge(company: CompanyRecord, prod: ProductDoc, options: { customer?: ClientDoc; id?: string; expiresAt?: string } = {}): StoredCharge {
  const id = options.id ?? newId('charge');
  const customer = options.customer;
  const doc: ChargeDoc = {
    id,
    total: 7980,
    url: `http://pay.test/pay/${id}`,
    status: 'OPEN',
    paymentStatus: 'PENDING',
    devMode: false,
    needShipping: false,
    expiresAt: options.expiresAt ?? '2025-03-10T13:00:00.000Z',
    company: { taxId: company.doc.cpfCnpj, name: company.doc.name, color: company.color },
    brCode: '00020101021226...6304ABCD',
    brCodeBase64: '',
    items: [
      {
        productId: prod.id,
        companyId: company.doc.id,
        quantity: 2,
        product: {
          id: prod.id,
          name: prod.name,
          description: prod.description,
          price: prod.price,
          needShipping: true,
          companyId: company.doc.id,
          status: 'ACTIVE',
        },
      },
    ],
    ...(customer ? { customer: { name: customer.name, taxId: customer.taxId, email: customer.email, phone: customer.phone } } : {}),
    externalId: 'pedido-42',
  };
  const { brCodeBase64: _image, ...stored } = doc;
  return stored;
}

export function order(company: CompanyRecord, orderNumber: number): OrderDoc {
  return {
    id: newId('order'),
    orderNumber: String(orderNumber).padStart(6, '0'),
    status: 'CREATED',
    subtotal: 79.8,
    discount: 0,
    shippingCost: 10,
    total: 89.8,
    paymentStatus: 'PENDING',
    companyId: company.doc.id,
    company: company.doc,
    orderItems: [],
    createdAt: at,
    updatedAt: at,
    paymentMethod: 'PIX',
    shippingAddress: { postalCode: '01310100', city: 'São Paulo', state: 'SP', country: 'BR' },
  };
}

export function webhook(companyId: string, events: ChargeEventType[] = ['charge.paid', 'charge.expired'], createdAt = at): WebhookDoc {
  return {
    id: newId('webhook'),
    url: `https://merchant.example.com/hooks/${randomBytes(3).toString('hex')}`,
    name: 'Pagamentos',
    companyId,
    status: 'ACTIVE',
    events,
    createdAt,
    updatedAt: createdAt,
  };
}

export function event(type: ChargeEventType, createdAt = at): NewEvent {
  return { id: `msg_${randomBytes(8).toString('hex')}`, type, createdAt, body: JSON.stringify({ type, timestamp: createdAt, data: { id: 'char_x' } }) };
}

export function attempt(due: DueDelivery, requestedAt: string, outcome: { httpStatus: number; nextAttemptAt?: string }): WebhookDeliveryDoc {
  const ok = outcome.httpStatus >= 200 && outcome.httpStatus <= 299;
  return {
    id: `dlvr_${randomBytes(8).toString('hex')}`,
    eventId: due.eventId,
    eventType: due.type,
    webhookId: due.webhookId,
    attempt: due.attempts + 1,
    status: ok ? 'SUCCEEDED' : 'FAILED',
    httpStatus: outcome.httpStatus,
    requestedAt,
    durationMs: 12,
    ...(outcome.nextAttemptAt ? { nextAttemptAt: outcome.nextAttemptAt } : {}),
  };
}

/** An idempotency claim `seconds` after NOW, with a 60 s lease and a one-day retention. */
export function claimAt(companyId: string, key: string, fingerprint: string, seconds: number): IdempotencyClaimInput {
  const t = NOW.getTime() + seconds * 1000;
  return {
    companyId,
    key,
    fingerprint,
    now: new Date(t).toISOString(),
    leaseUntil: new Date(t + 60_000).toISOString(),
    expiresAt: new Date(t + 86_400_000).toISOString(),
  };
}

export const sortedPairs = (deliveries: readonly DueDelivery[]): string[] => deliveries.map((d) => `${d.eventId}/${d.webhookId}`).sort();

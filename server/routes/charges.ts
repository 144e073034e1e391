import { createHash } from 'node:crypto';
import type { Context } from 'hono';
import type { components } from '../../generated/openapi.js';
import { toFieldErrors } from '../../lib/contract/ajv.js';
import { buildBrCode } from '../../lib/pix/brcode.js';
import type { AppEnv, Deps } from '../deps.js';
import { asSerialised, defineOperation, parseSerialised, serialise, type Answer, type ResourceOperations, type Serialised } from '../http/define-operation.js';
import { chargeEvent, simulateExpiration, simulatePayment } from '../domain/charge-lifecycle.js';
import { chargePixKey } from '../domain/charge-pix-key.js';
import { newId } from '../domain/ids.js';
import { toCents } from '../domain/money.js';
import { chargeJsonHasImage, withImage } from '../domain/charge-image.js';
import { envelopeJson } from '../http/envelope.js';
import { notFound, ProblemError, validationProblem } from '../http/problems.js';
import type { ChargeDoc, ClientDoc, CompanyRecord, StoredCharge, StoredResponse } from '../store/types.js';
import { buildClient } from './clients.js';
import { itemProducts, referencedClient } from './references.js';

type PaymentLinkCreate = components['schemas']['PaymentLinkCreate'];
type PaymentLinkResponse = components['schemas']['PaymentLinkResponse'];
type Charge = components['schemas']['Charge'];

/** D28: a charge can be paid for 60 minutes. */
const CHARGE_LIFETIME_MS = 60 * 60 * 1000;

export const chargeOperations: ResourceOperations = (deps) => [
  defineOperation('createPaymentLink', async ({ body, company, c }) => {
    const key = idempotencyKey(c.req.header('idempotency-key'));
    if (!key) return respond(await createCharge(deps, company, body));

    const now = deps.now();
    const claim = await deps.store.claimIdempotencyKey({
      companyId: company.doc.id,
      key,
      fingerprint: fingerprint(c, body),
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + deps.config.idempotencyLeaseSeconds * 1000).toISOString(),
      expiresAt: new Date(now.getTime() + deps.config.idempotencyTtlSeconds * 1000).toISOString(),
    });
    switch (claim.kind) {
      case 'replay': {
        // Only successes are stored (D10), and a payment link's one success is 201.
        if (claim.status !== 201) throw new Error(`a stored answer with status ${claim.status}`);
        const stored = asSerialised<PaymentLinkResponse>(claim.body);
        // A replay is rare: its stored body is parsed for the Location header.
        return respond({ body: stored, id: parseSerialised(stored).data.id }, true);
      }
      case 'in-flight':
        throw new ProblemError('idempotencyInProgress', 'A request with this Idempotency-Key is still being processed; retry after it has finished.');
      case 'mismatch':
        throw new ProblemError('idempotencyKeyReused', 'This Idempotency-Key was already used with a different request body; use a new key for a new request.');
      case 'claimed':
        try {
          return respond(await createCharge(deps, company, body, key));
        } catch (error) {
          // Only successes are remembered (D10): after a failure the key is free again.
          await deps.store.releaseIdempotencyKey(company.doc.id, key);
          throw error;
        }
    }
  }),

  defineOperation('simulatePayment', async ({ params: { id }, body, company }) => {
    // D39: `settle` is the deprecated form of `until` (the contract refuses both together).
    const until = body?.until ?? (body?.settle === false ? 'PAID' : 'RECEIVED');
    const charge = await simulatePayment(deps, company.doc.id, id, { until, skipProcessing: body?.skipProcessing ?? false });
    return { status: 200, body: { status: 200, message: 'Charge updated', data: charge } };
  }),

  defineOperation('simulateExpiration', async ({ params: { id }, company }) => {
    const charge = await simulateExpiration(deps, company.doc.id, id);
    return { status: 200, body: { status: 200, message: 'Charge updated', data: charge } };
  }),

  defineOperation('getCharge', async ({ params: { id }, company }) => {
    const companyId = company.doc.id;
    const stored = await deps.store.getChargeJson(companyId, id);
    if (stored === undefined) throw notFound('charge', id);
    // The stored JSON is sent as it is; only a charge seen for the first time is parsed, to add its image.
    const data = chargeJsonHasImage(stored) ? asSerialised<Charge>(stored) : serialise(await withImage(deps.store, companyId, JSON.parse(stored) as StoredCharge));
    return { status: 200, body: envelopeJson(200, 'Charge found', data) };
  }),
];

/** The key as the IETF draft sends it (a quoted structured-field string) or bare. */
function idempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const trimmed = header.trim();
  return /^".*"$/.test(trimmed) ? trimmed.slice(1, -1) : trimmed;
}

/** What "the same request" means for a key: the same operation and the same body, field order aside. */
function fingerprint(c: Context<AppEnv>, body: unknown): string {
  return createHash('sha256').update(`${c.req.method} ${c.req.path}\n${canonicalJson(body)}`).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

type Created = { body: Serialised<PaymentLinkResponse>; id: string };

function respond(result: Created, replayed = false): Answer<'createPaymentLink'> {
  return { status: 201, body: result.body, headers: { Location: `/charge/${result.id}`, ...(replayed ? { 'Idempotent-Replayed': 'true' } : {}) } };
}

async function createCharge(deps: Deps, company: CompanyRecord, body: PaymentLinkCreate, key?: string): Promise<Created> {
  const companyId = company.doc.id;
  const now = deps.now();

  let customer: ChargeDoc['customer'];
  let newClient: ClientDoc | undefined;
  const requested = body.items ?? [];
  const { products, errors } = await itemProducts(deps, companyId, requested);
  if (body.customerId !== undefined) {
    const { client, errors: clientErrors } = await referencedClient(deps, companyId, body.customerId, '/customerId');
    if (client) customer = { name: client.name, taxId: client.taxId, email: client.email, phone: client.phone };
    errors.unshift(...clientErrors);
  } else if (body.customer) {
    newClient = buildClient(companyId, body.customer, now);
    customer = { name: newClient.name, taxId: newClient.taxId, email: newClient.email, phone: newClient.phone };
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
  const validCents = deps.validator.at('/components/schemas/Cents');
  if (body.total === undefined && !validCents(total)) {
    const broken = toFieldErrors(validCents.errors ?? [])[0];
    throw validationProblem([
      { pointer: '/items', detail: `the total computed from the items is ${total} cents; it ${broken?.detail ?? 'is out of range'}`, keyword: broken?.keyword ?? 'total' },
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
  const text = serialise(response);
  const stored: StoredResponse | undefined = key ? { companyId, key, status: 201, body: text } : undefined;
  // D15: a new charge emits charge.pending, in the transaction that stores it.
  await deps.store.insertCharge(charge, companyId, { ...(newClient ? { newClient } : {}), ...(stored ? { response: stored } : {}), events: [chargeEvent(charge, now)] });
  return { body: text, id };
}

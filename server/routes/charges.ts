import { createHash } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { components } from '../../generated/openapi.js';
import { toFieldErrors } from '../../lib/contract/ajv.js';
import { buildBrCode } from '../../lib/pix/brcode.js';
import type { RouteFactory } from '../app.js';
import type { AppEnv, Deps } from '../deps.js';
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
type ChargeResponse = components['schemas']['ChargeResponse'];
type SimulatePayment = components['schemas']['SimulatePayment'];

/** D28: a charge can be paid for 60 minutes. */
const CHARGE_LIFETIME_MS = 60 * 60 * 1000;

export const chargeRoutes: RouteFactory = (deps, operation) => {
  const routes = new Hono<AppEnv>();

  routes.post('/payment-link', operation('createPaymentLink'), async (c) => {
    const company = c.get('company');
    const body = c.get('body') as PaymentLinkCreate;
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
      case 'replay':
        // A replay is rare: its stored body is parsed for the Location header.
        return respond({ status: claim.status, body: claim.body, id: (JSON.parse(claim.body) as PaymentLinkResponse).data.id }, true);
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
  });

  routes.post('/:id/simulate-payment', operation('simulatePayment'), async (c) => {
    const body = c.get('body') as SimulatePayment | undefined;
    // D39: `settle` is the deprecated form of `until` (the contract refuses both together).
    const until = body?.until ?? (body?.settle === false ? 'PAID' : 'RECEIVED');
    const charge = await simulatePayment(deps, c.get('company').doc.id, c.req.param('id'), { until, skipProcessing: body?.skipProcessing ?? false });
    return c.json({ status: 200, message: 'Charge updated', data: charge } satisfies ChargeResponse, 200);
  });

  routes.post('/:id/simulate-expiration', operation('simulateExpiration'), async (c) => {
    const charge = await simulateExpiration(deps, c.get('company').doc.id, c.req.param('id'));
    return c.json({ status: 200, message: 'Charge updated', data: charge } satisfies ChargeResponse, 200);
  });

  routes.get('/:id', operation('getCharge'), async (c) => {
    const id = c.req.param('id');
    const companyId = c.get('company').doc.id;
    const stored = await deps.store.getChargeJson(companyId, id);
    if (stored === undefined) throw notFound('charge', id);
    // The stored JSON is sent as it is; only a charge seen for the first time is parsed, to add its image.
    const data = chargeJsonHasImage(stored) ? stored : JSON.stringify(await withImage(deps.store, companyId, JSON.parse(stored) as StoredCharge));
    return c.body(envelopeJson(200, 'Charge found', data), 200, { 'Content-Type': 'application/json' });
  });

  return routes;
};

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

function respond(result: { status: number; body: string; id: string }, replayed = false): Response {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Location: `/charge/${result.id}` };
  if (replayed) headers['Idempotent-Replayed'] = 'true';
  return new Response(result.body, { status: result.status, headers });
}

async function createCharge(deps: Deps, company: CompanyRecord, body: PaymentLinkCreate, key?: string): Promise<{ status: number; body: string; id: string }> {
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
  const text = JSON.stringify(response);
  const stored: StoredResponse | undefined = key ? { companyId, key, status: 201, body: text } : undefined;
  // D15: a new charge emits charge.pending, in the transaction that stores it.
  await deps.store.insertCharge(charge, companyId, { ...(newClient ? { newClient } : {}), ...(stored ? { response: stored } : {}), events: [chargeEvent(charge, now)] });
  return { status: 201, body: text, id };
}

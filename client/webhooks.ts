/**
 * Verification of the service's webhook deliveries (Standard Webhooks, D14) through the
 * `standardwebhooks` library: the signature over id, timestamp and the exact body, and a recent
 * timestamp. What it returns is typed as the contract's webhook payload.
 */
import { Webhook } from 'standardwebhooks';
import type { webhooks } from '../generated/openapi.js';

/** The contract's `chargeEvent` payload as the contract types it: `type` and `data` independent. */
type ChargeEventPayload = webhooks['chargeEvent']['post']['requestBody']['content']['application/json'];
type Charge = ChargeEventPayload['data'];
/** The event types (`charge.paid`, …). */
export type WebhookEventType = ChargeEventPayload['type'];

/** The charge's `paymentStatus` an event of `type` carries: the value of the same name (D15: `charge.paid` when it becomes `PAID`). */
type PaymentStatusOf<T extends WebhookEventType> = Extract<Charge['paymentStatus'], Uppercase<T extends `charge.${infer Status}` ? Status : never>>;
/** The charge's `status` that follows its `paymentStatus` (D05: `OPEN` while `PENDING` or `PROCESSING`, `PAID` once `PAID` or `RECEIVED`, `EXPIRED`). */
type StatusOf<P extends Charge['paymentStatus']> = Extract<
  Charge['status'],
  P extends 'PENDING' | 'PROCESSING' ? 'OPEN' : P extends 'PAID' | 'RECEIVED' ? 'PAID' : 'EXPIRED'
>;

/**
 * What the service POSTs to a webhook endpoint (the contract's `chargeEvent` webhook), one
 * member per event type: checking `type` narrows `data.paymentStatus` and `data.status`
 * (`if (event.type === 'charge.paid')` gives a charge whose `paymentStatus` is `'PAID'`).
 */
export type WebhookEvent = {
  [T in WebhookEventType]: Omit<ChargeEventPayload, 'type' | 'data'> & {
    type: T;
    data: Omit<Charge, 'paymentStatus' | 'status'> & { paymentStatus: PaymentStatusOf<T>; status: StatusOf<PaymentStatusOf<T>> };
  };
}[WebhookEventType];

/** A delivery that is not from the service, was changed on the way, or is stale. */
export class WebhookVerificationFailed extends Error {
  override readonly name = 'WebhookVerificationFailed';
}

/** Headers as fetch (`Headers`) or Node's `http` (`req.headers`) hold them. */
export type WebhookHeaders = Headers | Record<string, string | readonly string[] | undefined>;

const signedHeaders = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function pick(headers: WebhookHeaders): Record<string, string> {
  const picked: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = headers instanceof Headers ? headers.get(name) : (headers[name] ?? Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1]);
    const text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(' ') : undefined;
    if (text === undefined)
      throw new WebhookVerificationFailed(`webhook delivery has no ${name} header: it was not sent by the service, or a proxy dropped the header`);
    picked[name] = text;
  }
  return picked;
}

/**
 * The event of a delivery, once its signature is checked with the registration's `whsec_…`
 * secret. `rawBody` must be the bytes as received: a body parsed and serialised again no longer
 * matches its signature. Throws `WebhookVerificationFailed` saying why otherwise.
 */
export function verifyWebhook(secret: string, headers: WebhookHeaders, rawBody: string | Uint8Array): WebhookEvent {
  if (!secret.startsWith('whsec_'))
    throw new WebhookVerificationFailed('the webhook secret must be the whsec_… value the service answered when the webhook was registered');
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  let verified: unknown;
  try {
    verified = new Webhook(secret).verify(body, pick(headers));
  } catch (error) {
    if (error instanceof WebhookVerificationFailed) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    // A signature that matches nothing is, in practice, a delivery of another registration: each
    // has its own secret, and a registration left behind to the same URL sends here too.
    const hint = /signature/i.test(reason)
      ? ': it is not signed with this secret. Each webhook registration has its own whsec_… secret, so it may be signed for another registration to this URL (GET /webhook lists them; DELETE /webhook/{id} removes one no longer used), or its body changed on the way (pass the body exactly as received, unparsed)'
      : '';
    throw new WebhookVerificationFailed(`webhook delivery failed verification (${reason})${hint}`, { cause: error });
  }
  if (typeof verified !== 'object' || verified === null) throw new WebhookVerificationFailed('webhook delivery is signed but its body is not a JSON object');
  return verified as WebhookEvent;
}

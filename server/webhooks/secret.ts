import { randomBytes } from 'node:crypto';

/** Length of a signing secret's random part (D40). */
export const webhookSecretBytes = 32;

/**
 * A new signing secret of a webhook registration (D14, D40): `whsec_` and 32 random bytes in
 * base64, the Standard Webhooks form. It is shown once, in the answer to `POST /webhook`, and
 * kept only in the store; never log it.
 */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(webhookSecretBytes).toString('base64')}`;
}

import type { ConformanceOptions } from '../engine/types.js';

/**
 * The default host of the webhooks a run registers: under `.invalid`, which never resolves
 * (RFC 6761 §6.4), so a deployment (production included, D40 judges names without resolving
 * them) accepts the registration and its deliveries reach no one.
 */
export const UNROUTABLE_WEBHOOK_HOST = 'webhooks.conformance.invalid';

/** Where the webhooks of this run point: the user's `--webhook-url`, else the unroutable host, the run id as path. */
export function runWebhookUrl(options: Pick<ConformanceOptions, 'webhookUrl'>, runId: string): string {
  return options.webhookUrl ?? `https://${UNROUTABLE_WEBHOOK_HOST}/${runId}`;
}

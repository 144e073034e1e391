import type { ConformanceOptions } from '../engine/types.js';

/**
 * The default host of the webhooks a run registers: under `.invalid`, which never resolves
 * (RFC 6761 §6.4), so its deliveries reach no one; the reference deployment (production
 * included) registers `.invalid` names without a lookup (D40), though it refuses other names
 * that do not resolve.
 */
export const UNROUTABLE_WEBHOOK_HOST = 'webhooks.conformance.invalid';

/** Where the webhooks of this run point: the user's `--webhook-url`, else the unroutable host, the run id as path. */
export function runWebhookUrl(options: Pick<ConformanceOptions, 'webhookUrl'>, runId: string): string {
  return options.webhookUrl ?? `https://${UNROUTABLE_WEBHOOK_HOST}/${runId}`;
}

/**
 * A typed client of the Pix payment interface, for integrators: `import { createPixClient,
 * verifyWebhook } from 'pix-payments-toolkit/client'`. Bodies, answers and problems are typed by
 * the contract (generated/openapi.d.ts); each base URL's client has only its own operations.
 */
import type { components } from '../generated/openapi.js';

export { createPixClient, type PixClient, type PixClientOptions } from './create.js';
export type { RetryOptions } from './retry.js';
export type { OperationId, ServedPaths, ServerName } from './served-paths.js';
export { verifyWebhook, WebhookVerificationFailed, type WebhookEvent, type WebhookEventType, type WebhookHeaders } from './webhooks.js';
export type { components, operations, paths, webhooks } from '../generated/openapi.js';

/** An RFC 9457 problem, the body of every error answer. */
export type Problem = components['schemas']['Problem'];
/** The contract's schemas by name, e.g. `Schemas['Charge']`. */
export type Schemas = components['schemas'];

/**
 * Type tests of `defineOperation`, checked by `npm run typecheck` (never run): every line under
 * `@ts-expect-error` must fail to compile, or the compile fails with "unused directive". They show
 * that the compiler, not a reviewer, catches a handler that is off its operation's contract.
 */
import type { components } from '../../generated/openapi.js';
import { defineOperation, serialise } from './define-operation.js';

declare const product: components['schemas']['Product'];
declare const webhook: components['schemas']['Webhook'];

// What the contract documents compiles: a 201 with a Product, a 204 without a body, a serialised Charge envelope.
defineOperation('createProduct', async ({ body }) => ({ status: 201, body: { ...product, name: body.name } }));
defineOperation('deleteWebhook', async ({ params: { id } }) => ({ status: 204, headers: { 'X-Deleted': id } }));
defineOperation('getCharge', async () => ({
  status: 200,
  body: serialise({ status: 200, message: 'Charge found', data: {} as components['schemas']['Charge'] }),
}));

// @ts-expect-error a status the operation does not document as a success (createProduct answers 201)
defineOperation('createProduct', async () => ({ status: 200, body: product }));
// @ts-expect-error an answer without a field the contract requires (`name`)
defineOperation('createProduct', async () => ({ status: 201, body: { ...product, name: undefined } }));
// @ts-expect-error an answer of another operation's shape (a Webhook for a Product)
defineOperation('createProduct', async () => ({ status: 201, body: webhook }));
// @ts-expect-error a body where the contract documents none (204)
defineOperation('deleteWebhook', async () => ({ status: 204, body: {} }));
// @ts-expect-error serialised text of something other than the documented answer
defineOperation('getCharge', async () => ({ status: 200, body: serialise({ status: 200, message: 'Charge found', data: product }) }));
// @ts-expect-error a request field the operation's body does not have
defineOperation('createProduct', async ({ body }) => ({ status: 201, body: { ...product, name: body.title } }));
// @ts-expect-error a path parameter the operation does not have
defineOperation('getWebhook', async ({ params }) => ({ status: 200, body: { ...webhook, id: params.webhookId } }));
// @ts-expect-error an operationId the contract does not have
defineOperation('getInvoice', async () => ({ status: 200, body: product }));

import type { components } from '../../generated/openapi.js';
import type { Deps } from '../deps.js';
import { defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { newId } from '../domain/ids.js';
import { notFound, ProblemError, validationProblem } from '../http/problems.js';
import { listBound } from '../http/list-bound.js';
import type { WebhookDoc } from '../store/types.js';
import { newWebhookSecret } from '../webhooks/secret.js';
import { systemResolver, webhookUrlError } from '../webhooks/url-policy.js';

type WebhookWithSecret = components['schemas']['WebhookWithSecret'];

/** A URL the deployment does not send events to (its spelling, or any address its host resolves to) is a 422 on `/url` (D40). */
async function urlMustBeAllowed(deps: Deps, url: string): Promise<void> {
  const policy = { mode: deps.config.mode, allowedNetworks: deps.config.webhookAllowedNetworks };
  const error = await webhookUrlError(url, policy, deps.resolveHost ?? systemResolver);
  if (error) throw validationProblem([error]);
}

/**
 * Webhook registrations (D40) and their delivery attempts (D41). Every operation is scoped to
 * the caller's company: another company's registration is 404 like an unknown one (D27). The
 * signing secret leaves the server once, in the answer to `POST /webhook`.
 */
export const webhookOperations: ResourceOperations = (deps) => {
  // How many registrations a company may have and how many attempts a list shows: the contract's
  // bounds on the two lists (D49).
  const bounds = {
    webhooks: listBound(deps, 'listWebhooks'),
    deliveries: listBound(deps, 'listWebhookDeliveries'),
  };
  return [
    defineOperation('createWebhook', async ({ body, company }) => {
      await urlMustBeAllowed(deps, body.url);
      const at = deps.now().toISOString();
      const webhook: WebhookDoc = {
        id: newId('webhook'),
        url: body.url,
        name: body.name,
        companyId: company.doc.id,
        status: 'ACTIVE',
        events: body.events,
        createdAt: at,
        updatedAt: at,
      };
      const secret = newWebhookSecret();
      if (!(await deps.store.insertWebhook(webhook, secret, bounds.webhooks))) {
        throw new ProblemError(
          'webhookLimitReached',
          `This company already has ${bounds.webhooks} webhook registrations, the most allowed; delete one you no longer use (DELETE /webhook/{id}; GET /webhook lists them) and register again.`,
        );
      }
      const created: WebhookWithSecret = { ...webhook, secret };
      return { status: 201, body: created };
    }),

    defineOperation('listWebhooks', async ({ company }) => ({ status: 200, body: await deps.store.listWebhooks(company.doc.id) })),

    defineOperation('getWebhook', async ({ params: { id }, company }) => {
      const webhook = await deps.store.getWebhook(company.doc.id, id);
      if (!webhook) throw notFound('webhook', id);
      return { status: 200, body: webhook };
    }),

    defineOperation('updateWebhook', async ({ params: { id }, body, company }) => {
      const companyId = company.doc.id;
      const current = await deps.store.getWebhook(companyId, id);
      if (!current) throw notFound('webhook', id);
      if (body.url !== undefined) await urlMustBeAllowed(deps, body.url);
      // Only the fields sent change (D40); the schema allows no others.
      const next: WebhookDoc = {
        ...current,
        ...(body.status !== undefined ? { status: body.status } : {}),
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.url !== undefined ? { url: body.url } : {}),
        ...(body.events !== undefined ? { events: body.events } : {}),
        updatedAt: deps.now().toISOString(),
      };
      await deps.store.replaceWebhook(companyId, next);
      return { status: 200, body: next };
    }),

    defineOperation('deleteWebhook', async ({ params: { id }, company }) => {
      if (!(await deps.store.deleteWebhook(company.doc.id, id))) throw notFound('webhook', id);
      return { status: 204 };
    }),

    defineOperation('listWebhookDeliveries', async ({ params: { id }, company }) => {
      const companyId = company.doc.id;
      if (!(await deps.store.getWebhook(companyId, id))) throw notFound('webhook', id);
      return { status: 200, body: await deps.store.listDeliveryAttempts(companyId, id, bounds.deliveries) };
    }),
  ];
};

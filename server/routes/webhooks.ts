import { Hono } from 'hono';
import type { components } from '../../generated/openapi.js';
import type { RouteFactory } from '../app.js';
import type { AppEnv, Deps } from '../deps.js';
import { newId } from '../domain/ids.js';
import { notFound, validationProblem } from '../http/problems.js';
import type { WebhookDoc } from '../store/types.js';
import { newWebhookSecret } from '../webhooks/secret.js';
import { webhookUrlError } from '../webhooks/url-policy.js';

type WebhookCreate = components['schemas']['WebhookCreate'];
type WebhookUpdate = components['schemas']['WebhookUpdate'];
type WebhookWithSecret = components['schemas']['WebhookWithSecret'];

/** A URL the deployment does not send events to is a 422 on `/url` (D40). */
function urlMustBeAllowed(deps: Deps, url: string): void {
  const error = webhookUrlError(url, deps.config.mode);
  if (error) throw validationProblem([error]);
}

/**
 * Webhook registrations (D40) and their delivery attempts (D41). Every operation is scoped to
 * the caller's company: another company's registration is 404 like an unknown one (D27). The
 * signing secret leaves the server once, in the answer to `POST /webhook`.
 */
export const webhookRoutes: RouteFactory = (deps, operation) => {
  const routes = new Hono<AppEnv>();

  routes.post('/', operation('createWebhook'), async (c) => {
    const body = c.get('body') as WebhookCreate;
    urlMustBeAllowed(deps, body.url);
    const at = deps.now().toISOString();
    const webhook: WebhookDoc = {
      id: newId('webhook'),
      url: body.url,
      name: body.name,
      companyId: c.get('company').doc.id,
      status: 'ACTIVE',
      events: body.events,
      createdAt: at,
      updatedAt: at,
    };
    const secret = newWebhookSecret();
    await deps.store.insertWebhook(webhook, secret);
    const created: WebhookWithSecret = { ...webhook, secret };
    return c.json(created, 201);
  });

  routes.get('/', operation('listWebhooks'), async (c) => {
    return c.json(await deps.store.listWebhooks(c.get('company').doc.id), 200);
  });

  routes.get('/:id', operation('getWebhook'), async (c) => {
    const id = c.req.param('id');
    const webhook = await deps.store.getWebhook(c.get('company').doc.id, id);
    if (!webhook) throw notFound('webhook', id);
    return c.json(webhook, 200);
  });

  routes.patch('/:id', operation('updateWebhook'), async (c) => {
    const id = c.req.param('id');
    const body = c.get('body') as WebhookUpdate;
    const companyId = c.get('company').doc.id;
    const current = await deps.store.getWebhook(companyId, id);
    if (!current) throw notFound('webhook', id);
    if (body.url !== undefined) urlMustBeAllowed(deps, body.url);
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
    return c.json(next, 200);
  });

  routes.delete('/:id', operation('deleteWebhook'), async (c) => {
    const id = c.req.param('id');
    if (!(await deps.store.deleteWebhook(c.get('company').doc.id, id))) throw notFound('webhook', id);
    return c.body(null, 204);
  });

  routes.get('/:id/deliveries', operation('listWebhookDeliveries'), async (c) => {
    const id = c.req.param('id');
    const companyId = c.get('company').doc.id;
    if (!(await deps.store.getWebhook(companyId, id))) throw notFound('webhook', id);
    return c.json(await deps.store.listDeliveryAttempts(companyId, id), 200);
  });

  return routes;
};

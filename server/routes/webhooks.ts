import { Hono } from 'hono';
import type { RouteFactory } from '../app.js';
import type { AppEnv } from '../deps.js';
import { notFound } from '../http/problems.js';

export const webhookRoutes: RouteFactory = (deps, operation) => {
  const routes = new Hono<AppEnv>();

  routes.get('/:id', operation('getWebhook'), async (c) => {
    const id = c.req.param('id');
    const webhook = await deps.store.getWebhook(c.get('company').doc.id, id);
    if (!webhook) throw notFound('webhook', id);
    return c.json(webhook, 200);
  });

  return routes;
};

/**
 * A small shop on the Pix payment interface, with the typed client and no framework. It sells one
 * product: `POST /orders` makes an order and a development payment link for it; the service
 * calls `POST /webhooks/pix` when the charge is paid, and the order is marked paid. Orders live
 * in memory: a real shop keeps them in its database, with the webhook secret.
 *
 * In your own project the import is `from 'pix-payments-toolkit/client'`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createPixClient, verifyWebhook, WebhookVerificationFailed, type Problem, type WebhookEvent } from '../../client/index.js';

export interface ShopOptions {
  baseUrl: string;
  baseUrlAlt: string;
  apiKey: string;
  /** Port to listen on (0: any free one). */
  port: number;
  /** Where the service reaches this shop (default http://127.0.0.1:<port>). */
  publicUrl?: string;
}

export interface Order {
  id: string;
  quantity: number;
  status: 'AWAITING_PAYMENT' | 'PAID';
  chargeId: string;
  payUrl: string;
}

export interface RunningShop {
  url: string;
  orders: ReadonlyMap<string, Order>;
  close: () => Promise<void>;
}

/** An error answer of the service, as one line: its title, detail and what it was about. */
function failed(what: string, problem: Problem): Error {
  return new Error(`${what}: ${problem.status} ${problem.title}: ${problem.detail}`);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

export async function startShop(options: ShopOptions): Promise<RunningShop> {
  const pix = createPixClient({ baseUrl: options.baseUrl, baseUrlAlt: options.baseUrlAlt, apiKey: options.apiKey });
  const orders = new Map<string, Order>();
  // Deliveries are at least once: each webhook-id is processed once.
  const seen = new Set<string>();

  // The one product the shop sells ({base_url_alt}).
  const product = await pix.alt.POST('/product', {
    body: { name: 'Café especial 250 g', description: 'Grãos torrados do Cerrado Mineiro', price: 39.9, sku: 'CAFE-250', displayId: 'cafe-250' },
  });
  if (product.error) throw failed('creating the product', product.error);
  const productId = product.data.id;

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error(`shop: ${req.method} ${req.url} failed: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) json(res, 502, { error: 'the payment service could not be reached' });
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  const url = options.publicUrl ?? `http://127.0.0.1:${port}`;

  // Where the service sends charge.paid ({base_url}); the secret is answered only this once.
  const webhook = await pix.base.POST('/webhook', { body: { url: `${url}/webhooks/pix`, name: 'Shop', events: ['charge.paid'] } });
  if (webhook.error) {
    server.close();
    throw failed('registering the webhook', webhook.error);
  }
  const secret = webhook.data.secret;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', url).pathname;

    if (req.method === 'POST' && path === '/orders') {
      const { quantity = 1 } = JSON.parse((await readBody(req)).toString('utf8') || '{}') as { quantity?: number };
      const id = `order_${randomUUID()}`;
      // devMode: a sandbox charge, which moves no money. The client sends an Idempotency-Key and
      // retries safely, so a network blip does not make two charges for one order.
      const link = await pix.base.POST('/charge/payment-link', {
        body: { items: [{ productId, quantity }], devMode: true, externalId: id },
      });
      if (link.error) return json(res, 502, { error: failed('creating the payment link', link.error).message });
      const order: Order = { id, quantity, status: 'AWAITING_PAYMENT', chargeId: link.data.data.id, payUrl: link.data.data.url };
      orders.set(id, order);
      return json(res, 201, order);
    }

    const orderId = /^\/orders\/([^/]+)$/.exec(path)?.[1];
    if (req.method === 'GET' && orderId !== undefined) {
      const order = orders.get(orderId);
      return order ? json(res, 200, order) : json(res, 404, { error: `no order ${orderId}` });
    }

    if (req.method === 'POST' && path === '/webhooks/pix') {
      let event: WebhookEvent;
      try {
        event = verifyWebhook(secret, req.headers, await readBody(req));
      } catch (error) {
        if (!(error instanceof WebhookVerificationFailed)) throw error;
        console.warn(`shop: refused a webhook delivery: ${error.message}`);
        return json(res, 400, { error: 'invalid signature' });
      }
      const deliveryId = String(req.headers['webhook-id']);
      if (!seen.has(deliveryId)) {
        seen.add(deliveryId);
        const order = event.data.externalId === undefined ? undefined : orders.get(event.data.externalId);
        if (event.type === 'charge.paid' && order?.chargeId === event.data.id) order.status = 'PAID';
      }
      res.writeHead(204).end();
      return;
    }

    json(res, 404, { error: 'not found' });
  }

  return {
    url,
    orders,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

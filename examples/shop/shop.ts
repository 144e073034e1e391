/**
 * A small shop on the Pix payment interface, with the typed client and no framework. It sells one
 * product: `POST /orders` makes an order and a development payment link for it; the service
 * calls `POST /webhooks/pix` when the charge is paid, and the order is marked paid. Orders live
 * in memory: a real shop keeps them in its database, with the webhook secret. Its webhook
 * registration lives as long as it does: made at start (replacing one an earlier start left to
 * the same URL), deleted by `close`.
 *
 * It imports the client by the package's name, as your project does (in this repository,
 * tsconfig.json's `paths` and vitest.config.ts name the client's source).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createPixClient, verifyWebhook, WebhookVerificationFailed, type Problem, type WebhookEvent } from 'pix-payments-toolkit/client';

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
  /** The shop's webhook registration (the service's `wbhk_…` id), deleted by `close`. */
  webhookId: string;
  orders: ReadonlyMap<string, Order>;
  /** Stops the shop and deletes its webhook registration. */
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

  // Where the service sends charge.paid ({base_url}); the secret is answered only this once, so a
  // registration cannot be reused by a new start: one that an earlier start left to this URL (it
  // stopped without closing) is deleted, or its events would arrive signed with a secret this
  // start does not have.
  const hookUrl = `${url}/webhooks/pix`;
  try {
    for (const id of await registrationsTo(hookUrl)) await pix.base.DELETE('/webhook/{id}', { params: { path: { id } } });
  } catch (error) {
    server.close();
    throw error;
  }
  const webhook = await pix.base.POST('/webhook', { body: { url: hookUrl, name: 'Shop', events: ['charge.paid'] } });
  if (webhook.error) {
    server.close();
    throw failed('registering the webhook', webhook.error);
  }
  const { id: webhookId, secret } = webhook.data;

  /** The company's registrations that send to `target`, by id. */
  async function registrationsTo(target: string): Promise<string[]> {
    const listed = await pix.base.GET('/webhook');
    if (listed.error) throw failed('listing the webhook registrations', listed.error);
    return listed.data.filter((registration) => registration.url === target).map((registration) => registration.id);
  }

  /**
   * Why a delivery failed verification, in terms of what this shop knows: its own registration,
   * the others that send to its URL, and whether the charge the delivery names is one of its orders'.
   */
  async function refusalOf(error: WebhookVerificationFailed, body: Buffer): Promise<string> {
    let chargeId: string | undefined;
    try {
      chargeId = (JSON.parse(body.toString('utf8')) as { data?: { id?: string } }).data?.id;
    } catch {
      // Not JSON: said as such below.
    }
    const ours = chargeId !== undefined && [...orders.values()].some((order) => order.chargeId === chargeId);
    const about = chargeId === undefined ? 'a body that names no charge' : `charge ${chargeId}, ${ours ? '' : 'not '}one of this shop's orders`;
    const others = (await registrationsTo(hookUrl).catch(() => [])).filter((id) => id !== webhookId);
    const why =
      others.length > 0
        ? `it is most likely signed for another registration that sends to ${hookUrl} (${others.join(', ')}): ` +
          'delete it with DELETE /webhook/{id} if nothing uses it'
        : `no other registration of the company sends to ${hookUrl}, so it was not signed by the service for this URL (a forged delivery, or one changed on the way)`;
    return `refused a webhook delivery about ${about}: it is not signed with the secret of this shop's registration ${webhookId}; ${why}. (${error.message})`;
  }

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
      const body = await readBody(req);
      try {
        event = verifyWebhook(secret, req.headers, body);
      } catch (error) {
        if (!(error instanceof WebhookVerificationFailed)) throw error;
        json(res, 400, { error: 'invalid signature' });
        console.warn(`shop: ${await refusalOf(error, body)}`);
        return;
      }
      const deliveryId = String(req.headers['webhook-id']);
      if (!seen.has(deliveryId)) {
        seen.add(deliveryId);
        const order = event.data.externalId === undefined ? undefined : orders.get(event.data.externalId);
        if (event.type === 'charge.paid' && order?.chargeId === event.data.id && order.status !== 'PAID') {
          order.status = 'PAID';
          console.log(`shop: order ${order.id} is paid (charge ${order.chargeId}, ${event.data.total} cents)`);
        }
      }
      res.writeHead(204).end();
      return;
    }

    json(res, 404, { error: 'not found' });
  }

  return {
    url,
    webhookId,
    orders,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      // What the shop registered goes with it: left behind, it would be retried for hours.
      const deleted = await pix.base.DELETE('/webhook/{id}', { params: { path: { id: webhookId } } });
      if (deleted.error && deleted.response.status !== 404) throw failed('deleting the webhook registration', deleted.error);
    },
  };
}

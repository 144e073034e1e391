/**
 * What an integrator sees of the sandbox and of the seed's optional fields, through the compiled
 * server (`npm start`'s dist/server/main.mjs) over HTTP, with a webhook receiver on a real socket:
 * a charge stopped at PROCESSING (the seed's own sample state) stays there for reads, for the
 * payment page and for the event stream until the next call moves it (D39); product pictures,
 * delivery and INACTIVE records as D44 and D45 say.
 */
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { processed, startReceiver, waitFor } from '../test-support/webhook-receiver.js';
import { freePort, listening, startBuiltServer, useChildProcesses, WAIT_MS, printedKey } from '../test-support/processes.js';

type Charge = components['schemas']['Charge'];

const folder = useChildProcesses('pix-charge-states-');

describe('the compiled server, as an integrator drives it', () => {
  test('a charge stopped at PROCESSING is read, shown and announced as OPEN/PROCESSING, and a later call pays it (D39); D44 fields; D45 refusals', {
    timeout: 90_000,
  }, async () => {
    const port = await freePort();
    const receiverPort = await freePort();
    const running = startBuiltServer({ DATABASE_PATH: join(folder(), 'states', 'payments.db'), PORT: String(port), WEBHOOK_POLL_MS: '50', LOG_LEVEL: 'info' });
    await listening(running);
    const apiKey = printedKey(running);
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ): Promise<{ status: number; text: string; json: any }> => {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method,
        headers: { 'X-API-KEY': apiKey, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(WAIT_MS),
      });
      const text = await response.text();
      return { status: response.status, text, json: response.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : undefined };
    };

    const secrets = new Map<string, string>();
    const receiver = await startReceiver(receiverPort, secrets);
    const events = () => processed(receiver.received, '/hook').map(({ event }) => event);
    try {
      const hook = await call('POST', '/webhook', {
        url: `http://127.0.0.1:${receiverPort}/hook`,
        name: 'Loja',
        events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received', 'charge.expired'],
      });
      expect(hook.status, hook.text).toBe(201);
      secrets.set('/hook', hook.json.secret);

      // D44: a product with a picture and a storefront variant; its picture follows it into the charge.
      const imageUrl = 'https://cafeaurora.example.com/img/cafe-especial.jpg';
      const product = await call('POST', '/product', {
        name: 'Café especial 250 g',
        description: 'Grãos do Cerrado',
        price: 39.9,
        sku: 'CAFE-250',
        displayId: 'cafe-250',
        imageUrl,
        storefrontVariantId: 'gid://shopify/ProductVariant/1',
      });
      expect(product.status, product.text).toBe(201);
      expect(product.json).toMatchObject({ imageUrl, storefrontVariantId: 'gid://shopify/ProductVariant/1' });
      const link = await call('POST', '/charge/payment-link', {
        items: [{ productId: product.json.id, quantity: 2 }],
        devMode: true,
        needShipping: true,
        notifyCustomer: true,
      });
      expect(link.status, link.text).toBe(201);
      const id: string = link.json.data.id;

      // D39: stop at PROCESSING, the seed's sample state.
      const stopped = await call('POST', `/charge/${id}/simulate-payment`, { until: 'PROCESSING' });
      expect(stopped.status, stopped.text).toBe(200);
      await waitFor('charge.pending and charge.processing', () => events().length >= 2);
      await new Promise((resolve) => setTimeout(resolve, 300)); // nothing further arrives on its own
      expect(events().map((e) => [e.type, e.data.status, e.data.paymentStatus])).toEqual([
        ['charge.pending', 'OPEN', 'PENDING'],
        ['charge.processing', 'OPEN', 'PROCESSING'],
      ]);
      const read = await call('GET', `/charge/${id}`);
      expect(read.status).toBe(200);
      const charge = read.json.data as Charge;
      expect([charge.status, charge.paymentStatus, charge.needShipping]).toEqual(['OPEN', 'PROCESSING', true]);
      expect(charge.items[0]?.product.imageUrl).toBe(imageUrl);
      expect((await call('GET', `/pay/${id}/status`, undefined, { 'X-API-KEY': '' })).json).toMatchObject({ status: 'OPEN', paymentStatus: 'PROCESSING' });
      const page = await call('GET', `/pay/${id}`, undefined, { Accept: 'text/html' });
      expect(page.text).toContain('Pagamento em processamento…');
      expect(page.text).toContain('Este pedido será entregue: o endereço de entrega é pedido após o pagamento.');

      // The next call continues from PROCESSING: PAID, not yet settled.
      const paid = await call('POST', `/charge/${id}/simulate-payment`, { until: 'PAID' });
      expect([paid.status, paid.json.data.status, paid.json.data.paymentStatus]).toEqual([200, 'PAID', 'PAID']);
      await waitFor('charge.paid', () => events().length >= 3);
      expect(events().map((e) => e.type)).toEqual(['charge.pending', 'charge.processing', 'charge.paid']);

      // D45: an INACTIVE client cannot be charged.
      const inactive = await call('POST', '/client', {
        name: 'Cliente Inativo',
        status: 'INACTIVE',
        cpfCnpj: '52998224725',
        email: 'inativo@example.com',
        phone: '11987654321',
      });
      expect(inactive.status, inactive.text).toBe(201);
      const refused = await call('POST', '/charge/payment-link', { total: 1000, customerId: inactive.json.id });
      expect(refused.status).toBe(422);
      expect(refused.json.errors).toEqual([expect.objectContaining({ pointer: '/customerId', keyword: 'active' })]);
    } finally {
      await receiver.close();
    }
  });
});

/**
 * The shop example end to end: the compiled reference server in a child process, the shop on a
 * real socket; an order is placed, its charge paid in the sandbox, and the shop marks the order
 * paid when the signed charge.paid delivery arrives. A forged delivery changes nothing.
 */
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { expect, test } from 'vitest';
import { createPixClient } from '../../client/index.js';
import { freePort, listening, printedKey, startBuiltServer, useChildProcesses } from '../../server/test-support/processes.js';
import { waitFor } from '../../server/test-support/webhook-receiver.js';
import { startShop, type Order } from './shop.js';

const folder = useChildProcesses('pix-shop-');

test('an order is paid when charge.paid arrives, verified; a forged delivery is refused', { timeout: 60_000 }, async () => {
  const port = await freePort();
  const server = startBuiltServer({ DATABASE_PATH: join(folder(), 'shop', 'payments.db'), PORT: String(port) });
  await listening(server);
  const base = `http://127.0.0.1:${port}`;
  const apiKey = printedKey(server);
  const shop = await startShop({ baseUrl: base, baseUrlAlt: base, apiKey, port: 0 });
  try {
    const placed = await fetch(`${shop.url}/orders`, { method: 'POST', body: JSON.stringify({ quantity: 2 }) });
    expect(placed.status).toBe(201);
    const order = (await placed.json()) as Order;
    expect(order).toMatchObject({
      quantity: 2,
      status: 'AWAITING_PAYMENT',
      chargeId: expect.stringMatching(/^char_/),
      payUrl: expect.stringMatching(/\/pay\/char_/),
    });

    // A delivery signed with another secret, claiming the charge is paid, is refused.
    const forged = JSON.stringify({
      type: 'charge.paid',
      timestamp: new Date().toISOString(),
      data: { id: order.chargeId, externalId: order.id, status: 'PAID' },
    });
    const now = new Date();
    const forgedAnswer = await fetch(`${shop.url}/webhooks/pix`, {
      method: 'POST',
      body: forged,
      headers: {
        'webhook-id': 'msg_forged',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new Webhook(`whsec_${Buffer.from('not the shop secret, 32 bytes!!!').toString('base64')}`).sign('msg_forged', now, forged),
      },
    });
    expect(forgedAnswer.status).toBe(400);
    expect(shop.orders.get(order.id)?.status).toBe('AWAITING_PAYMENT');

    // The payer pays (the sandbox's simulation); the service tells the shop.
    const pix = createPixClient({ baseUrl: base, baseUrlAlt: base, apiKey });
    const paid = await pix.base.POST('/charge/{id}/simulate-payment', { params: { path: { id: order.chargeId } }, body: { until: 'PAID' } });
    expect(paid.data?.data.status).toBe('PAID');
    await waitFor('the shop to mark the order paid', async () => ((await (await fetch(`${shop.url}/orders/${order.id}`)).json()) as Order).status === 'PAID');

    const deliveries = await pix.base.GET('/webhook');
    const registration = deliveries.data?.find((w) => w.url === `${shop.url}/webhooks/pix`);
    expect(registration?.events).toEqual(['charge.paid']);
    const attempts = await pix.base.GET('/webhook/{id}/deliveries', { params: { path: { id: registration!.id } } });
    expect(attempts.data?.map((a) => [a.eventType, a.status])).toEqual([['charge.paid', 'SUCCEEDED']]);
  } finally {
    await shop.close();
  }
});

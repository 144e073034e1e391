/**
 * The shop example end to end: the compiled reference server in a child process, the shop on a
 * real socket; an order is placed, its charge paid in the sandbox, and the shop marks the order
 * paid when the signed charge.paid delivery arrives. A forged delivery changes nothing, and a
 * delivery of another registration to the shop's URL is refused with what the shop knows of it.
 * Then the shop as its README starts it (`tsx examples/shop/main.ts`), killed and started again,
 * then stopped with Ctrl-C: one registration while it runs, none after.
 */
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { expect, test, vi } from 'vitest';
import { createPixClient } from 'pix-payments-toolkit/client';
import { freePort, listening, printedKey, startBuiltServer, startNode, useChildProcesses, within, type Running } from '../../server/test-support/processes.js';
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
  const warned = vi.spyOn(console, 'warn').mockImplementation(() => {});
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
    await waitFor('the refusal to be said', async () => warned.mock.calls.length === 1);
    expect(warned.mock.calls[0]![0]).toBe(
      `shop: refused a webhook delivery about charge ${order.chargeId}, one of this shop's orders: it is not signed with the secret of this shop's registration ${shop.webhookId}; ` +
        `no other registration of the company sends to ${shop.url}/webhooks/pix, so it was not signed by the service for this URL (a forged delivery, or one changed on the way). ` +
        '(webhook delivery failed verification (No matching signature found): it is not signed with this secret. Each webhook registration has its own whsec_… secret, ' +
        'so it may be signed for another registration to this URL (GET /webhook lists them; DELETE /webhook/{id} removes one no longer used), ' +
        'or its body changed on the way (pass the body exactly as received, unparsed))',
    );

    // Another registration to the shop's URL (left by someone else): its delivery is refused, and the shop names it.
    const pix = createPixClient({ baseUrl: base, baseUrlAlt: base, apiKey });
    const stray = await pix.base.POST('/webhook', { body: { url: `${shop.url}/webhooks/pix`, name: 'Left behind', events: ['charge.paid'] } });
    expect(stray.response.status).toBe(201);

    // The payer pays (the sandbox's simulation); the service tells the shop, through both registrations.
    const paid = await pix.base.POST('/charge/{id}/simulate-payment', { params: { path: { id: order.chargeId } }, body: { until: 'PAID' } });
    expect(paid.data?.data.status).toBe('PAID');
    await waitFor('the shop to mark the order paid', async () => ((await (await fetch(`${shop.url}/orders/${order.id}`)).json()) as Order).status === 'PAID');

    const attempts = await pix.base.GET('/webhook/{id}/deliveries', { params: { path: { id: shop.webhookId } } });
    expect(attempts.data?.map((a) => [a.eventType, a.status])).toEqual([['charge.paid', 'SUCCEEDED']]);
    await waitFor('the stray delivery to be refused', async () => warned.mock.calls.length === 2);
    expect(warned.mock.calls[1]![0]).toMatch(
      new RegExp(
        `^shop: refused a webhook delivery about charge ${order.chargeId}, one of this shop's orders: it is not signed with the secret of this shop's registration ${shop.webhookId}; ` +
          `it is most likely signed for another registration that sends to ${shop.url}/webhooks/pix \\(${stray.data!.id}\\): delete it with DELETE /webhook/\\{id\\} if nothing uses it\\. `,
      ),
    );
    await pix.base.DELETE('/webhook/{id}', { params: { path: { id: stray.data!.id } } });
  } finally {
    await shop.close();
    warned.mockRestore();
  }
  // Closed, the shop leaves no registration behind.
  const left = await createPixClient({ baseUrl: base, baseUrlAlt: base, apiKey }).base.GET('/webhook');
  expect(left.data).toEqual([]);
});

/** The shop as its README starts it, in a process of its own (tsx's loader in the one process, so a signal reaches the shop itself). */
function startShopProcess(vars: Record<string, string>): Running {
  return startNode(['--import', 'tsx', 'examples/shop/main.ts'], vars);
}

async function shopListening(shop: Running): Promise<void> {
  await waitFor('the shop to listen', async () => {
    if (shop.child.exitCode !== null) throw new Error(`the shop exited:\n${shop.stdout()}\n${shop.stderr()}`);
    return shop.stdout().includes('shop: listening on');
  });
}

test('started, killed, started again (and says when an order is paid) and stopped with Ctrl-C, the shop has one registration while it runs and none after', {
  timeout: 90_000,
}, async () => {
  const port = await freePort();
  const server = startBuiltServer({ DATABASE_PATH: join(folder(), 'shop-process', 'payments.db'), PORT: String(port) });
  await listening(server);
  const base = `http://127.0.0.1:${port}`;
  const apiKey = printedKey(server);
  const pix = createPixClient({ baseUrl: base, baseUrlAlt: base, apiKey });
  const registrations = async () => (await pix.base.GET('/webhook')).data!.map((w) => w.url);
  const vars = { PIX_API_KEY: apiKey, PIX_BASE_URL: base, PIX_BASE_URL_ALT: base, SHOP_PORT: String(await freePort()) };
  const hookUrl = `http://127.0.0.1:${vars.SHOP_PORT}/webhooks/pix`;

  const first = startShopProcess(vars);
  await shopListening(first);
  expect(await registrations()).toEqual([hookUrl]);
  // A crash: no clean-up at all.
  first.child.kill('SIGKILL');
  await within(first.exited, 'the killed shop to exit');
  expect(await registrations()).toEqual([hookUrl]);

  const second = startShopProcess(vars);
  await shopListening(second);
  expect(await registrations()).toEqual([hookUrl]);
  // An order paid: the shop says so on its output.
  const placed = await fetch(`http://127.0.0.1:${vars.SHOP_PORT}/orders`, { method: 'POST', body: JSON.stringify({ quantity: 1 }) });
  const order = (await placed.json()) as Order;
  await pix.base.POST('/charge/{id}/simulate-payment', { params: { path: { id: order.chargeId } }, body: { until: 'PAID' } });
  await waitFor('the shop to say the order is paid', async () => second.stdout().includes(`shop: order ${order.id} is paid (charge ${order.chargeId}, `));
  second.child.kill('SIGINT');
  expect(await within(second.exited, 'the shop to stop on Ctrl-C')).toEqual({ code: 0, signal: null });
  expect(await registrations()).toEqual([]);
});

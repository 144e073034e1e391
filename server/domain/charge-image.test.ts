/**
 * The QR image of a charge is rendered the first time the charge leaves the server, once: not at
 * creation, once for many concurrent first reads, and webhook events carry the same image.
 */
import { afterEach, describe, expect, test, vi } from 'vitest';
import { qrTextOfDataUri } from '../../conformance/pix/brcode-check.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { chargeImage, chargeJsonHasImage, eventBodyWithImage } from './charge-image.js';
import { newId } from './ids.js';

let server: TestServer | undefined;
afterEach(async () => {
  expect(server?.violations ?? []).toEqual([]);
  await server?.close();
  server = undefined;
});

async function setUp() {
  server = await createTestServer();
  const renders = vi.spyOn(server.deps.store, 'setChargeImage');
  const { data, response } = await server.api.POST('/charge/payment-link', { body: { total: 2500, devMode: true } });
  expect(response.status).toBe(201);
  return { s: server, renders, id: data!.data.id };
}

describe('the QR image of a charge', () => {
  test('creating a charge does not render it', async () => {
    const { s, renders, id } = await setUp();
    expect(renders).not.toHaveBeenCalled();
    expect((await s.deps.store.getCharge(s.companyId, id))?.brCodeBase64).toBeUndefined();
  });

  test('the first GET renders and stores it; later GETs send the stored one', async () => {
    const { s, renders, id } = await setUp();
    const first = (await s.api.GET('/charge/{id}', { params: { path: { id } } })).data!.data;
    expect(qrTextOfDataUri(first.brCodeBase64)).toEqual({ text: first.brCode });
    expect((await s.deps.store.getCharge(s.companyId, id))?.brCodeBase64).toBe(first.brCodeBase64);
    const again = (await s.api.GET('/charge/{id}', { params: { path: { id } } })).data!.data;
    expect(again).toEqual(first);
    expect(renders).toHaveBeenCalledTimes(1);
  });

  test('concurrent first reads (GETs, the payment page, a simulation) render it once and all show it', async () => {
    const { s, renders, id } = await setUp();
    const [gets, page, paid] = await Promise.all([
      Promise.all(Array.from({ length: 20 }, () => s.api.GET('/charge/{id}', { params: { path: { id } } }))),
      s.app.request(`/pay/${id}`, { headers: { Accept: 'text/html' } }),
      s.api.POST('/charge/{id}/simulate-payment', { params: { path: { id } }, body: {} }),
    ]);
    const images = new Set([...gets.map((g) => g.data!.data.brCodeBase64), paid.data!.data.brCodeBase64]);
    expect(images.size).toBe(1);
    const [image] = images;
    expect(await page.text()).toContain(image);
    expect(renders).toHaveBeenCalledTimes(1);
  });

  test('a charge read before its image was stored elsewhere is not rendered again', async () => {
    const { s, renders, id } = await setUp();
    const before = (await s.deps.store.getCharge(s.companyId, id))!;
    const image = await chargeImage(s.deps.store, s.companyId, before);
    // `before` still has no image: the store is asked again instead of rendering.
    expect(await chargeImage(s.deps.store, s.companyId, before)).toBe(image);
    expect(renders).toHaveBeenCalledTimes(1);
  });

  test('a webhook event written before the image exists is sent with it, the same bytes on every attempt', async () => {
    const { s, renders, id } = await setUp();
    const at = s.deps.now().toISOString();
    await s.deps.store.insertWebhook(
      {
        id: newId('webhook'),
        url: 'https://hooks.example.com/pix',
        name: 'Loja',
        companyId: s.companyId,
        status: 'ACTIVE',
        events: ['charge.processing'],
        createdAt: at,
        updatedAt: at,
      },
      `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
    );
    // The pending event was written at creation; simulate a payment to write processing/paid events too.
    await s.api.POST('/charge/{id}/simulate-payment', { params: { path: { id } }, body: { settle: false } });
    const [due] = await s.deps.store.claimDueDeliveries(new Date(Date.now() + 60_000).toISOString(), new Date(Date.now() + 120_000).toISOString(), 10);
    expect(due?.type).toBe('charge.processing');
    const sent = await eventBodyWithImage(s.deps.store, s.companyId, due!.body);
    const charge = (await s.api.GET('/charge/{id}', { params: { path: { id } } })).data!.data;
    expect((JSON.parse(sent) as { data: { brCodeBase64: string } }).data.brCodeBase64).toBe(charge.brCodeBase64);
    expect(await eventBodyWithImage(s.deps.store, s.companyId, due!.body)).toBe(sent);
    expect(renders).toHaveBeenCalledTimes(1);
  });
});

describe('chargeJsonHasImage', () => {
  test.each<[string, { given: string; want: boolean }]>([
    ['a stored charge with its image', { given: '{"brCode":"000201","brCodeBase64":"data:image/png;base64,AA=="}', want: true }],
    ['a stored charge without it', { given: '{"brCode":"000201","items":[]}', want: false }],
    ['the key only inside a string value (escaped quotes)', { given: JSON.stringify({ brCode: '000201', externalId: '"brCodeBase64":"x"' }), want: false }],
  ])('%s → %s', (_name, { given, want }) => {
    expect(chargeJsonHasImage(given)).toBe(want);
  });
});

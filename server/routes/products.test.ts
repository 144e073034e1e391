/**
 * POST /product: defaults (D32), subscription products, prices as JSON numbers with at most
 * two decimals and more than zero (D17, D25), required and unknown fields (D22, D24).
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { expectValidation, idPatterns, productBody, sendJson } from '../test-support/fixtures.js';

type ProductCreate = components['schemas']['ProductCreate'];
type Product = components['schemas']['Product'];

const now = new Date('2026-11-21T14:30:00.000Z');
let server: TestServer;

beforeEach(async () => {
  server = await createTestServer({ now: () => new Date(now.getTime()) });
});

afterEach(async () => {
  expect(server.violations).toEqual([]);
  await server.close();
});

describe('POST /product', () => {
  test('answers 201 with the product, isSubscription false and status ACTIVE by default (D32)', async () => {
    const { data, response } = await server.api.POST('/product', { body: productBody() });
    expect(response.status).toBe(201);
    expect(data).toEqual({
      id: expect.stringMatching(idPatterns.product),
      name: 'Café especial torrado 1 kg',
      description: 'Grãos arábica do Sul de Minas, torra média.',
      price: 64.95,
      companyId: server.companyId,
      status: 'ACTIVE',
      isSubscription: false,
      createdAt: '2026-11-21T14:30:00.000Z',
      updatedAt: '2026-11-21T14:30:00.000Z',
      sku: 'CAF-ESP-1KG',
      displayId: '1001',
    });
    expect(data).not.toHaveProperty('defaultPeriod');
    expect(data).not.toHaveProperty('defaultTrialDays');
  });

  test('creates a subscription product with its default period and trial length', async () => {
    const { data, response } = await server.api.POST('/product', {
      body: productBody({ name: 'Clube do café', isSubscription: true, defaultPeriod: 'MONTHLY', defaultTrialDays: 7 }),
    });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ name: 'Clube do café', isSubscription: true, defaultPeriod: 'MONTHLY', defaultTrialDays: 7, status: 'ACTIVE' });
  });

  test('keeps imageUrl and storefrontVariantId as sent, and a charge item carries the image (D44)', async () => {
    const imageUrl = 'https://cafeaurora.example.com/img/cafe-especial.jpg';
    const storefrontVariantId = 'gid://shopify/ProductVariant/44561236';
    const { data, response } = await server.api.POST('/product', { body: productBody({ imageUrl, storefrontVariantId }) });
    expect(response.status).toBe(201);
    expect(data).toMatchObject({ imageUrl, storefrontVariantId });
    const plain = await server.api.POST('/product', { body: productBody() });
    const link = await server.api.POST('/charge/payment-link', {
      body: {
        items: [
          { productId: data!.id, quantity: 1 },
          { productId: plain.data!.id, quantity: 1 },
        ],
      },
    });
    const charge = await server.api.GET('/charge/{id}', { params: { path: { id: link.data!.data.id } } });
    expect(charge.data?.data.items.map((item) => item.product.imageUrl)).toEqual([imageUrl, undefined]);
  });

  const badFields: Array<[string, { given: Partial<ProductCreate>; want: string }]> = [
    ['an imageUrl that is not an http(s) URL', { given: { imageUrl: 'javascript:alert(1)' }, want: '/imageUrl' }],
    ['an empty storefrontVariantId', { given: { storefrontVariantId: '' }, want: '/storefrontVariantId' }],
  ];
  test.each(badFields)('refuses %s with 422 (D44, D24)', async (_name, { given, want }) => {
    const answer = await sendJson(server, 'POST', '/product', productBody(given));
    expect(answer.status).toBe(422);
    expect((answer.json as { errors: Array<{ pointer: string }> }).errors.map((e) => e.pointer)).toContain(want);
  });

  test('gives every product its own identifier, scoped to the company of the key', async () => {
    const a = await server.api.POST('/product', { body: productBody() });
    const b = await server.other.api.POST('/product', { body: productBody() });
    expect(a.data?.id).not.toBe(b.data?.id);
    expect(a.data?.companyId).toBe(server.companyId);
    expect(b.data?.companyId).toBe(server.other.companyId);
  });

  const accepted: Array<[string, { given: Partial<ProductCreate>; want: Partial<Product> }]> = [
    ['status INACTIVE', { given: { status: 'INACTIVE' }, want: { status: 'INACTIVE' } }],
    ['isSubscription false sent explicitly', { given: { isSubscription: false }, want: { isSubscription: false } }],
    ['the smallest price, 0.01', { given: { price: 0.01 }, want: { price: 0.01 } }],
    ['a whole price', { given: { price: 10 }, want: { price: 10 } }],
    ['a price with one decimal', { given: { price: 129.9 }, want: { price: 129.9 } }],
    ['a price whose binary form is inexact (4.35)', { given: { price: 4.35 }, want: { price: 4.35 } }],
    ['a price whose binary form is inexact (1.15)', { given: { price: 1.15 }, want: { price: 1.15 } }],
    ['the largest price, 999999999.99', { given: { price: 999999999.99 }, want: { price: 999999999.99 } }],
    ['a trial of 0 days', { given: { isSubscription: true, defaultTrialDays: 0 }, want: { defaultTrialDays: 0 } }],
    ['a trial of 365 days', { given: { isSubscription: true, defaultTrialDays: 365 }, want: { defaultTrialDays: 365 } }],
    ['every period value (BIENNIAL)', { given: { isSubscription: true, defaultPeriod: 'BIENNIAL' }, want: { defaultPeriod: 'BIENNIAL' } }],
    ['an empty description', { given: { description: '' }, want: { description: '' } }],
    [
      'a sku and displayId of 64 characters',
      { given: { sku: 'S'.repeat(64), displayId: 'D'.repeat(64) }, want: { sku: 'S'.repeat(64), displayId: 'D'.repeat(64) } },
    ],
  ];
  test.for(accepted)('accepts %s', async ([, { given, want }]) => {
    const { data, response } = await server.api.POST('/product', { body: productBody(given) });
    expect(response.status).toBe(201);
    expect(data).toMatchObject(want);
  });

  const refused: Array<[string, { given: Record<string, unknown>; want: string[] }]> = [
    ['a price of 0', { given: { price: 0 }, want: ['/price'] }],
    ['a negative price', { given: { price: -10 }, want: ['/price'] }],
    ['a negative cent', { given: { price: -0.01 }, want: ['/price'] }],
    ['a price with 3 decimals', { given: { price: 64.955 }, want: ['/price'] }],
    ['a price of a tenth of a cent', { given: { price: 0.001 }, want: ['/price'] }],
    ['a price as a decimal string (D17)', { given: { price: '64.95' }, want: ['/price'] }],
    ['a price as a whole-number string', { given: { price: '65' }, want: ['/price'] }],
    ['a price of null', { given: { price: null }, want: ['/price'] }],
    ['a price above the maximum', { given: { price: 1_000_000_000 }, want: ['/price'] }],
    ['an empty sku', { given: { sku: '' }, want: ['/sku'] }],
    ['a sku of 65 characters', { given: { sku: 'S'.repeat(65) }, want: ['/sku'] }],
    ['an empty displayId', { given: { displayId: '' }, want: ['/displayId'] }],
    ['a displayId of 65 characters', { given: { displayId: 'D'.repeat(65) }, want: ['/displayId'] }],
    ['a displayId as a number', { given: { displayId: 1001 }, want: ['/displayId'] }],
    ['an empty name', { given: { name: '' }, want: ['/name'] }],
    ['a name of 256 characters', { given: { name: 'n'.repeat(256) }, want: ['/name'] }],
    ['a description of 5001 characters', { given: { description: 'd'.repeat(5001) }, want: ['/description'] }],
    ['isSubscription as a string', { given: { isSubscription: 'true' }, want: ['/isSubscription'] }],
    ['a period outside the enum', { given: { defaultPeriod: 'YEARLY' }, want: ['/defaultPeriod'] }],
    ['a negative trial', { given: { defaultTrialDays: -1 }, want: ['/defaultTrialDays'] }],
    ['a trial of 366 days', { given: { defaultTrialDays: 366 }, want: ['/defaultTrialDays'] }],
    ['a fractional trial', { given: { defaultTrialDays: 1.5 }, want: ['/defaultTrialDays'] }],
    ['a status outside the enum', { given: { status: 'ARCHIVED' }, want: ['/status'] }],
    ['a field of the response only (createdAt)', { given: { createdAt: '2026-11-21T14:30:00.000Z' }, want: ['/createdAt'] }],
    ['a companyId (not a field of this request)', { given: { companyId: 'comp_abc' }, want: ['/companyId'] }],
    ['an id', { given: { id: 'prod_abc' }, want: ['/id'] }],
    ['a bad price and a bad sku together', { given: { price: 0, sku: '' }, want: ['/price', '/sku'] }],
  ];
  test.for(refused)('refuses %s with 422 naming the field', async ([, { given, want }]) => {
    const { response } = await sendJson(server, 'POST', '/product', { ...productBody(), ...given });
    await expectValidation(response, want, '/product');
  });

  const required = ['name', 'description', 'price', 'sku', 'displayId'] as const;
  test.for(required)('refuses a body without %s with 422 naming it as required', async (field) => {
    const body: Record<string, unknown> = { ...productBody() };
    delete body[field];
    const { response } = await sendJson(server, 'POST', '/product', body);
    const problem = await expectValidation(response, [`/${field}`], '/product');
    expect(problem.errors).toEqual([expect.objectContaining({ pointer: `/${field}`, keyword: 'required' })]);
  });

  test('refuses a body without sku and displayId naming both', async () => {
    const { sku: _sku, displayId: _displayId, ...body } = productBody();
    const { response } = await sendJson(server, 'POST', '/product', body);
    await expectValidation(response, ['/displayId', '/sku']);
  });
});

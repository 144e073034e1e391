/**
 * POST /charge/payment-link and GET /charge/{id} on the reference server, against the
 * contract (generated/openapi.yaml) and its decisions (openapi/DECISIONS.md): D01 (201 and
 * Location), D02 (problems), D18 (required fields, defaults), D20 (envelope), D21 (presence),
 * D22 (unknown fields), D25 (ranges), D27 (unknown and foreign ids), D28 (expiry, url, BR Code),
 * D32 (needShipping of items), D43 (the Pix key of the BR Code).
 */
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { brCodeAmountCents, brCodeProblems, parseTlv, qrTextOfDataUri } from '../../conformance/pix/brcode-check.js';
import { UNPAYABLE_PIX_KEY } from '../../lib/pix/pix-key.js';
import { createCompanyWithKey } from '../bootstrap.js';
import {
  clientBody,
  createProduct,
  created,
  customers,
  errorPlaces,
  fakeClock,
  postPaymentLink,
  problem,
  read,
  unknownId,
  type FakeClock,
  type PaymentLinkCreate,
  type Product,
} from '../test-support/fixtures.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';

type Charge = components['schemas']['Charge'];
type ChargeResponse = components['schemas']['ChargeResponse'];

const START = '2026-11-21T14:30:00.000Z';
const COMPANY_A = { taxId: '45723174000110', name: 'Café Aurora Ltda', color: '#0E7C66' };

let server: TestServer;
let clock: FakeClock;

beforeEach(async () => {
  clock = fakeClock(START);
  server = await createTestServer({ now: clock.now });
});

afterEach(async () => {
  try {
    expect(server.violations).toEqual([]);
  } finally {
    await server.close();
  }
});

/** Creates a payment link as company A (or with `apiKey`) and returns its id; fails unless 201. */
async function createCharge(body: PaymentLinkCreate, apiKey?: string): Promise<string> {
  const answer = await postPaymentLink(server, body, apiKey === undefined ? {} : { apiKey });
  return created(answer).data.id;
}

/** GET /charge/{id} as company A (or with `apiKey`); fails unless 200. */
async function getCharge(id: string, apiKey?: string): Promise<Charge> {
  const answer = await read(await server.request(`/charge/${id}`, apiKey === undefined ? {} : { apiKey }));
  expect(answer.status, answer.text).toBe(200);
  const envelope = answer.json as ChargeResponse;
  expect(envelope.status).toBe(200);
  expect(envelope.message).toEqual(expect.any(String));
  return envelope.data;
}

function tlvValue(payload: string, tag: string): string | undefined {
  return parseTlv(payload).find((t) => t.tag === tag)?.value;
}

describe('POST /charge/payment-link: the total', () => {
  type Line = { price: number; quantity: number; isSubscription?: boolean };
  const cases: Array<[string, { given: Line[]; want: number }]> = [
    ['one product, 2 × R$ 64,95', { given: [{ price: 64.95, quantity: 2 }], want: 12990 }],
    ['3 × R$ 19,99', { given: [{ price: 19.99, quantity: 3 }], want: 5997 }],
    ['a price inexact in binary, 20 × R$ 0,29', { given: [{ price: 0.29, quantity: 20 }], want: 580 }],
    ['a price inexact in binary, 7 × R$ 1,15', { given: [{ price: 1.15, quantity: 7 }], want: 805 }],
    [
      'two products, R$ 10,10 + 3 × R$ 5,05',
      {
        given: [
          { price: 10.1, quantity: 1 },
          { price: 5.05, quantity: 3 },
        ],
        want: 2525,
      },
    ],
    ['exactly the minimum, 1 × R$ 5,00', { given: [{ price: 5, quantity: 1 }], want: 500 }],
    ['exactly the minimum, 2 × R$ 2,50', { given: [{ price: 2.5, quantity: 2 }], want: 500 }],
    ['the largest quantity, 10 000 × R$ 0,01', { given: [{ price: 0.01, quantity: 10_000 }], want: 10_000 }],
    ['a subscription product counts like any other', { given: [{ price: 29.9, quantity: 1, isSubscription: true }], want: 2990 }],
  ];

  test.each(cases)('computed from items: %s', async (_name, { given, want }) => {
    const products: Product[] = [];
    for (const [i, line] of given.entries()) {
      products.push(await createProduct(server.api, { price: line.price, sku: `SKU-${i}`, isSubscription: line.isSubscription ?? false }));
    }
    const items = given.map((line, i) => ({ productId: products[i]!.id, quantity: line.quantity }));
    const answer = created(await postPaymentLink(server, { items }));
    expect(answer.data.total).toBe(want);

    const charge = await getCharge(answer.data.id);
    expect(charge.total).toBe(want);
    expect(brCodeAmountCents(charge.brCode)).toBe(want);
    expect(charge.items.map((item) => [item.productId, item.quantity])).toEqual(items.map((item) => [item.productId, item.quantity]));
  });

  const totalCases: Array<[string, { given: (p: Product) => PaymentLinkCreate; want: { total: number; items: number } }]> = [
    ['total only: no items', { given: () => ({ total: 5000 }), want: { total: 5000, items: 0 } }],
    ['total only: the minimum', { given: () => ({ total: 500 }), want: { total: 500, items: 0 } }],
    ['total only: the maximum (D25)', { given: () => ({ total: 99_999_999_999 }), want: { total: 99_999_999_999, items: 0 } }],
    [
      'both: the sent total wins over the computed 12990',
      { given: (p) => ({ total: 10_000, items: [{ productId: p.id, quantity: 2 }] }), want: { total: 10_000, items: 1 } },
    ],
    [
      'both: a sent total above the computed one',
      { given: (p) => ({ total: 20_000, items: [{ productId: p.id, quantity: 1 }] }), want: { total: 20_000, items: 1 } },
    ],
  ];

  test.each(totalCases)('%s', async (_name, { given, want }) => {
    const product = await createProduct(server.api, { price: 64.95 });
    const answer = created(await postPaymentLink(server, given(product)));
    expect(answer.data.total).toBe(want.total);
    const charge = await getCharge(answer.data.id);
    expect(charge.total).toBe(want.total);
    expect(charge.items).toHaveLength(want.items);
    expect(brCodeAmountCents(charge.brCode)).toBe(want.total);
  });
});

describe('POST /charge/payment-link: the customer', () => {
  test('`customer` creates a client of the company, listed by GET /client with taxId', async () => {
    const id = await createCharge({ total: 5000, customer: customers.maria });

    const charge = await getCharge(id);
    const { name, taxId, email, phone } = customers.maria;
    expect(charge.customer).toEqual({ name, taxId, email, phone });

    const list = await server.api.GET('/client');
    expect(list.response.status).toBe(200);
    expect(list.data).toEqual([
      {
        ...customers.maria,
        id: expect.stringMatching(/^clnt_[a-z][0-9a-z]{1,31}$/),
        status: 'ACTIVE',
        companyId: server.companyId,
        createdAt: START,
        updatedAt: START,
      },
    ]);

    const otherList = await server.other.api.GET('/client');
    expect(otherList.data).toEqual([]);
  });

  test('a `customer` written the Brazilian way is stored, charged and listed as digits (D46)', async () => {
    const id = await createCharge({
      total: 5000,
      customer: { ...customers.maria, taxId: '529.982.247-25', phone: '+55 (11) 98765-4321', postalCode: '01310-100' },
    });
    const { name, taxId, email, phone } = customers.maria;
    expect((await getCharge(id)).customer).toEqual({ name, taxId, email, phone });
    const list = await server.api.GET('/client');
    expect(list.data).toEqual([expect.objectContaining({ taxId: '52998224725', phone: '11987654321', postalCode: '01310100' })]);
  });

  test('`customerId` of an existing client fills `customer` and creates no client', async () => {
    const client = await server.api.POST('/client', {
      body: { name: 'João Pereira', status: 'ACTIVE', cpfCnpj: '11144477735', email: 'joao@example.com', phone: '2134567890' },
    });
    expect(client.response.status).toBe(201);
    const clientId = client.data!.id;

    const id = await createCharge({ total: 5000, customerId: clientId });
    const charge = await getCharge(id);
    expect(charge.customer).toEqual({ name: 'João Pereira', taxId: '11144477735', email: 'joao@example.com', phone: '2134567890' });

    const list = await server.api.GET('/client');
    expect(list.data?.map((c) => c.id)).toEqual([clientId]);
  });

  test('a client created by `customer` can be named by `customerId` in the next charge', async () => {
    const first = await createCharge({ total: 5000, customer: customers.padaria });
    const [client] = (await server.api.GET('/client')).data ?? [];
    expect(client?.taxId).toBe(customers.padaria.taxId);

    const second = await createCharge({ total: 7000, customerId: client!.id });
    expect((await getCharge(second)).customer).toEqual((await getCharge(first)).customer);
    expect((await server.api.GET('/client')).data).toHaveLength(1);
  });

  test('a returning buyer is the same client: `customer` reuses the client with its tax number as it is; the charge keeps what was sent (D48)', async () => {
    const first = await createCharge({ total: 5000, customer: customers.maria });
    clock.advance(60_000);
    const renamed = { ...customers.maria, name: 'Maria S. Souza', email: 'maria.nova@example.com', taxId: '529.982.247-25' };
    const second = await createCharge({ total: 7000, customer: renamed });
    const list = (await server.api.GET('/client')).data ?? [];
    expect(list).toEqual([
      expect.objectContaining({ name: customers.maria.name, email: customers.maria.email, taxId: customers.maria.taxId, createdAt: START }),
    ]);
    expect((await getCharge(first)).customer).toMatchObject({ name: customers.maria.name, email: customers.maria.email });
    expect((await getCharge(second)).customer).toEqual({
      name: renamed.name,
      taxId: customers.maria.taxId,
      email: renamed.email,
      phone: customers.maria.phone,
    });
    // Another buyer, and the same buyer at another company, are clients of their own.
    await createCharge({ total: 5000, customer: customers.joao });
    await createCharge({ total: 5000, customer: customers.maria }, server.other.apiKey);
    expect((await server.api.GET('/client')).data?.map((c) => c.taxId)).toEqual([customers.maria.taxId, customers.joao.taxId]);
    expect((await server.other.api.GET('/client')).data?.map((c) => c.taxId)).toEqual([customers.maria.taxId]);
  });

  test('`customer` reuses the oldest ACTIVE client with the tax number, never an INACTIVE one (D48, D45)', async () => {
    const inactive = await server.api.POST('/client', { body: clientBody({ status: 'INACTIVE' }) });
    clock.advance(1000);
    await createCharge({ total: 5000, customer: customers.maria });
    const afterFirst = (await server.api.GET('/client')).data ?? [];
    expect(afterFirst.map((c) => [c.id === inactive.data?.id, c.status])).toEqual([
      [true, 'INACTIVE'],
      [false, 'ACTIVE'],
    ]);
    clock.advance(1000);
    // D33: POST /client still adds a client with the same tax number; the older ACTIVE one stays the reused one.
    await server.api.POST('/client', { body: clientBody({ name: 'Maria (cadastro manual)' }) });
    clock.advance(1000);
    await createCharge({ total: 5000, customer: customers.maria });
    expect((await server.api.GET('/client')).data?.map((c) => c.id)).toEqual([...afterFirst.map((c) => c.id), expect.any(String)]);
  });

  test('without `customer` or `customerId` the charge has no customer (D18, D21)', async () => {
    const charge = await getCharge(await createCharge({ total: 5000 }));
    expect(charge).not.toHaveProperty('customer');
    expect((await server.api.GET('/client')).data).toEqual([]);
  });
});

describe('POST /charge/payment-link: refused requests (422)', () => {
  interface Fixture {
    product: Product;
    cheap: Product;
    foreignProduct: Product;
    foreignClientId: string;
    clientId: string;
  }

  async function fixture(): Promise<Fixture> {
    const product = await createProduct(server.api, { price: 64.95 });
    const cheap = await createProduct(server.api, { price: 4.99, sku: 'CHEAP' });
    const foreignProduct = await createProduct(server.other.api, { price: 64.95 });
    const own = await server.api.POST('/client', {
      body: { name: 'Cliente A', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'a@example.com', phone: '11987654321' },
    });
    const foreign = await server.other.api.POST('/client', {
      body: { name: 'Cliente B', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'b@example.com', phone: '11987654321' },
    });
    return { product, cheap, foreignProduct, foreignClientId: foreign.data!.id, clientId: own.data!.id };
  }

  const cases: Array<[string, { given: (f: Fixture) => unknown; want: { places: string[]; keyword?: string } }]> = [
    // D27: references in the body
    ['unknown customerId', { given: () => ({ total: 5000, customerId: unknownId('clnt') }), want: { places: ['/customerId'] } }],
    ["another company's customerId", { given: (f) => ({ total: 5000, customerId: f.foreignClientId }), want: { places: ['/customerId'] } }],
    ['malformed customerId', { given: () => ({ total: 5000, customerId: 'maria' }), want: { places: ['/customerId'], keyword: 'pattern' } }],
    [
      'unknown productId at index 1',
      {
        given: (f) => ({
          items: [
            { productId: f.product.id, quantity: 1 },
            { productId: unknownId('prod'), quantity: 1 },
          ],
        }),
        want: { places: ['/items/1/productId'] },
      },
    ],
    [
      "another company's productId at index 0",
      {
        given: (f) => ({
          items: [
            { productId: f.foreignProduct.id, quantity: 1 },
            { productId: f.product.id, quantity: 1 },
          ],
        }),
        want: { places: ['/items/0/productId'] },
      },
    ],
    [
      'two unknown products, both named',
      {
        given: (f) => ({
          total: 5000,
          items: [
            { productId: unknownId('prod'), quantity: 1 },
            { productId: f.foreignProduct.id, quantity: 2 },
          ],
        }),
        want: { places: ['/items/0/productId', '/items/1/productId'] },
      },
    ],
    // D18, D25: totals
    [
      'computed total 499 cents (1 × R$ 4,99)',
      { given: (f) => ({ items: [{ productId: f.cheap.id, quantity: 1 }] }), want: { places: ['/items'], keyword: 'minimum' } },
    ],
    ['total 499', { given: () => ({ total: 499 }), want: { places: ['/total'], keyword: 'minimum' } }],
    ['total 0', { given: () => ({ total: 0 }), want: { places: ['/total'], keyword: 'minimum' } }],
    ['total -1000', { given: () => ({ total: -1000 }), want: { places: ['/total'], keyword: 'minimum' } }],
    [
      'total 499 with items that come to 12990',
      { given: (f) => ({ total: 499, items: [{ productId: f.product.id, quantity: 2 }] }), want: { places: ['/total'], keyword: 'minimum' } },
    ],
    ['total above the maximum (D25)', { given: () => ({ total: 100_000_000_000 }), want: { places: ['/total'], keyword: 'maximum' } }],
    ['fractional total', { given: () => ({ total: 1000.5 }), want: { places: ['/total'], keyword: 'type' } }],
    ['total as a string', { given: () => ({ total: '1000' }), want: { places: ['/total'], keyword: 'type' } }],
    ['neither total nor items', { given: () => ({}), want: { places: [''], keyword: 'anyOf' } }],
    ['neither total nor items, other fields sent', { given: () => ({ devMode: true, externalId: 'x' }), want: { places: [''], keyword: 'anyOf' } }],
    ['empty items and no total', { given: () => ({ items: [] }), want: { places: ['/items'], keyword: 'minItems' } }],
    // D18: customer
    [
      'customerId and customer together',
      { given: (f) => ({ total: 5000, customerId: f.clientId, customer: customers.maria }), want: { places: ['/customer'] } },
    ],
    [
      'customer without email',
      {
        given: () => ({ total: 5000, customer: { name: 'Maria', taxId: '52998224725', phone: '11987654321' } }),
        want: { places: ['/customer/email'], keyword: 'required' },
      },
    ],
    [
      'customer taxId with wrong check digits (D23)',
      { given: () => ({ total: 5000, customer: { ...customers.joao, taxId: '11144477734' } }), want: { places: ['/customer/taxId'], keyword: 'format' } },
    ],
    [
      'customer taxId of 12 digits (D23)',
      { given: () => ({ total: 5000, customer: { ...customers.joao, taxId: '111444777350' } }), want: { places: ['/customer/taxId'] } },
    ],
    [
      'customer phone of 12 digits once +55 is dropped (D46)',
      {
        given: () => ({ total: 5000, customer: { ...customers.joao, phone: '+55 21 93456-78901' } }),
        want: { places: ['/customer/phone'], keyword: 'format' },
      },
    ],
    [
      'customer taxId punctuated, with wrong check digits (D23, D46)',
      { given: () => ({ total: 5000, customer: { ...customers.joao, taxId: '111.444.777-34' } }), want: { places: ['/customer/taxId'], keyword: 'format' } },
    ],
    [
      'customer postalCode of 9 digits with a dash (D46)',
      {
        given: () => ({ total: 5000, customer: { ...customers.joao, postalCode: '01310-1000' } }),
        want: { places: ['/customer/postalCode'], keyword: 'format' },
      },
    ],
    // D25: items
    ['quantity 0', { given: (f) => ({ items: [{ productId: f.product.id, quantity: 0 }] }), want: { places: ['/items/0/quantity'], keyword: 'minimum' } }],
    ['quantity 1.5', { given: (f) => ({ items: [{ productId: f.product.id, quantity: 1.5 }] }), want: { places: ['/items/0/quantity'], keyword: 'type' } }],
    [
      'quantity 10 001',
      { given: (f) => ({ items: [{ productId: f.product.id, quantity: 10_001 }] }), want: { places: ['/items/0/quantity'], keyword: 'maximum' } },
    ],
    ['item without quantity', { given: (f) => ({ items: [{ productId: f.product.id }] }), want: { places: ['/items/0/quantity'], keyword: 'required' } }],
    // D22: unknown fields, named
    ['unknown field devmode', { given: () => ({ total: 5000, devmode: true }), want: { places: ['/devmode'], keyword: 'additionalProperties' } }],
    [
      'unknown field in customer',
      {
        given: () => ({ total: 5000, customer: { ...customers.joao, cpf: '11144477735' } }),
        want: { places: ['/customer/cpf'], keyword: 'additionalProperties' },
      },
    ],
    [
      'unknown field in an item',
      {
        given: (f) => ({ items: [{ productId: f.product.id, quantity: 1, price: 1 }] }),
        want: { places: ['/items/0/price'], keyword: 'additionalProperties' },
      },
    ],
    // D24: formats
    ['successUrl not http(s)', { given: () => ({ total: 5000, successUrl: 'ftp://example.com/ok' }), want: { places: ['/successUrl'] } }],
    ['empty externalId', { given: () => ({ total: 5000, externalId: '' }), want: { places: ['/externalId'], keyword: 'minLength' } }],
    // D02: every failing field at once
    ['two failing fields', { given: () => ({ total: 100, devmode: true }), want: { places: ['/total', '/devmode'] } }],
  ];

  test.each(cases)('%s', async (_name, { given, want }) => {
    const f = await fixture();
    const clientsBefore = (await server.api.GET('/client')).data;
    const inserts = vi.spyOn(server.deps.store, 'insertCharge');

    const p = problem(await postPaymentLink(server, given(f)), 422);
    expect(p).toMatchObject({ type: '/problems/validation-error', title: 'Request validation failed', status: 422, instance: '/charge/payment-link' });
    expect([...errorPlaces(p)].sort()).toEqual([...want.places].sort());
    if (want.keyword !== undefined) expect(p.errors?.[0]?.keyword).toBe(want.keyword);
    // The detail says each field in words: where it is, then what is wrong with it.
    for (const error of p.errors ?? []) expect(p.detail).toContain(`${error.pointer === '' ? 'the body' : error.pointer?.slice(1)} ${error.detail}`);

    // Nothing was created: no charge, no client.
    expect(inserts).not.toHaveBeenCalled();
    expect((await server.api.GET('/client')).data).toEqual(clientsBefore);
  });

  test('a computed total above the maximum of 99 999 999 999 cents is refused (D25)', async () => {
    const product = await createProduct(server.api, { price: 999_999_999.99 });
    const inserts = vi.spyOn(server.deps.store, 'insertCharge');
    const p = problem(await postPaymentLink(server, { items: [{ productId: product.id, quantity: 2 }] }), 422);
    expect(p.type).toBe('/problems/validation-error');
    expect(inserts).not.toHaveBeenCalled();
  });
});

describe('POST /charge/payment-link: the answer (D01, D20, D21)', () => {
  test('201 with the envelope {status, message, data} and Location /charge/{id}', async () => {
    const answer = await postPaymentLink(server, { total: 12990, devMode: true, externalId: 'pedido-2026-000123' });
    const body = created(answer);
    expect(body).toEqual({
      status: 201,
      message: expect.stringMatching(/\S/),
      data: {
        id: expect.stringMatching(/^char_[a-z][0-9a-z]{1,31}$/),
        url: `http://pay.test/pay/${body.data.id}`,
        devMode: true,
        total: 12990,
        externalId: 'pedido-2026-000123',
      },
    });
    expect(answer.headers.get('location')).toBe(`/charge/${body.data.id}`);
    expect(answer.headers.get('idempotent-replayed')).toBeNull();

    const located = await read(await server.request(answer.headers.get('location')!));
    expect(located.status).toBe(200);
    expect((located.json as ChargeResponse).data.id).toBe(body.data.id);
  });

  test('externalId is absent from the answer when it was not sent', async () => {
    const body = created(await postPaymentLink(server, { total: 5000 }));
    expect(body.data).not.toHaveProperty('externalId');
    expect(body.data.devMode).toBe(false);
  });

  test('each request creates a new charge with its own id', async () => {
    const ids = [await createCharge({ total: 5000 }), await createCharge({ total: 5000 })];
    expect(new Set(ids).size).toBe(2);
  });

  test('the typed client sees the same answer', async () => {
    const { data, response } = await server.api.POST('/charge/payment-link', { body: { total: 777 } });
    expect(response.status).toBe(201);
    expect(data?.data.total).toBe(777);
    expect(response.headers.get('location')).toBe(`/charge/${data?.data.id}`);
  });
});

describe('GET /charge/{id}: the full charge', () => {
  test('status OPEN, paymentStatus PENDING, url, expiry, company, items, customer and echoed fields', async () => {
    const coffee = await createProduct(server.api, { price: 64.95, sku: 'CAF-ESP-1KG' });
    const club = await createProduct(server.api, {
      name: 'Clube do café',
      description: 'Um pacote por mês.',
      price: 49.9,
      sku: 'CLUBE',
      displayId: '2001',
      isSubscription: true,
      defaultPeriod: 'MONTHLY',
      defaultTrialDays: 7,
    });
    const answer = created(
      await postPaymentLink(server, {
        items: [
          { productId: coffee.id, quantity: 2 },
          { productId: club.id, quantity: 1 },
        ],
        customer: customers.maria,
        successUrl: 'https://cafeaurora.example.com/obrigado',
        failedUrl: 'https://cafeaurora.example.com/pagamento-falhou',
        notifyCustomer: true,
        externalId: 'pedido-2026-000123',
      }),
    );
    const id = answer.data.id;

    const response = await server.api.GET('/charge/{id}', { params: { path: { id } } });
    expect(response.response.status).toBe(200);
    expect(response.data).toEqual({
      status: 200,
      message: expect.stringMatching(/\S/),
      data: {
        id,
        total: 12990 + 4990,
        url: `http://pay.test/pay/${id}`,
        status: 'OPEN',
        paymentStatus: 'PENDING',
        devMode: false,
        needShipping: false,
        expiresAt: '2026-11-21T15:30:00.000Z',
        company: COMPANY_A,
        successUrl: 'https://cafeaurora.example.com/obrigado',
        failedUrl: 'https://cafeaurora.example.com/pagamento-falhou',
        brCode: expect.stringMatching(/^000201/),
        brCodeBase64: expect.stringMatching(/^data:image\/png;base64,/),
        items: [
          {
            productId: coffee.id,
            companyId: server.companyId,
            quantity: 2,
            product: {
              id: coffee.id,
              name: coffee.name,
              description: coffee.description,
              price: 64.95,
              needShipping: true,
              companyId: server.companyId,
              status: 'ACTIVE',
              sku: 'CAF-ESP-1KG',
            },
          },
          {
            productId: club.id,
            companyId: server.companyId,
            quantity: 1,
            product: {
              id: club.id,
              name: 'Clube do café',
              description: 'Um pacote por mês.',
              price: 49.9,
              needShipping: false,
              companyId: server.companyId,
              status: 'ACTIVE',
              sku: 'CLUBE',
            },
          },
        ],
        customer: { name: customers.maria.name, taxId: customers.maria.taxId, email: customers.maria.email, phone: customers.maria.phone },
        externalId: 'pedido-2026-000123',
      },
    });
  });

  test('a charge with a total only has empty items and no optional fields (D21)', async () => {
    const charge = await getCharge(await createCharge({ total: 5000 }));
    expect(charge.items).toEqual([]);
    for (const field of ['customer', 'successUrl', 'failedUrl', 'externalId', 'paymentDate']) expect(charge).not.toHaveProperty(field);
    expect(JSON.stringify(charge)).not.toContain('null');
  });

  test('the item summary carries the product status; an INACTIVE product is not sold (D45)', async () => {
    const product = await createProduct(server.api, { price: 10 });
    const charge = await getCharge(await createCharge({ items: [{ productId: product.id, quantity: 50 }] }));
    expect(charge.items[0]?.product).toMatchObject({ id: product.id, status: 'ACTIVE', needShipping: true });
    const inactive = await createProduct(server.api, { price: 10, status: 'INACTIVE' });
    const refused = await postPaymentLink(server, { items: [{ productId: inactive.id, quantity: 50 }] });
    expect(refused.status).toBe(422);
    expect((refused.json as { errors: Array<{ pointer: string; keyword: string }> }).errors).toEqual([
      expect.objectContaining({ pointer: '/items/0/productId', keyword: 'active' }),
    ]);
  });

  const flagCases: Array<[string, { given: Pick<PaymentLinkCreate, 'devMode' | 'needShipping'>; want: { devMode: boolean; needShipping: boolean } }]> = [
    ['both omitted default to false (D18)', { given: {}, want: { devMode: false, needShipping: false } }],
    ['devMode true', { given: { devMode: true }, want: { devMode: true, needShipping: false } }],
    ['needShipping true', { given: { needShipping: true }, want: { devMode: false, needShipping: true } }],
    ['both true', { given: { devMode: true, needShipping: true }, want: { devMode: true, needShipping: true } }],
    ['both false, sent', { given: { devMode: false, needShipping: false }, want: { devMode: false, needShipping: false } }],
  ];

  test.each(flagCases)('devMode and needShipping: %s', async (_name, { given, want }) => {
    const answer = created(await postPaymentLink(server, { total: 5000, ...given }));
    expect(answer.data.devMode).toBe(want.devMode);
    const charge = await getCharge(answer.data.id);
    expect({ devMode: charge.devMode, needShipping: charge.needShipping }).toEqual(want);
  });

  const expiryCases: Array<[string, { given: number; want: string }]> = [
    ['created at the start', { given: 0, want: '2026-11-21T15:30:00.000Z' }],
    ['created 1 ms later', { given: 1, want: '2026-11-21T15:30:00.001Z' }],
    ['created 90 min 1.234 s later', { given: 90 * 60_000 + 1_234, want: '2026-11-21T17:00:01.234Z' }],
    ['created across midnight UTC', { given: 9 * 3_600_000 + 45 * 60_000, want: '2026-11-22T01:15:00.000Z' }],
  ];

  test.each(expiryCases)('expiresAt is 60 minutes after creation (D28): %s', async (_name, { given, want }) => {
    clock.advance(given);
    const id = await createCharge({ total: 5000 });
    clock.advance(5 * 60_000); // reading later does not move the expiry
    expect((await getCharge(id)).expiresAt).toBe(want);
  });
});

describe('GET /charge/{id}: the BR Code (D28, D43)', () => {
  interface Merchant {
    name: string;
    taxId: string;
    pixKey?: string;
    city?: string;
  }
  const cases: Array<[string, { given: Merchant | 'A' | 'B'; want: { name: string; key: string; city: string } }]> = [
    // The harness's companies have no Pix key of their own: even a live charge names the unpayable key (D43).
    ['company A of the harness', { given: 'A', want: { name: 'CAFE AURORA LTDA', key: UNPAYABLE_PIX_KEY, city: 'SAO PAULO' } }],
    ['company B of the harness', { given: 'B', want: { name: 'PADARIA BOM DIA LTDA', key: UNPAYABLE_PIX_KEY, city: 'SAO PAULO' } }],
    [
      'a long accented name is cut to 25 characters',
      {
        given: { name: 'Pão de Açúcar Comércio de Alimentos S.A.', taxId: '47508411000156', pixKey: '47508411000156', city: 'Ribeirão Preto' },
        want: { name: 'PAO DE ACUCAR COMERCIO DE', key: '47508411000156', city: 'RIBEIRAO PRETO' },
      },
    ],
    [
      'a cut that ends at a space leaves no trailing space; the city is cut to 15',
      {
        given: { name: 'Padaria e Confeitaria do Largo Ltda', taxId: '33000167000101', pixKey: '33000167000101', city: 'São José dos Campos' },
        want: { name: 'PADARIA E CONFEITARIA DO', key: '33000167000101', city: 'SAO JOSE DOS CA' },
      },
    ],
    [
      'a merchant with a CPF as Pix key',
      {
        given: { name: 'Açaí da Ana', taxId: '52998224725', pixKey: '52998224725', city: 'Belém' },
        want: { name: 'ACAI DA ANA', key: '52998224725', city: 'BELEM' },
      },
    ],
    [
      'a merchant with a random key (EVP) as Pix key',
      {
        given: { name: 'Açaí da Ana', taxId: '52998224725', pixKey: '3f2b8c1e-7d4a-4e6b-9a1c-5e8f0d2b7c46', city: 'Belém' },
        want: { name: 'ACAI DA ANA', key: '3f2b8c1e-7d4a-4e6b-9a1c-5e8f0d2b7c46', city: 'BELEM' },
      },
    ],
  ];

  test.each(cases)('%s', async (_name, { given, want }) => {
    let apiKey: string | undefined;
    if (given === 'B') apiKey = server.other.apiKey;
    else if (given !== 'A') apiKey = (await createCompanyWithKey(server.deps.store, given)).apiKey;

    const id = await createCharge({ total: 12345 }, apiKey);
    const { brCode, brCodeBase64 } = await getCharge(id, apiKey);

    expect(brCodeProblems(brCode)).toEqual([]);
    expect(brCodeAmountCents(brCode)).toBe(12345);
    expect(tlvValue(brCode, '00')).toBe('01');
    expect(tlvValue(brCode, '01')).toBe('12');
    expect(tlvValue(brCode, '52')).toBe('0000');
    expect(tlvValue(brCode, '53')).toBe('986');
    expect(tlvValue(brCode, '58')).toBe('BR');
    expect(tlvValue(brCode, '59')).toBe(want.name);
    expect(want.name.length).toBeLessThanOrEqual(25);
    expect(tlvValue(brCode, '60')).toBe(want.city);

    const account = parseTlv(tlvValue(brCode, '26') ?? '');
    expect(account.map((t) => [t.tag, t.value])).toEqual([
      ['00', 'br.gov.bcb.pix'],
      ['01', want.key],
    ]);
    const additional = parseTlv(tlvValue(brCode, '62') ?? '');
    expect(additional.find((t) => t.tag === '05')?.value).toBe(id.slice('char_'.length));

    expect(qrTextOfDataUri(brCodeBase64)).toEqual({ text: brCode });
  });

  const amountCases: Array<[string, { given: number; want: string }]> = [
    ['the minimum', { given: 500, want: '5.00' }],
    ['cents', { given: 12990, want: '129.90' }],
    ['one cent past a real', { given: 100001, want: '1000.01' }],
    ['the maximum', { given: 99_999_999_999, want: '999999999.99' }],
  ];

  test.each(amountCases)('field 54 holds the total in reais: %s', async (_name, { given, want }) => {
    const charge = await getCharge(await createCharge({ total: given }));
    expect(brCodeProblems(charge.brCode)).toEqual([]);
    expect(tlvValue(charge.brCode, '54')).toBe(want);
    expect(brCodeAmountCents(charge.brCode)).toBe(given);
    expect(qrTextOfDataUri(charge.brCodeBase64)).toEqual({ text: charge.brCode });
  });

  test('two charges of the same total differ only in their txid and CRC', async () => {
    const [a, b] = [await getCharge(await createCharge({ total: 5000 })), await getCharge(await createCharge({ total: 5000 }))];
    const strip = (code: string) => parseTlv(code).filter((t) => t.tag !== '62' && t.tag !== '63');
    expect(strip(a.brCode).map((t) => [t.tag, t.value])).toEqual(strip(b.brCode).map((t) => [t.tag, t.value]));
    expect(tlvValue(a.brCode, '62')).not.toBe(tlvValue(b.brCode, '62'));
  });

  // D43: a development charge never names a key that could receive money, whatever the company set.
  const keyCases: Array<[string, { given: { pixKey?: string; devMode: boolean }; want: string }]> = [
    ['no key, live', { given: { devMode: false }, want: UNPAYABLE_PIX_KEY }],
    ['no key, development', { given: { devMode: true }, want: UNPAYABLE_PIX_KEY }],
    ['an e-mail key, live', { given: { pixKey: 'pix@cafeaurora.com.br', devMode: false }, want: 'pix@cafeaurora.com.br' }],
    ['an e-mail key, development', { given: { pixKey: 'pix@cafeaurora.com.br', devMode: true }, want: UNPAYABLE_PIX_KEY }],
    ['a phone key, live', { given: { pixKey: '+5511987654321', devMode: false }, want: '+5511987654321' }],
    ['a phone key, development', { given: { pixKey: '+5511987654321', devMode: true }, want: UNPAYABLE_PIX_KEY }],
    ['the tax number as key, development', { given: { pixKey: '45723174000110', devMode: true }, want: UNPAYABLE_PIX_KEY }],
  ];
  test.each(keyCases)('the Pix key of a charge (D43): %s', async (_name, { given, want }) => {
    const { apiKey } = await createCompanyWithKey(server.deps.store, {
      name: 'Café Aurora Ltda',
      taxId: '45723174000110',
      ...(given.pixKey ? { pixKey: given.pixKey } : {}),
    });
    const charge = await getCharge(await createCharge({ total: 4590, devMode: given.devMode }, apiKey), apiKey);
    expect(brCodeProblems(charge.brCode)).toEqual([]);
    expect(parseTlv(tlvValue(charge.brCode, '26') ?? '').find((t) => t.tag === '01')?.value).toBe(want);
    if (want === UNPAYABLE_PIX_KEY) expect(charge.brCode).not.toContain('45723174000110');
    expect(qrTextOfDataUri(charge.brCodeBase64)).toEqual({ text: charge.brCode });
  });
});

describe('GET /charge/{id}: not found and not allowed', () => {
  const notFoundCases: Array<[string, { given: string; want: string }]> = [
    ['a well-formed unknown id', { given: unknownId('char'), want: `/charge/${unknownId('char')}` }],
    ['a malformed id', { given: 'nope', want: '/charge/nope' }],
    ['the id of another kind of record', { given: unknownId('clnt'), want: `/charge/${unknownId('clnt')}` }],
    ['an id of 255 characters', { given: `char_${'a'.repeat(250)}`, want: `/charge/char_${'a'.repeat(250)}` }],
    // D27: malformed ids are 404 like unknown ones; getCharge documents no 422.
    ['an id of 256 characters (malformed, D27)', { given: `char_${'a'.repeat(251)}`, want: `/charge/char_${'a'.repeat(251)}` }],
    // Problem.instance is a uri-reference: the path as requested, still percent-encoded.
    ['a percent-encoded id', { given: '%20', want: '/charge/%20' }],
  ];

  test.each(notFoundCases)('404 problem for %s', async (_name, { given, want }) => {
    await createCharge({ total: 5000 });
    const p = problem(await read(await server.request(`/charge/${given}`)), 404);
    expect(p).toMatchObject({ type: '/problems/not-found', title: 'Not found', status: 404, instance: want });
  });

  test("company B reading company A's charge gets 404; A still reads it", async () => {
    const id = await createCharge({ total: 5000, customer: customers.maria });
    const theirs = await server.other.api.GET('/charge/{id}', { params: { path: { id } } });
    expect(theirs.response.status).toBe(404);
    expect(theirs.error).toMatchObject({ type: '/problems/not-found', status: 404 });
    expect(JSON.stringify(theirs.error)).not.toContain(customers.maria.taxId);
    expect((await getCharge(id)).id).toBe(id);
  });

  test("company B's charge is invisible to company A", async () => {
    const id = await createCharge({ total: 5000 }, server.other.apiKey);
    expect((await getCharge(id, server.other.apiKey)).company).toEqual({ taxId: '11222333000181', name: 'Padaria Bom Dia Ltda', color: '#0E7C66' });
    const mine = await server.api.GET('/charge/{id}', { params: { path: { id } } });
    expect(mine.response.status).toBe(404);
  });

  const keyCases: Array<[string, { given: () => string | null }]> = [
    ['no X-API-KEY', { given: () => null }],
    ['an empty X-API-KEY', { given: () => '' }],
    ['a malformed key', { given: () => 'not-a-key' }],
    ['a well-formed key that was never issued', { given: () => `sk_${'a'.repeat(24)}_${'b'.repeat(43)}` }],
    ["company A's key id with a wrong secret", { given: () => `${server.apiKey.slice(0, -43)}${'b'.repeat(43)}` }],
    ["company A's key as a Bearer token", { given: () => `Bearer ${server.apiKey}` }],
  ];

  test.each(keyCases)('GET answers 401 with %s', async (_name, { given }) => {
    const id = await createCharge({ total: 5000 });
    const p = problem(await read(await server.request(`/charge/${id}`, { apiKey: given() })), 401);
    expect(p).toMatchObject({ type: '/problems/unauthorized', title: 'Unauthorized', status: 401 });
  });

  test.each(keyCases)('POST answers 401 and creates nothing with %s', async (_name, { given }) => {
    const inserts = vi.spyOn(server.deps.store, 'insertCharge');
    const p = problem(await postPaymentLink(server, { total: 5000, customer: customers.maria }, { apiKey: given() }), 401);
    expect(p).toMatchObject({ type: '/problems/unauthorized', status: 401 });
    expect(inserts).not.toHaveBeenCalled();
    expect((await server.api.GET('/client')).data).toEqual([]);
  });
});

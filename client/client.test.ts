/**
 * createPixClient against the reference server in this process (its app's fetch, no socket), and
 * against scripted answers where the server cannot be made to fail on cue.
 *
 * @operation-wide: it enumerates the contract's operations (the client's routes and Idempotency-Key senders), so `npm run test:operation` runs it, but its rows for other operations.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiKeyHeader, routes } from '../generated/client-routes.js';
import { listOperations, loadBundledContract, takesIdempotencyKey } from '../lib/contract/bundled.js';
import { createTestServer, type TestServer } from '../server/test-support/harness.js';
import { createPixClient, type PixClientOptions } from './index.js';

const baseUrl = 'http://pix.test/v1';
const baseUrlAlt = 'http://pix-alt.test';
const coffee = { name: 'Café especial 250 g', description: 'Grãos torrados do Cerrado Mineiro', price: 39.9, sku: 'CAFE-250', displayId: 'cafe-250' };

/** A client whose requests are recorded and answered by `answer` (default: 201 with a JSON body). */
function recorded(
  answer: (request: Request, call: number) => Response = () => Response.json({ data: { id: 'char_x' } }, { status: 201 }),
  retry?: PixClientOptions['retry'],
) {
  const sent: Request[] = [];
  const pix = createPixClient({
    baseUrl,
    baseUrlAlt,
    apiKey: 'sk_test',
    fetch: async (request) => {
      sent.push(request.clone());
      return answer(request, sent.length);
    },
    retry: { baseDelayMs: 1, maxDelayMs: 1, ...retry },
  });
  return { pix, sent };
}

const unavailable = () => Response.json({ type: '/problems/internal-error', title: 't', status: 503, detail: 'd' }, { status: 503 });

describe('requests', () => {
  test('each base URL gets its own operations, with the API key', async () => {
    const { pix, sent } = recorded();
    await pix.base.POST('/charge/payment-link', { body: { total: 500 } });
    await pix.alt.POST('/product', { body: coffee });
    expect(sent.map((r) => `${r.method} ${r.url}`)).toEqual(['POST http://pix.test/v1/charge/payment-link', 'POST http://pix-alt.test/product']);
    expect(sent.map((r) => r.headers.get(apiKeyHeader))).toEqual(['sk_test', 'sk_test']);
  });

  const keyCases: Array<[string, { given: { key?: string }; want: RegExp }]> = [
    ['a key is generated when the caller gives none', { given: {}, want: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/ }],
    ["the caller's key is kept", { given: { key: 'order-1001' }, want: /^order-1001$/ }],
  ];
  test.each(keyCases)('Idempotency-Key: %s, and every retry sends the same one', async (_name, { given, want }) => {
    const { pix, sent } = recorded((_request, call) => (call < 3 ? unavailable() : Response.json({ data: {} }, { status: 201 })));
    const params = given.key === undefined ? {} : { params: { header: { 'Idempotency-Key': given.key } } };
    const { response } = await pix.base.POST('/charge/payment-link', { body: { total: 500 }, ...params });
    expect(response.status).toBe(201);
    const keys = sent.map((r) => r.headers.get('Idempotency-Key'));
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(want);
  });

  test('two payment links get two different keys', async () => {
    const { pix, sent } = recorded();
    await pix.base.POST('/charge/payment-link', { body: { total: 500 } });
    await pix.base.POST('/charge/payment-link', { body: { total: 500 } });
    expect(sent[0]!.headers.get('Idempotency-Key')).not.toBe(sent[1]!.headers.get('Idempotency-Key'));
  });

  const retryCases: Array<
    [
      string,
      {
        given: { call: (pix: ReturnType<typeof recorded>['pix']) => Promise<unknown>; retry?: PixClientOptions['retry'] };
        want: { attempts: number; key: boolean };
      },
    ]
  > = [
    [
      'a payment link is retried',
      { given: { call: (pix) => pix.base.POST('/charge/payment-link', { body: { total: 500 } }) }, want: { attempts: 4, key: true } },
    ],
    ['a product is not retried (it takes no key)', { given: { call: (pix) => pix.alt.POST('/product', { body: coffee }) }, want: { attempts: 1, key: false } }],
    [
      'a read is not retried unless asked',
      { given: { call: (pix) => pix.base.GET('/charge/{id}', { params: { path: { id: 'char_x' } } }) }, want: { attempts: 1, key: false } },
    ],
    [
      'a read the caller names is retried',
      {
        given: { call: (pix) => pix.base.GET('/charge/{id}', { params: { path: { id: 'char_x' } } }), retry: { operations: ['getCharge'] } },
        want: { attempts: 4, key: false },
      },
    ],
    [
      'naming one operation retries no other',
      { given: { call: (pix) => pix.base.GET('/webhook'), retry: { operations: ['getCharge'] } }, want: { attempts: 1, key: false } },
    ],
    [
      'attempts can be lowered',
      { given: { call: (pix) => pix.base.POST('/charge/payment-link', { body: { total: 500 } }), retry: { attempts: 2 } }, want: { attempts: 2, key: true } },
    ],
  ];
  test.each(retryCases)('%s', async (_name, { given, want }) => {
    const { pix, sent } = recorded(unavailable, given.retry);
    await given.call(pix);
    expect(sent).toHaveLength(want.attempts);
    expect(sent.every((r) => r.headers.has('Idempotency-Key'))).toBe(want.key);
  });

  test('every operation that takes an Idempotency-Key in the contract gets one', () => {
    // The client decides from the generated table: it holds exactly the contract's operations that take the header.
    const contract = loadBundledContract();
    const takers = listOperations(contract)
      .filter((op) => takesIdempotencyKey(contract, op))
      .map((op) => op.operationId);
    expect(
      Object.entries(routes)
        .filter(([, r]) => r.idempotencyKey)
        .map(([id]) => id)
        .sort(),
    ).toEqual(takers.sort());
    expect(takers).toContain('createPaymentLink');
  });

  const optionCases: Array<[string, { given: Partial<PixClientOptions>; want: RegExp }]> = [
    ['a relative base URL', { given: { baseUrl: '/api' }, want: /baseUrl must be an absolute http\(s\) URL, got "\/api"/ }],
    ['another scheme', { given: { baseUrlAlt: 'ftp://pix.test' }, want: /baseUrlAlt must be an http\(s\) URL, got ftp:/ }],
    ['no API key', { given: { apiKey: '' }, want: /apiKey is required/ }],
  ];
  test.each(optionCases)('refuses %s', (_name, { given, want }) => {
    expect(() => createPixClient({ baseUrl, baseUrlAlt, apiKey: 'sk_test', ...given })).toThrow(want);
  });
});

describe('against the reference server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await createTestServer();
  });
  afterAll(async () => server?.close());

  const client = (apiKey = server.apiKey) =>
    createPixClient({ baseUrl: 'http://localhost', baseUrlAlt: 'http://localhost', apiKey, fetch: async (request) => server.app.fetch(request) });

  test('a product, a payment link for it, read back and paid in the sandbox', async () => {
    const pix = client();
    const product = await pix.alt.POST('/product', { body: coffee });
    expect(product.error).toBeUndefined();
    const productId = product.data!.id;
    const link = await pix.base.POST('/charge/payment-link', { body: { items: [{ productId, quantity: 2 }], devMode: true } });
    expect(link.response.status).toBe(201);
    const chargeId = link.data!.data.id;
    expect(link.data!.data.total).toBe(7980);
    const paid = await pix.base.POST('/charge/{id}/simulate-payment', { params: { path: { id: chargeId } }, body: { until: 'PAID' } });
    expect(paid.data?.data.status).toBe('PAID');
    const read = await pix.base.GET('/charge/{id}', { params: { path: { id: chargeId } } });
    expect(read.data?.data).toMatchObject({ id: chargeId, status: 'PAID', paymentStatus: 'PAID' });
  });

  test('the same Idempotency-Key answers the same charge', async () => {
    const pix = client();
    const send = () =>
      pix.base.POST('/charge/payment-link', { body: { total: 500, devMode: true }, params: { header: { 'Idempotency-Key': 'client-test-1' } } });
    const first = await send();
    const again = await send();
    expect(again.data?.data.id).toBe(first.data?.data.id);
    expect(again.response.headers.get('Idempotent-Replayed')).toBe('true');
  });

  const problemCases: Array<
    [
      string,
      {
        given: (pix: ReturnType<typeof client>) => Promise<{ error?: { type: string; status: number; detail: string } }>;
        key?: string;
        want: { type: string; status: number };
      },
    ]
  > = [
    ['an unknown key', { given: (pix) => pix.base.GET('/webhook'), key: 'sk_nope_nope', want: { type: '/problems/unauthorized', status: 401 } }],
    [
      'a charge that does not exist',
      { given: (pix) => pix.base.GET('/charge/{id}', { params: { path: { id: 'char_missing' } } }), want: { type: '/problems/not-found', status: 404 } },
    ],
    [
      'a total below the minimum',
      { given: (pix) => pix.base.POST('/charge/payment-link', { body: { total: 1 } }), want: { type: '/problems/validation-error', status: 422 } },
    ],
  ];
  test.each(problemCases)('errors are Problems: %s', async (_name, { given, key, want }) => {
    const { error } = await given(client(key));
    expect(error).toMatchObject(want);
    expect(error?.detail).toEqual(expect.any(String));
  });
});

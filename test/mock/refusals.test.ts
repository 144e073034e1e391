/**
 * The mock tells the truth when it refuses (issue 13): `npm run mock` (scripts/mock.mjs, started
 * as a process and spoken to over HTTP) answers an invalid request with the contract's Problem
 * naming the field that is actually wrong - not the 422 example's `/total` - and never claims an
 * idempotent replay it cannot have made.
 *
 * Bodies start from the contract's own request examples; each case breaks one thing.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import { deref, loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { problemTypes } from '../../server/http/problems.js';
import { ResponseChecker } from '../../server/test-support/contract-check.js';
import { expectProblem, expectValidation, type Problem } from '../../server/test-support/fixtures.js';
import { type SharedMock, sharedMock } from '../support/mock-process.js';

const contract = loadBundledContract();
const checker = new ResponseChecker();

/** A fresh copy of a named request example of the contract. */
function example(name: string): JsonObject {
  const examples = (contract.components as JsonObject).examples as Record<string, unknown>;
  return structuredClone(deref<{ value: JsonObject }>(contract, examples[name]).value);
}

function withChange(name: string, change: (body: JsonObject) => void): JsonObject {
  const body = example(name);
  change(body);
  return body;
}

const CHARGE = '/charge/char_ndvw35rd8w4vqozp8gqwwcxt';
const WEBHOOK = '/webhook/wbhk_dc8jpm71g9rd6pigp0yzzvwd';
type Items = Array<JsonObject>;

/** [what is wrong, method, path, body, the one pointer that must be named, the keyword Prism reports]. */
const invalidBodies: Array<[string, string, string, JsonObject, string, string]> = [
  ['total as a string', 'POST', '/charge/payment-link', { ...example('PaymentLinkCreateWithTotal'), total: '5000' }, '/total', 'type'],
  ['total below the minimum', 'POST', '/charge/payment-link', { ...example('PaymentLinkCreateWithTotal'), total: 100 }, '/total', 'minimum'],
  ['a misspelt field (D22)', 'POST', '/charge/payment-link', { ...example('PaymentLinkCreateWithTotal'), devmode: true }, '/devmode', 'additionalProperties'],
  [
    'a nested tax id of 3 digits',
    'POST',
    '/charge/payment-link',
    withChange('PaymentLinkCreateWithItems', (b) => ((b.customer as JsonObject).taxId = '123')),
    '/customer/taxId',
    'pattern',
  ],
  [
    'a nested e-mail that is none',
    'POST',
    '/charge/payment-link',
    withChange('PaymentLinkCreateWithItems', (b) => ((b.customer as JsonObject).email = 'not-an-email')),
    '/customer/email',
    'format',
  ],
  [
    'an item quantity of 0',
    'POST',
    '/charge/payment-link',
    withChange('PaymentLinkCreateWithItems', (b) => ((b.items as Items)[0]!.quantity = 0)),
    '/items/0/quantity',
    'minimum',
  ],
  [
    'a nested required phone missing',
    'POST',
    '/charge/payment-link',
    withChange('PaymentLinkCreateWithItems', (b) => delete (b.customer as JsonObject).phone),
    '/customer/phone',
    'required',
  ],
  ['a client status outside the enum', 'POST', '/client', { ...example('ClientCreateRequest'), status: 'DELETED' }, '/status', 'enum'],
  ['an empty client name', 'POST', '/client', { ...example('ClientCreateRequest'), name: '' }, '/name', 'minLength'],
  ['a client without its required e-mail', 'POST', '/client', withChange('ClientCreateRequest', (b) => delete b.email), '/email', 'required'],
  ['a client tax id as a number', 'POST', '/client', { ...example('ClientCreateRequest'), cpfCnpj: 52998224725 }, '/cpfCnpj', 'type'],
  ['a product period outside the enum', 'POST', '/product', { ...example('ProductCreateRequest'), defaultPeriod: 'HOURLY' }, '/defaultPeriod', 'enum'],
  ['an order to state XX', 'POST', '/order', { ...example('OrderCreateRequest'), state: 'XX' }, '/state', 'enum'],
  [
    'an order item with a malformed product id',
    'POST',
    '/order',
    withChange('OrderCreateRequest', (b) => ((b.items as Items)[0]!.productId = 'abc')),
    '/items/0/productId',
    'pattern',
  ],
  ['an order without items', 'POST', '/order', { ...example('OrderCreateRequest'), items: [] }, '/items', 'minItems'],
  ['an order paid in cash', 'POST', '/order', { ...example('OrderCreateRequest'), paymentMethod: 'CASH' }, '/paymentMethod', 'enum'],
  ['subscription trial days as a string', 'POST', '/subscription', { ...example('SubscriptionCreateRequest'), trialDays: '7' }, '/trialDays', 'type'],
  ['a subscription update with a malformed id', 'PUT', '/subscription', { ...example('SubscriptionUpdateRequest'), id: 'subs_' }, '/id', 'pattern'],
  ['a webhook for an unknown event', 'POST', '/webhook', { ...example('WebhookCreateRequest'), events: ['charge.unknown'] }, '/events/0', 'enum'],
  ['a webhook update to status PAUSED', 'PATCH', WEBHOOK, { ...example('WebhookUpdateRequest'), status: 'PAUSED' }, '/status', 'enum'],
  ['a simulated payment with settle "yes"', 'POST', `${CHARGE}/simulate-payment`, { settle: 'yes' }, '/settle', 'type'],
];

// The run's shared mock: this file only sends it requests.
let mock: SharedMock;

beforeAll(async () => {
  mock = await sharedMock();
});

function send(method: string, path: string, init: { body?: string; headers?: Record<string, string>; apiKey?: string | null } = {}): Promise<Response> {
  const key: Record<string, string> = init.apiKey === null ? {} : { 'X-API-KEY': init.apiKey ?? 'any' };
  return fetch(`${mock.url}${path}`, { method, headers: { ...key, 'Content-Type': 'application/json', ...init.headers }, body: init.body });
}

/** The answer conforms to the contract for its operation (status documented, media type, schema). */
async function expectConforming(method: string, path: string, response: Response): Promise<void> {
  expect(await checker.check(method, path, response)).toEqual([]);
}

describe('an invalid body gets a 422 problem naming the field that is wrong', () => {
  test('the table has at least 20 distinct cases', () => {
    expect(invalidBodies.length).toBeGreaterThanOrEqual(20);
    expect(new Set(invalidBodies.map(([what]) => what)).size).toBe(invalidBodies.length);
    expect(new Set(invalidBodies.map(([, method, path, body]) => `${method} ${path} ${JSON.stringify(body)}`)).size).toBe(invalidBodies.length);
  });

  test.each(invalidBodies)('%s (%s %s)', async (_, method, path, body, pointer, keyword) => {
    const response = await send(method, path, { body: JSON.stringify(body) });
    await expectConforming(method, path, response);
    const problem = await expectValidation(response, [pointer], path);
    expect(problem.errors).toEqual([expect.objectContaining({ pointer, keyword, detail: expect.any(String) })]);
    // A person reading only `detail` learns which field and what Prism found wrong with it.
    expect(problem.detail).toContain(`${pointer === '' ? 'the body' : pointer.slice(1)} ${problem.errors![0]!.detail}`);
    // Prism's own report stays, and agrees with the body.
    const violations = JSON.parse(response.headers.get('sl-violations') ?? '[]') as Array<{ location: string[] }>;
    expect(violations.length).toBeGreaterThan(0);
    expect(violations.every((v) => v.location[0] === 'request' && v.location[1] === 'body')).toBe(true);
  });

  test('two wrong fields are both named, and nothing else', async () => {
    const body = withChange('PaymentLinkCreateWithItems', (b) => {
      (b.customer as JsonObject).email = 'nobody';
      (b.items as Items)[0]!.quantity = 'two';
    });
    const problem = await expectValidation(await send('POST', '/charge/payment-link', { body: JSON.stringify(body) }), [
      '/customer/email',
      '/items/0/quantity',
    ]);
    expect(problem.detail).toMatch(/^customer\/email .+; items\/0\/quantity .+\.$/);
  });

  test('a body with more wrong fields than an answer lists names the first 20 and counts the rest (D49)', async () => {
    const body = { ...example('PaymentLinkCreateWithTotal'), ...Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`unknown${i}`, i])) };
    const response = await send('POST', '/charge/payment-link', { body: JSON.stringify(body) });
    await expectConforming('POST', '/charge/payment-link', response);
    const problem = await expectProblem(response, 422, problemTypes.validation.type, '/charge/payment-link');
    expect(problem.errors).toHaveLength(20);
    expect(problem.omittedErrors).toBe(30);
    expect(problem.detail).toMatch(/^unknown0 is not a field of this request; .*; and 45 more problems \(see errors\)\.$/);
  });

  test('an unmet either-or rule is one entry naming the alternatives, not each alternative "required"', async () => {
    const body = withChange('PaymentLinkCreateWithTotal', (b) => delete b.total);
    const problem = await expectValidation(await send('POST', '/charge/payment-link', { body: JSON.stringify(body) }), ['']);
    expect(problem.errors).toEqual([{ pointer: '', detail: 'must have at least one of: total, items', keyword: 'anyOf' }]);
  });

  test('a member the schema itself requires is still named beside an either-or rule', async () => {
    const body = withChange('PaymentLinkCreateWithItems', (b) => {
      delete b.items;
      delete (b.customer as JsonObject).name;
    });
    await expectValidation(await send('POST', '/charge/payment-link', { body: JSON.stringify(body) }), ['', '/customer/name']);
  });
});

describe('every other refusal is the contract problem for what happened', () => {
  const payment = JSON.stringify(example('PaymentLinkCreateWithTotal'));
  /** [what, method, path, request options, status, problem type, what the detail must say]. */
  const cases: Array<[string, string, string, Parameters<typeof send>[2], number, keyof typeof problemTypes, RegExp]> = [
    ['no X-API-KEY', 'GET', CHARGE, { apiKey: null }, 401, 'unauthorized', /No X-API-KEY header was sent/],
    ['a body that is not JSON', 'POST', '/charge/payment-link', { body: '{"total": 5000,' }, 400, 'malformedRequest', /not valid JSON/],
    [
      'a body sent as text/plain',
      'POST',
      '/charge/payment-link',
      { body: payment, headers: { 'Content-Type': 'text/plain' } },
      415,
      'unsupportedMediaType',
      /text\/plain.*application\/json/,
    ],
    ['a path the contract does not have', 'GET', '/charges', {}, 404, 'notFound', /\/charges/],
    ['a method the path does not have', 'DELETE', '/charge/payment-link', {}, 405, 'methodNotAllowed', /delete/i],
  ];

  test.each(cases)('%s (%s %s)', async (_, method, path, init, status, kind, detail) => {
    const response = await send(method, path, init);
    // Outside the contract's operations the checker asks for a Problem; inside, the documented one.
    await expectConforming(method, path, response);
    const problem: Problem = await expectProblem(response, status, problemTypes[kind].type, path);
    expect(problem.title.length).toBeGreaterThan(0);
    expect(problem.detail).toMatch(detail);
    expect(problem.errors).toBeUndefined();
  });

  test('405 says which methods the path has', async () => {
    const response = await send('DELETE', '/charge/payment-link');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  test('a malformed Idempotency-Key is named as the header it is', async () => {
    const response = await send('POST', '/charge/payment-link', {
      body: JSON.stringify(example('PaymentLinkCreateWithTotal')),
      headers: { 'Idempotency-Key': '"a b' },
    });
    await expectConforming('POST', '/charge/payment-link', response);
    const problem = await expectProblem(response, 422, problemTypes.validation.type, '/charge/payment-link');
    expect(problem.errors).toEqual([expect.objectContaining({ header: 'Idempotency-Key', keyword: 'pattern' })]);
    expect(problem.detail).toContain('header Idempotency-Key');
  });

  test('a forced documented problem is still served as the contract example', async () => {
    const response = await send('GET', CHARGE, { headers: { Prefer: 'code=404, example=notFound' } });
    await expectConforming('GET', CHARGE, response);
    const examples = (contract.components as JsonObject).examples as Record<string, { value: unknown }>;
    expect(await response.json()).toEqual(examples.ProblemChargeNotFound!.value);
  });
});

describe('no header claims state the mock does not keep', () => {
  test('a first POST with an Idempotency-Key is not reported as a replay', async () => {
    const response = await send('POST', '/charge/payment-link', {
      body: JSON.stringify(example('PaymentLinkCreateWithTotal')),
      headers: { 'Idempotency-Key': `first-${Date.now()}` },
    });
    expect(response.status).toBe(201);
    await expectConforming('POST', '/charge/payment-link', response);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    // Location names the example's id: documented, and said so in the README.
    expect(response.headers.get('location')).toMatch(/^\/charge\/char_/);
  });

  test('nor when a response is forced with Prefer', async () => {
    const response = await send('POST', '/charge/payment-link', {
      body: JSON.stringify(example('PaymentLinkCreateWithTotal')),
      headers: { 'Idempotency-Key': 'forced', Prefer: 'code=201' },
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
  });
});

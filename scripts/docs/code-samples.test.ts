import { describe, expect, test } from 'vitest';
import { listOperations, loadBundledContract } from '../../lib/contract/bundled.js';
import { curlSample, idVariables, shellName, successStatus, typescriptSample } from './code-samples.js';

const contract = loadBundledContract();
const operations = listOperations(contract);
const op = (id: string) => operations.find((o) => o.operationId === id)!;

describe('curlSample', () => {
  const cases: Array<[string, { given: string; want: { first: string; has: string[]; hasNot: string[] } }]> = [
    [
      'a GET: no -X, no body, the id as a variable',
      {
        given: 'getCharge',
        want: {
          first: 'curl -i "$BASE_URL/charge/$CHARGE_ID" \\',
          has: ['-H "X-API-KEY: $API_KEY"'],
          hasNot: ['-X', 'Content-Type', '--data', 'Idempotency-Key'],
        },
      },
    ],
    [
      'a POST with a body: no -X, the Idempotency-Key it takes, ids in the body as variables',
      {
        given: 'createPaymentLink',
        want: {
          first: 'curl -i "$BASE_URL/charge/payment-link" \\',
          has: [
            "-H 'Idempotency-Key: 8e03978e-40d5-43e8-bc93-6894a57f9324'",
            "-H 'Content-Type: application/json'",
            '--data @- <<JSON',
            '"productId": "$PRODUCT_ID"',
          ],
          hasNot: ['-X', 'prod_'],
        },
      },
    ],
    [
      'a POST without a body: -X POST, no Content-Type',
      {
        given: 'simulateExpiration',
        want: { first: 'curl -i -X POST "$BASE_URL/charge/$CHARGE_ID/simulate-expiration" \\', has: [], hasNot: ['Content-Type', '--data'] },
      },
    ],
    ['a DELETE', { given: 'deleteWebhook', want: { first: 'curl -i -X DELETE "$BASE_URL/webhook/$WEBHOOK_ID" \\', has: [], hasNot: ['--data'] } }],
    [
      'a PUT on the other base URL, its id in the body',
      {
        given: 'updateSubscription',
        want: { first: 'curl -i -X PUT "$BASE_URL_ALT/subscription" \\', has: ['"id": "$SUBSCRIPTION_ID"'], hasNot: ['Idempotency-Key'] },
      },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const sample = curlSample(contract, op(given));
    expect(sample.split('\n')[0]).toBe(want.first);
    for (const text of want.has) expect(sample).toContain(text);
    for (const text of want.hasNot) expect(sample).not.toContain(text);
  });

  test('only the operations that take an Idempotency-Key send one', () => {
    const takers = operations.filter((o) => curlSample(contract, o).includes('Idempotency-Key')).map((o) => o.operationId);
    expect(takers).toEqual(['createPaymentLink']);
  });
});

describe('typescriptSample', () => {
  test.each([
    ['createPaymentLink', "await pix.base.POST('/charge/payment-link', {"],
    ['createProduct', "await pix.alt.POST('/product', {"],
    ['getOrder', "params: { path: { id: 'ordr_"],
  ])('%s', (id, want) => {
    expect(typescriptSample(contract, op(id))).toContain(want);
  });
});

test.each([
  ['base_url_alt', 'BASE_URL_ALT'],
  ['ProductId', 'PRODUCT_ID'],
  ['CheckoutPreferencesId', 'CHECKOUT_PREFERENCES_ID'],
])('shellName(%s) is %s', (given, want) => {
  expect(shellName(given)).toBe(want);
});

test("idVariables come from the contract's id schemas", () => {
  const names = idVariables(contract).map((id) => id.variable);
  expect(names).toEqual(expect.arrayContaining(['CHARGE_ID', 'CLIENT_ID', 'PRODUCT_ID', 'ORDER_ID', 'SUBSCRIPTION_ID', 'WEBHOOK_ID']));
});

test('successStatus is the 2xx the operation documents', () => {
  expect([successStatus(op('createPaymentLink')), successStatus(op('getCharge')), successStatus(op('deleteWebhook'))]).toEqual([201, 200, 204]);
});

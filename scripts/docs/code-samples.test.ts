/**
 * @operation-wide: it enumerates the contract's operations (the docs samples), so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { listOperations, loadBundledContract, takesIdempotencyKey } from '../../lib/contract/bundled.js';
import { linkedIdExpression, listLinks } from '../../lib/contract/links.js';
import { captureOf, curlSample, idVariables, shellName, successStatus, typescriptSample } from './code-samples.js';

const contract = loadBundledContract();
const operations = listOperations(contract);
const op = (id: string) => operations.find((o) => o.operationId === id)!;

describe('curlSample', () => {
  const cases: Array<[string, { given: string; want: { first: string; has: string[]; hasNot: string[] } }]> = [
    [
      'a GET: no -X, no body, the id as a variable, and where it comes from',
      {
        given: 'getCharge',
        want: {
          first: '# $CHARGE_ID comes from the "Create a payment link" sample above.',
          has: ['curl -i -w \'\\n\' "$PIX_BASE_URL/charge/$CHARGE_ID" \\', '-H "X-API-KEY: $PIX_API_KEY"'],
          hasNot: ['-X', 'Content-Type', '--data', 'Idempotency-Key', 'char_'],
        },
      },
    ],
    [
      'a create: a new Idempotency-Key, ids in the body as variables, the new id kept from the answer',
      {
        given: 'createPaymentLink',
        want: {
          first: '# $PRODUCT_ID comes from the "Create a product" sample above.',
          has: [
            "IDEMPOTENCY_KEY=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')",
            '-H "Idempotency-Key: $IDEMPOTENCY_KEY"',
            'the same key and body (a retry), it answers',
            'RESPONSE=$(curl -sS -i "$PIX_BASE_URL/charge/payment-link" \\',
            '--data @- <<JSON',
            "CHARGE_ID=$(printf '%s\\n' \"$RESPONSE\" | tr -d '\\r' | sed '1,/^$/d' | jq -r '.data.id')",
            '"productId": "$PRODUCT_ID"',
            'echo "CHARGE_ID=$CHARGE_ID"',
          ],
          hasNot: ['-X', 'prod_', '8e03978e', '/dev/stderr'],
        },
      },
    ],
    [
      'a POST without a body: -X POST, no Content-Type',
      {
        given: 'simulateExpiration',
        want: {
          first: '# $CHARGE_ID comes from the "Create a payment link" sample above.',
          has: ['curl -i -w \'\\n\' -X POST "$PIX_BASE_URL/charge/$CHARGE_ID/simulate-expiration" \\'],
          hasNot: ['Content-Type', '--data'],
        },
      },
    ],
    [
      'a DELETE',
      {
        given: 'deleteWebhook',
        want: {
          first: '# $WEBHOOK_ID comes from the "Register a webhook" sample above.',
          has: ['curl -i -w \'\\n\' -X DELETE "$PIX_BASE_URL/webhook/$WEBHOOK_ID" \\'],
          hasNot: ['--data'],
        },
      },
    ],
    [
      'a PUT on the other base URL, its id in the body',
      {
        given: 'updateSubscription',
        want: {
          first: '# $SUBSCRIPTION_ID comes from the "Create a subscription" sample above.',
          has: ['curl -i -w \'\\n\' -X PUT "$PIX_BASE_URL_ALT/subscription" \\', '"id": "$SUBSCRIPTION_ID"'],
          hasNot: ['Idempotency-Key'],
        },
      },
    ],
    [
      'a create that reads nothing: the id kept, no comment on ids it reads',
      {
        given: 'createClient',
        want: {
          first: '# CLIENT_ID: the id of the new client (.id of the answer), for the samples after this one.',
          has: [
            'RESPONSE=$(curl -sS -i "$PIX_BASE_URL_ALT/client" \\',
            "CLIENT_ID=$(printf '%s\\n' \"$RESPONSE\" | tr -d '\\r' | sed '1,/^$/d' | jq -r '.id')",
          ],
          hasNot: ['comes from'],
        },
      },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const sample = curlSample(contract, op(given));
    expect(sample.split('\n')[0]).toBe(want.first);
    for (const text of want.has) expect(sample).toContain(text);
    for (const text of want.hasNot) expect(sample).not.toContain(text);
  });

  // Properties of the contract's operations, not a roster: a new operation changes no line here.
  test('exactly the operations whose parameters take an Idempotency-Key send one', () => {
    const takers = operations.filter((o) => curlSample(contract, o).includes('Idempotency-Key')).map((o) => o.operationId);
    const declared = operations.filter((o) => takesIdempotencyKey(contract, o)).map((o) => o.operationId);
    expect(takers).toEqual(declared);
    expect(takers).toContain('createPaymentLink');
  });

  test('the operations whose links name the record they made keep its id, by its kind; nothing else keeps one', () => {
    const links = listLinks(contract);
    const naming = operations
      .filter((o) => linkedIdExpression(links.filter((l) => l.source.operationId === o.operationId))?.startsWith('$response.body#/'))
      .map((o) => o.operationId);
    const kept = operations.filter((o) => captureOf(contract, o) !== undefined).map((o) => o.operationId);
    expect(kept).toEqual(naming);
    expect(captureOf(contract, op('createPaymentLink'))).toMatchObject({ variable: 'CHARGE_ID', pointer: '/data/id' });
    expect(captureOf(contract, op('createClient'))).toMatchObject({ variable: 'CLIENT_ID', pointer: '/id' });
    expect(captureOf(contract, op('getCharge'))).toBeUndefined();
  });
});

describe('typescriptSample', () => {
  test.each([
    [
      'createPaymentLink',
      [
        "await pix.base.POST('/charge/payment-link', {",
        "params: { header: { 'Idempotency-Key': randomUUID() } }",
        'productId: PRODUCT_ID,',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's template literal, as text.
        'console.log(`export CHARGE_ID=${data.data.id}`);',
      ],
    ],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the sample's template literal, as text.
    ['createProduct', ["await pix.alt.POST('/product', {", 'console.log(`export PRODUCT_ID=${data.id}`);']],
    [
      'getOrder',
      ['const { PIX_API_KEY, ORDER_ID } = process.env;', 'params: { path: { id: ORDER_ID } }', "if (!ORDER_ID) throw new Error('set ORDER_ID first');"],
    ],
  ])('%s', (id, want) => {
    const sample = typescriptSample(contract, op(id));
    for (const text of want) expect(sample).toContain(text);
    expect(sample).not.toMatch(/(char|prod|ordr)_[a-z0-9]{6}/);
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

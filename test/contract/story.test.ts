/**
 * One story through every example of the bundled contract (story.ts): the same records wherever
 * they appear, ids that name records of the examples, the first request example of each
 * operation agreeing with the record its answer shows, sums that hold, answers of an
 * `{id}` path naming that id, and deliveries of events their registration subscribed to. The
 * docs' samples send these examples in page order against a fresh company
 * (test/docs/samples-story.test.ts); here they are checked as data. Each check is first shown to
 * fail on a small broken world.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { idKinds } from '../../lib/contract/ids.js';
import { loadContract } from './support.js';
import {
  answersNameOtherIds,
  copiesDisagree,
  danglingIds,
  type ExampleUse,
  eventsThatFail,
  requestsDisagree,
  type StoryOperation,
  sumsThatFail,
  type World,
  worldOf,
} from './story.js';

const kinds = idKinds({
  components: {
    schemas: Object.fromEntries(
      ['prod', 'ordr', 'char', 'wbhk', 'clnt'].map((prefix, i) => [
        ['ProductId', 'OrderId', 'ChargeId', 'WebhookId', 'ClientId'][i],
        { pattern: `^${prefix}_[a-z][0-9a-z]{1,31}$` },
      ]),
    ),
  },
});
const product = { id: 'prod_a1', name: 'Café', price: 64.95, status: 'ACTIVE' };
const order = {
  id: 'ordr_a1',
  subtotal: 129.9,
  discount: 0,
  shippingCost: 9.9,
  total: 139.8,
  orderItems: [{ productId: 'prod_a1', quantity: 2 }],
  sales: { orderId: 'ordr_a1', value: 139.8, checkoutFee: 1.4, gatewayFee: 1.38, totalValue: 137.02 },
};
const charge = { id: 'char_a1', total: 12990, url: 'https://pay.example.com/pay/char_a1', items: [{ productId: 'prod_a1', quantity: 2, product }] };
const webhook = { id: 'wbhk_a1', events: ['charge.paid'], status: 'ACTIVE' };
const delivery = { id: 'dlvr_a1', eventId: 'msg_a1', eventType: 'charge.paid', webhookId: 'wbhk_a1' };
const answer = (operationId: string, value: unknown, extra: Partial<ExampleUse> = {}): ExampleUse => ({
  where: `${operationId} answer`,
  value,
  role: 'response',
  operationId,
  first: true,
  ...extra,
});
/** A world that holds together, made anew (each record a copy of its own) for each case, which breaks one thing of it. */
const good = (): World => ({
  kinds,
  operations: [
    { operationId: 'getProduct', pathIds: [{ name: 'id', kind: kinds[0]!, example: 'prod_a1' }] },
    { operationId: 'receiveEvent', pathIds: [] },
  ] satisfies StoryOperation[],
  uses: [
    { where: 'createProduct request', value: { name: 'Café', price: 64.95 }, role: 'request', operationId: 'createProduct', first: true },
    answer('createProduct', { ...product }, { status: '201' }),
    answer('getProduct', { ...product }),
    answer('getProduct', { status: 404, detail: 'No product with id prod_a1 exists.' }, { error: true, first: false }),
    answer('createOrder', order, { status: '201' }),
    answer('createPaymentLink', { status: 201, data: { id: 'char_a1', total: 12990 } }, { status: '201' }),
    answer('getCharge', { status: 200, data: charge }),
    answer('createWebhook', { ...webhook }, { status: '201' }),
    answer('getWebhook', webhook),
    answer('listDeliveries', [delivery]),
    { where: 'receiveEvent header', value: 'msg_a1', role: 'header', operationId: 'receiveEvent', name: 'webhook-id' },
    { where: 'receiveEvent request', value: { type: 'charge.paid', data: { id: 'char_a1' } }, role: 'request', operationId: 'receiveEvent', first: true },
  ],
});
const changed = (edit: (world: World) => void): World => {
  const world = structuredClone(good());
  edit(world);
  return world;
};
const exampleAt = (world: World, where: string) => world.uses.find((u) => u.where === where)!.value as Record<string, unknown>;

type Check = (world: World) => string[];
const checks: Record<string, Check> = {
  copiesDisagree,
  danglingIds,
  requestsDisagree,
  sums: (world) => sumsThatFail(world).found,
  answersNameOtherIds,
  events: (world) => eventsThatFail(world).found,
};

describe('the checks (self-check on a small world)', () => {
  test.each(Object.entries(checks))('%s finds nothing wrong in a world that holds together', (_name, check) => {
    expect(check(good())).toEqual([]);
  });

  const cases: Array<[string, { given: World; check: keyof typeof checks; want: RegExp }]> = [
    [
      'a copy of the product at another price',
      {
        given: changed((w) => Object.assign(exampleAt(w, 'getProduct answer'), { price: 89.9 })),
        check: 'copiesDisagree',
        want: /prod_a1 .*\/price: 64\.95 ≠ 89\.9/,
      },
    ],
    [
      'an order naming a product no example shows',
      {
        given: changed((w) => {
          (exampleAt(w, 'createOrder answer').orderItems as Array<{ productId: string }>)[0]!.productId = 'prod_zz';
        }),
        check: 'danglingIds',
        want: /createOrder answer names prod_zz, and no create example answers that product/,
      },
    ],
    [
      'an order naming a product an answer shows, but no create example made (the order sample would name a product the reader has not)',
      {
        given: changed((w) => {
          (exampleAt(w, 'createOrder answer').orderItems as Array<{ productId: string }>)[0]!.productId = 'prod_b2';
          w.uses.push(answer('getProduct', { ...product, id: 'prod_b2' }, { first: false }));
        }),
        check: 'danglingIds',
        want: /createOrder answer names prod_b2, and no create example answers that product/,
      },
    ],
    [
      'an update naming a record no example made',
      {
        given: changed((w) => w.uses.push({ where: 'updateWebhook request', value: { id: 'wbhk_b2' }, role: 'request', operationId: 'updateWebhook' })),
        check: 'danglingIds',
        want: /updateWebhook request names wbhk_b2/,
      },
    ],
    [
      'an id inside a URL that names no record',
      {
        given: changed((w) => {
          (exampleAt(w, 'getCharge answer').data as { url: string }).url = 'https://pay.example.com/pay/char_zz';
        }),
        check: 'danglingIds',
        want: /names char_zz/,
      },
    ],
    [
      'a create request whose price is not the created record’s',
      {
        given: changed((w) => Object.assign(exampleAt(w, 'createProduct request'), { price: 89.9 })),
        check: 'requestsDisagree',
        want: /createProduct request and the prod_a1 .*\/price: 89\.9 ≠ 64\.95/,
      },
    ],
    [
      'an order subtotal that is not its items at their prices (129.90 for two at 89.90)',
      {
        given: changed((w) => {
          const product = exampleAt(w, 'createProduct answer');
          product.price = 89.9;
          Object.assign(exampleAt(w, 'getProduct answer'), { price: 89.9 });
          Object.assign(exampleAt(w, 'getCharge answer'), { data: { ...charge, items: [] } });
        }),
        check: 'sums',
        want: /subtotal 129\.9 ≠ Σ price × quantity = 179\.8/,
      },
    ],
    [
      'an order total that does not add up',
      { given: changed((w) => Object.assign(exampleAt(w, 'createOrder answer'), { total: 140 })), check: 'sums', want: /total 140 ≠/ },
    ],
    [
      'a charge total that is not its items',
      {
        given: changed((w) => Object.assign((exampleAt(w, 'getCharge answer') as { data: object }).data, { total: 5000 })),
        check: 'sums',
        want: /total 5000 cents ≠ Σ price × quantity = 12990 cents/,
      },
    ],
    [
      'a sale whose fees do not leave its net value',
      {
        given: changed((w) => Object.assign(exampleAt(w, 'createOrder answer').sales as object, { totalValue: 139.8 })),
        check: 'sums',
        want: /totalValue 139\.8 ≠ value − checkoutFee − gatewayFee = 137\.02/,
      },
    ],
    [
      'a 404 of /product/{id} naming another product than the path’s',
      {
        given: changed((w) => {
          w.uses[3]!.value = { status: 404, detail: 'No product with id prod_b2 exists.' };
        }),
        check: 'answersNameOtherIds',
        want: /names prod_b2, not the path's prod_a1/,
      },
    ],
    [
      'a delivery of an event its registration did not subscribe to',
      {
        given: changed((w) => Object.assign(exampleAt(w, 'createWebhook answer'), { events: ['charge.expired'] })),
        check: 'events',
        want: /charge\.paid is not an event wbhk_a1 subscribed to/,
      },
    ],
    [
      'a delivery whose event is another type than the event example with that id',
      {
        given: changed((w) => Object.assign(exampleAt(w, 'receiveEvent request'), { type: 'charge.expired' })),
        check: 'events',
        want: /event msg_a1 is charge\.paid, its example body .* is charge\.expired/,
      },
    ],
  ];
  test.each(cases)('finds %s', (_name, { given, check, want }) => {
    expect(checks[check]!(given).join('\n')).toMatch(want);
  });
});

const bundled = loadContract();
const world = bundled.value ? worldOf(bundled.value) : { kinds: [], operations: [], uses: [] };

describe('the examples of generated/openapi.yaml tell one story', () => {
  test('the contract loads, and its examples name records of every kind of id', () => {
    expect(bundled.error).toBeUndefined();
    expect(world.uses.length).toBeGreaterThan(50);
    expect(world.kinds.map((k) => k.schema)).toEqual(expect.arrayContaining(['ChargeId', 'ClientId', 'ProductId', 'OrderId', 'SubscriptionId', 'WebhookId']));
    expect(world.operations.filter((op) => op.pathIds.length > 0).length).toBeGreaterThan(5);
  });

  test('every copy of a record agrees with its others (but for its state and the time it changed)', () => {
    expect(copiesDisagree(world)).toEqual([]);
  });

  test('every id an example names is a record the examples show', () => {
    expect(danglingIds(world)).toEqual([]);
  });

  test("each operation's first request example is what its first answer example holds", () => {
    expect(requestsDisagree(world)).toEqual([]);
  });

  test('the sums hold: order amounts, items at their prices, charge totals, sales', () => {
    const { checked, found } = sumsThatFail(world);
    expect(found).toEqual([]);
    expect(checked).toBeGreaterThan(5);
  });

  test("an answer of an operation with an id in its path names that path's id", () => {
    expect(answersNameOtherIds(world)).toEqual([]);
  });

  test('deliveries are of events their registration subscribed to, and of the type the event example with that id has', () => {
    const { checked, found } = eventsThatFail(world);
    expect(found).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(3);
  });
});

/**
 * compareRecord, the one comparison of values the suite makes (sent equals kept), on the
 * contract's own schemas: what it reports as different and how the finding says it.
 */
import { describe, expect, test } from 'vitest';
import { loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { compareRecord, describeDifference, otherNames, type CompareOptions, type Difference } from './round-trip.js';

const contract = loadBundledContract();
const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** A payment link as sent (PaymentLinkCreate) and the charge read back (Charge). */
const sentLink: JsonObject = {
  items: [{ productId: 'prod_a1', quantity: 2 }],
  customer: { name: 'Maria', taxId: '52998224725', email: 'maria@example.com', phone: '11987654321', postalCode: '01310100' },
  successUrl: 'https://shop.example.com/obrigado',
  failedUrl: 'https://shop.example.com/pagamento-falhou',
  notifyCustomer: false,
  devMode: true,
  externalId: 'pedido-2026-000123-conf1234abcd',
};
const charge: JsonObject = {
  id: 'char_x1',
  total: 1000,
  status: 'OPEN',
  items: [{ productId: 'prod_a1', companyId: 'comp_c1', quantity: 2, product: { id: 'prod_a1' } }],
  customer: { name: 'Maria', taxId: '52998224725', email: 'maria@example.com', phone: '11987654321' },
  successUrl: 'https://shop.example.com/obrigado',
  failedUrl: 'https://shop.example.com/pagamento-falhou',
  devMode: true,
  needShipping: false,
  externalId: 'pedido-2026-000123-conf1234abcd',
  createdAt: '2026-11-21T14:30:00.000Z',
};
const asCharge: CompareOptions = { readSchema: schema('Charge'), sentSchema: schema('PaymentLinkCreate'), identity: 'id' };

describe('compareRecord: each field sent that the read declares reads back equal', () => {
  const cases: Array<[string, { given: { sent?: JsonObject; read: JsonObject; options?: CompareOptions }; want: Difference[] }]> = [
    ['equal: every field sent reads back as sent', { given: { read: charge }, want: [] }],
    [
      'swapped: two fields stored the wrong way round, each naming the other',
      {
        given: { read: { ...charge, successUrl: charge.failedUrl, failedUrl: charge.successUrl } },
        want: [
          { field: 'successUrl', want: sentLink.successUrl, got: sentLink.failedUrl, decision: undefined, swappedWith: 'failedUrl' },
          { field: 'failedUrl', want: sentLink.failedUrl, got: sentLink.successUrl, decision: undefined, swappedWith: 'successUrl' },
        ],
      },
    ],
    [
      'truncated: a value cut short',
      {
        given: { read: { ...charge, customer: { ...(charge.customer as JsonObject), name: 'Mar' } } },
        want: [{ field: 'customer.name', want: 'Maria', got: 'Mar', decision: undefined }],
      },
    ],
    [
      'a field the read marks as a decision as a whole (Charge.externalId, D21), missing: the difference names the decision',
      {
        given: { read: { ...charge, externalId: undefined } },
        want: [{ field: 'externalId', want: sentLink.externalId, got: undefined, decision: 'D21' }],
      },
    ],
    [
      'the same field read with another value: data lost, naming no decision (D21 decides its presence, not its value)',
      {
        given: { read: { ...charge, externalId: 'pedido-2026' } },
        want: [{ field: 'externalId', want: sentLink.externalId, got: 'pedido-2026' }],
      },
    ],
    [
      'normalised by a decision (D46): a tax number and a phone sent punctuated read back as digits, or punctuated another way',
      {
        given: {
          sent: { ...sentLink, customer: { ...(sentLink.customer as JsonObject), taxId: '529.982.247-25', phone: '+55 11 98765-4321' } },
          read: { ...charge, customer: { ...(charge.customer as JsonObject), phone: '(11) 98765-4321' } },
        },
        want: [],
      },
    ],
    [
      'normalised, but another number',
      {
        given: {
          sent: { ...sentLink, customer: { ...(sentLink.customer as JsonObject), taxId: '529.982.247-25' } },
          read: { ...charge, customer: { ...(charge.customer as JsonObject), taxId: '11144477735' } },
        },
        want: [{ field: 'customer.taxId', want: '529.982.247-25', got: '11144477735', decision: undefined }],
      },
    ],
    [
      'a field the read does not declare is not compared, whatever it shows (notifyCustomer; the customer’s postalCode)',
      { given: { read: { ...charge, notifyCustomer: true, customer: { ...(charge.customer as JsonObject), postalCode: '99999999' } } }, want: [] },
    ],
    [
      'a server default: a field not sent is not expected, whatever the read shows',
      {
        given: {
          sent: { name: 'Café', description: 'x', price: 10, sku: 'S', displayId: '1' },
          read: { name: 'Café', description: 'x', price: 10, sku: 'S', displayId: '1', status: 'ACTIVE', isSubscription: false },
          options: { readSchema: schema('Product'), sentSchema: schema('ProductCreate') },
        },
        want: [],
      },
    ],
    [
      'a required field missing from the read',
      {
        given: { sent: { name: 'Café', price: 10 }, read: { price: 10 }, options: { readSchema: schema('Product'), sentSchema: schema('ProductCreate') } },
        want: [{ field: 'name', want: 'Café', got: undefined, decision: undefined }],
      },
    ],
    ['an optional field missing from the read is passed over', { given: { read: { ...charge, successUrl: undefined } }, want: [] }],
    [
      'items compared one by one: another quantity',
      {
        given: { read: { ...charge, items: [{ ...(charge.items as JsonObject[])[0], quantity: 1 }] } },
        want: [{ field: 'items[0].quantity', want: 2, got: 1, decision: undefined }],
      },
    ],
    [
      'a set (uniqueItems) in another order is the same set; a member lost is not',
      {
        given: {
          sent: { url: 'https://h.example.com', name: 'n', events: ['charge.paid', 'charge.expired'] },
          read: { url: 'https://h.example.com', name: 'n', events: ['charge.expired'] },
          options: { readSchema: schema('Webhook'), sentSchema: schema('WebhookCreate') },
        },
        want: [{ field: 'events', want: ['charge.paid', 'charge.expired'], got: ['charge.expired'], decision: undefined }],
      },
    ],
    [
      'an enumerated value swapped for another of the enum is a difference; one outside the enum is the schema check’s',
      {
        given: {
          sent: { productId: 'prod_a', period: 'MONTHLY', price: 10, trialDays: 0, status: 'PENDING' },
          read: { productId: 'prod_a', period: 'WEEKLY', price: 10, trialDays: 0, status: 'waiting' },
          options: { readSchema: schema('Subscription'), sentSchema: schema('SubscriptionCreate') },
        },
        want: [{ field: 'period', want: 'MONTHLY', got: 'WEEKLY', decision: undefined }],
      },
    ],
    [
      'timestamps are instants: another offset for the same instant is equal',
      {
        given: {
          sent: { productId: 'prod_a', period: 'MONTHLY', price: 10, trialDays: 0, expiresAt: '2026-11-21T14:30:00.000Z' },
          read: { productId: 'prod_a', period: 'MONTHLY', price: 10, trialDays: 0, expiresAt: '2026-11-21T11:30:00.000-03:00' },
          options: { readSchema: schema('Subscription'), sentSchema: schema('SubscriptionCreate') },
        },
        want: [],
      },
    ],
    [
      'a field read under the name the read gives it (seed §2.4: cpfCnpj sent, taxId in the list form)',
      {
        given: {
          sent: { name: 'Maria', cpfCnpj: '529.982.247-25', email: 'm@example.com' },
          read: { name: 'Maria', taxId: '52998224726', email: 'm@example.com' },
          options: { readSchema: schema('Client'), sentSchema: schema('ClientCreate') },
        },
        want: [{ field: 'taxId', want: '529.982.247-25', got: '52998224726', decision: undefined }],
      },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const read = Object.fromEntries(Object.entries(given.read).filter(([, v]) => v !== undefined));
    expect(compareRecord(contract, given.sent ?? sentLink, read, given.options ?? asCharge).differences).toEqual(want);
  });

  test('the fields compared are the ones sent that the read declares', () => {
    expect(compareRecord(contract, sentLink, charge, asCharge).compared).toEqual(['items', 'customer', 'successUrl', 'failedUrl', 'devMode', 'externalId']);
  });
});

describe("otherNames: the names a record's other forms give its fields, from the contract's x-also-named", () => {
  test('the list form of a client reads the cpfCnpj sent as its taxId, and compares it so', () => {
    expect([...otherNames(contract, schema('Client'))]).toEqual([['cpfCnpj', 'taxId']]);
    const compared = compareRecord(
      contract,
      { cpfCnpj: '529.982.247-25', name: 'Maria' },
      { taxId: '52998224725', name: 'Maria' },
      {
        readSchema: schema('Client'),
        sentSchema: schema('ClientCreate'),
      },
    );
    expect(compared).toEqual({ differences: [], compared: ['taxId', 'name'] });
  });

  test("an order reads the items sent as its orderItems: each line's productId and quantity, in order", () => {
    expect([...otherNames(contract, schema('Order'))]).toEqual([['items', 'orderItems']]);
    const line = (productId: string, quantity: number) => ({ id: 'oitm_x', productId, quantity, product: { id: productId } });
    const sent = {
      items: [
        { productId: 'prod_a', quantity: 2 },
        { productId: 'prod_b', quantity: 3 },
      ],
      subtotal: 10,
    };
    const kept = compareRecord(contract, sent, { orderItems: [line('prod_a', 2), line('prod_b', 3)], subtotal: 10 }, { readSchema: schema('Order') });
    expect(kept).toEqual({ differences: [], compared: ['orderItems', 'subtotal'] });
    const dropped = compareRecord(contract, sent, { orderItems: [line('prod_a', 1), line('prod_b', 3)], subtotal: 10 }, { readSchema: schema('Order') });
    expect(dropped.differences).toEqual([{ field: 'orderItems[0].quantity', want: 2, got: 1 }]);
  });

  test('without the mark the field is not looked for under another name', () => {
    const unmarked = structuredClone(contract);
    const client = (unmarked.components as { schemas: Record<string, { properties: Record<string, JsonObject> }> }).schemas.Client!;
    delete client.properties.taxId!['x-also-named'];
    expect([...otherNames(unmarked, schema('Client'))]).toEqual([]);
    expect(compareRecord(unmarked, { cpfCnpj: '52998224725' }, { taxId: '11144477735' }, { readSchema: schema('Client') }).differences).toEqual([]);
  });
});

describe('describeDifference: the field, the value read and the value expected', () => {
  const cases: Array<[string, { given: Difference; want: string }]> = [
    ['another value', { given: { field: 'total', want: 1000, got: 1100 }, want: '`total` reads 1100, sent 1000' }],
    [
      'a swap names the other field',
      {
        given: { field: 'successUrl', want: 'https://a', got: 'https://b', swappedWith: 'failedUrl' },
        want: '`successUrl` reads "https://b" (the value sent as `failedUrl`), sent "https://a"',
      },
    ],
    [
      'a cut value says how much is left',
      {
        given: { field: 'externalId', want: 'pedido-2026-000123', got: 'pedido-2026' },
        want: '`externalId` reads "pedido-2026", the first 11 of the 18 characters sent "pedido-2026-000123"',
      },
    ],
    ['a missing field', { given: { field: 'name', want: 'Maria', got: undefined }, want: 'the read lacks `name` (sent "Maria")' }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(describeDifference(given, 'sent')).toBe(want);
  });
});

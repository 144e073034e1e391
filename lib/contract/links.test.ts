/**
 * The relations between operations come from the contract's links: the table built from the
 * contract holds the seed's relations and reaches every operation that names a record by id (an
 * operation added with its link needs no edit here), and a link added to a copy of the contract
 * is followed by the conformance suite with no change in conformance/.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { listOperations, loadBundledContract, type JsonObject } from './bundled.js';
import { linkedFields, linkedIdExpression, linkParameters, linkRole, linkedIdOf, listLinks, resolveLinkValue } from './links.js';

const contract = loadBundledContract();

describe('the relation table of the contract', () => {
  const table = listLinks(contract).map((l) => `${l.source.operationId} ${l.status} → ${l.target.operationId} (${linkRole(l)})`);

  test("holds the seed's relations", () => {
    expect(table).toEqual(
      expect.arrayContaining([
        'createPaymentLink 201 → getCharge (read)',
        'createClient 201 → listClients (list)',
        'createClient 201 → createPaymentLink (use)',
        'createProduct 201 → createPaymentLink (use)',
        'createProduct 201 → createSubscription (use)',
        'createClient 201 → createOrder (use)',
        'createSubscription 201 → updateSubscription (change)',
      ]),
    );
  });

  test('reaches every operation that names a record by id from the create that made it', () => {
    const byId = listOperations(contract).filter((op) => op.path.includes('{'));
    expect(byId.length).toBeGreaterThanOrEqual(7);
    const unreached = byId.filter((op) => !listLinks(contract).some((l) => l.target.operationId === op.operationId && l.source.method === 'post'));
    expect(
      unreached.map((op) => op.operationId),
      'operations with a path id that no link from a create reaches: add a link',
    ).toEqual([]);
  });

  test('names each relation once', () => {
    expect(new Set(table).size).toBe(table.length);
  });

  test('every link names parameters the target has, and a body only where the target takes one', () => {
    for (const link of listLinks(contract)) {
      const pathNames = [...link.target.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      expect(Object.keys(link.parameters).sort(), link.name).toEqual(pathNames.sort());
      if (link.requestBody !== undefined) expect(link.target.operation.requestBody, link.name).toBeDefined();
    }
  });
});

describe('runtime expressions', () => {
  const envelope = { status: 201, data: { id: 'char_1', total: 500 } };
  test.each<[string, unknown, unknown, unknown]>([
    ['a whole expression into an envelope', '$response.body#/data/id', envelope, 'char_1'],
    ['a whole expression keeps the type', '$response.body#/data/total', envelope, 500],
    ['an embedded expression', 'charge {$response.body#/data/id}', envelope, 'charge char_1'],
    ['a lone embedded expression keeps the type', '{$response.body#/data/total}', envelope, 500],
    ['an object with expressions and literals', { id: '{$response.body#/id}', status: 'ACTIVE' }, { id: 'subs_1' }, { id: 'subs_1', status: 'ACTIVE' }],
    ['an array of objects', [{ productId: '{$response.body#/id}', quantity: 1 }], { id: 'prod_1' }, [{ productId: 'prod_1', quantity: 1 }]],
    ['a missing value is undefined', { id: '{$response.body#/nothing}' }, { id: 'x' }, undefined],
  ])('%s', (_name, value, body, want) => {
    expect(resolveLinkValue(value, body)).toEqual(want);
  });

  test('parameters and the created id come from the links', () => {
    const links = listLinks(contract).filter((l) => l.source.operationId === 'createPaymentLink');
    expect(linkParameters(links[0]!, envelope)).toEqual({ id: 'char_1' });
    expect(linkedIdOf(links, envelope)).toBe('char_1');
    expect(linkParameters(links[0]!, { data: {} })).toBeUndefined();
  });

  test.each([
    ['a path parameter of the first link', 'createPaymentLink', '$response.body#/data/id'],
    ['a request body field, when the first links name none', 'createClient', '$response.body#/id'],
    ['the first link only (not an update link naming the product)', 'createSubscription', '$response.body#/id'],
    ['none for an operation without links', 'getCharge', undefined],
  ])('the expression naming the created record: %s (%s)', (_name, operationId, want) => {
    expect(linkedIdExpression(listLinks(contract).filter((l) => l.source.operationId === operationId))).toBe(want);
  });
});

describe('the body fields a link fills', () => {
  const link = (name: string) => listLinks(contract).find((l) => l.name === name && l.source.operationId === 'createProduct')!;
  test.each<[string, { given: string; want: { fields: unknown; createdWith: unknown } }]>([
    [
      'an array item: every item of the target gets it; the literal quantity is an example',
      {
        given: 'SellInPaymentLink',
        want: { fields: [{ path: ['items', 0, 'productId'], expression: '$response.body#/id' }], createdWith: { isSubscription: false } },
      },
    ],
    [
      'a top-level field, from a product created as a subscription product',
      { given: 'Subscribe', want: { fields: [{ path: ['productId'], expression: '$response.body#/id' }], createdWith: { isSubscription: true } } },
    ],
  ])('%s', (_name, { given, want }) => {
    expect(linkedFields(link(given))).toEqual(want.fields);
    expect(link(given).createdWith).toEqual(want.createdWith);
  });
});

describe('a new link is enough', () => {
  test('a link naming no operation of the contract is an error, not a silent gap', () => {
    const copy = structuredClone(contract) as JsonObject;
    const post = ((copy.paths as JsonObject)['/product'] as JsonObject).post as JsonObject;
    ((post.responses as JsonObject)['201'] as JsonObject).links = { Broken: { operationId: 'noSuchOperation' } };
    expect(() => listLinks(copy)).toThrow(/noSuchOperation/);
  });
});

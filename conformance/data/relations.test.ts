/**
 * The records the run makes, where requests name them and what tenant isolation tries come
 * from the contract's links: the current contract gives the expected relations, and a copy of
 * it with one more operation and its links gets that operation's relations, fixtures, bodies
 * and tenant checks with no change in conformance/.
 *
 * @operation-wide: it enumerates the contract's operations and links (the run's records and relations), so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { listOperations, loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { listLinks } from '../../lib/contract/links.js';
import { tenantOperations } from '../checks/tenants.js';
import { RunContext } from '../engine/context.js';
import { validBodiesWithNotes } from './bodies.js';
import { ContractView } from './contract-view.js';
import { prepareBodies } from './fixtures.js';
import { bodyReferences, forEachAt, pathText, upfrontFixtures } from './relations.js';
import { testRunOptions } from '../test-support/fixtures.js';

const contract = loadBundledContract();

/**
 * The bundled contract plus `POST /coupon` (`createCoupon`, whose body names a product and a
 * client) and `GET /coupon/{id}` (`getCoupon`), linked the way the contract links its own
 * operations: the product and client creates fill the coupon's fields, the coupon create is
 * read by its id.
 */
function withCoupons(): JsonObject {
  const copy = structuredClone(contract);
  const paths = copy.paths as Record<string, JsonObject>;
  const responses = (op: JsonObject) => op.responses as Record<string, JsonObject>;
  const couponSchema = {
    type: 'object',
    additionalProperties: false,
    required: ['code', 'productId'],
    properties: { code: { type: 'string', minLength: 1 }, productId: { type: 'string' }, clientId: { type: 'string' } },
  };
  paths['/coupon'] = {
    post: {
      operationId: 'createCoupon',
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: couponSchema,
            examples: { tenOff: { value: { code: 'TEN', productId: 'prod_examplecoupon000000000', clientId: 'clnt_examplecoupon000000000' } } },
          },
        },
      },
      responses: {
        '201': {
          description: 'The coupon.',
          content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' } } } } },
          links: { ReadCoupon: { operationId: 'getCoupon', parameters: { id: '$response.body#/id' } } },
        },
      },
    },
  };
  paths['/coupon/{id}'] = {
    get: {
      operationId: 'getCoupon',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'The coupon.' } },
    },
  };
  const createdProduct = responses((paths['/product'] as JsonObject).post as JsonObject)['201']!;
  (createdProduct.links as JsonObject).Coupon = {
    operationId: 'createCoupon',
    requestBody: { productId: '{$response.body#/id}' },
    'x-created-with': { isSubscription: false },
  };
  const createdClient = responses((paths['/client'] as JsonObject).post as JsonObject)['201']!;
  (createdClient.links as JsonObject).Coupon = { operationId: 'createCoupon', requestBody: { clientId: '{$response.body#/id}' } };
  return copy;
}

const references = (doc: JsonObject, operationId: string) =>
  bodyReferences(listLinks(doc), operationId).map((r) => `${pathText(r.field.path)} ← ${r.fixture.key}`);

describe('relations of the current contract', () => {
  test.each<[string, { given: string; want: string[] }]>([
    [
      'payment links name a product sold once and a client',
      { given: 'createPaymentLink', want: ['customerId ← createClient', 'items[].productId ← createProduct(isSubscription=false)'] },
    ],
    [
      'subscriptions name a subscription product and a client',
      { given: 'createSubscription', want: ['clientId ← createClient', 'productId ← createProduct(isSubscription=true)'] },
    ],
    [
      'orders name a product sold once and a client',
      { given: 'createOrder', want: ['clientId ← createClient', 'items[].productId ← createProduct(isSubscription=false)'] },
    ],
    [
      'an update names the subscription it changes, keeping its product and client',
      { given: 'updateSubscription', want: ['id ← createSubscription', 'productId ← createSubscription', 'clientId ← createSubscription'] },
    ],
    ['a product names nothing', { given: 'createProduct', want: [] }],
  ])('%s', (_name, { given, want }) => {
    expect(references(contract, given)).toEqual(want);
  });

  test('the records made before the checks, and what tenant isolation tries', () => {
    expect(upfrontFixtures(listLinks(contract)).map((f) => f.key)).toEqual([
      'createClient',
      'createProduct(isSubscription=false)',
      'createProduct(isSubscription=true)',
    ]);
    // Every read by id the contract links from a create, the client list, and every create whose
    // body names another record: what a second company could reach A's records through.
    const tried = tenantOperations(new ContractView(contract));
    const readsById = listOperations(contract).filter((op) => op.method === 'get' && op.path.includes('{'));
    const linkedReads = readsById.filter((op) => listLinks(contract).some((link) => link.target.operationId === op.operationId));
    expect(linkedReads.length).toBeGreaterThanOrEqual(4);
    expect(tried).toEqual(
      expect.arrayContaining([...linkedReads.map((op) => op.operationId), 'listClients', 'createPaymentLink', 'createSubscription', 'createOrder']),
    );
    expect(tried.filter((id) => !listOperations(contract).some((op) => op.operationId === id && ['get', 'post'].includes(op.method)))).toEqual([]);
  });
});

describe('an operation the contract links needs no change in conformance/', () => {
  const doc = withCoupons();

  test.each<[string, { given: () => unknown; want: unknown }]>([
    [
      'its body references',
      { given: () => references(doc, 'createCoupon'), want: ['clientId ← createClient', 'productId ← createProduct(isSubscription=false)'] },
    ],
    [
      'the records made before the checks (no new kind: the coupon shares the product and client)',
      {
        given: () => upfrontFixtures(listLinks(doc)).map((f) => f.key),
        want: ['createClient', 'createProduct(isSubscription=false)', 'createProduct(isSubscription=true)'],
      },
    ],
    [
      'tenant isolation tries its read and its create',
      { given: () => tenantOperations(new ContractView(doc)), want: expect.arrayContaining(['getCoupon', 'createCoupon']) },
    ],
    [
      'the fixture filling a field',
      { given: () => new ContractView(doc).view('createCoupon').fixtureKeyOf('productId'), want: 'createProduct(isSubscription=false)' },
    ],
  ])('%s', (_name, { given, want }) => {
    expect(given()).toEqual(want);
  });

  test("its bodies carry the run's records, and lose a field whose record the run lacks", () => {
    const ctx = new RunContext(testRunOptions({ profile: 'reference', runId: 'confrel1' }), { contract: doc });
    ctx.fixtures.own.set('createProduct(isSubscription=false)', { id: 'prod_runproduct000000000000', body: { id: 'prod_runproduct000000000000' } });
    const { bodies, dropped } = validBodiesWithNotes(ctx, 'createCoupon');
    expect(bodies.length).toBeGreaterThan(0);
    for (const { body } of bodies) {
      const productIds: unknown[] = [];
      forEachAt(body, ['productId'], (holder, key) => productIds.push(holder[key]));
      expect(productIds).toEqual(['prod_runproduct000000000000']);
      expect(body).not.toHaveProperty('clientId');
    }
    expect(dropped.join('\n')).toMatch(/clientId removed, no createClient fixture/);
  });

  test('against a stateless target nothing is prepared: the examples are sent as they are', async () => {
    const ctx = new RunContext(testRunOptions({ profile: 'reference', runId: 'confrel2', stateless: true }), { contract: doc });
    expect(await prepareBodies(ctx, 'createCoupon')).toBeUndefined();
    expect(validBodiesWithNotes(ctx, 'createCoupon').bodies[0]!.body).toEqual({
      code: 'TEN',
      productId: 'prod_examplecoupon000000000',
      clientId: 'clnt_examplecoupon000000000',
    });
  });
});

/**
 * Tenant isolation (D26, D27) across every operation of the contract that names a record by id.
 *
 * Company A creates one of everything through the API (a client, a product, a subscription
 * product, a subscription, two devMode charges — one paid, so the outbox has events — an order
 * and a webhook whose delivery attempts are recorded). Company B then sends, with its own key,
 * every request that names one of A's records: in the path (`/charge/{id}`, `/webhook/{id}`),
 * as the subject in the body (`PUT /subscription` `id`), or as a reference in the body
 * (`customerId`, `productId`, `clientId`, `companyId`). Each must be answered exactly like the
 * same request naming an id that exists nowhere (404 for the subject, 422 naming the field
 * for a reference: nothing about A is revealed), and change nothing: everything of A is read
 * again with A's key, and the whole database file is compared row by row, before and after.
 *
 * The tables are checked against the contract: an operation with an id in its path that no case
 * names gets one derived from the contract (A's record of the path's kind, the operation's request
 * example), and so does a reference at the top of a request body (`productId`: A's product in the
 * operation's request example, 422); a reference deeper in a body (an item's `productId`) that no
 * case covers fails the first tests of this file.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import Database from 'better-sqlite3';
import { everyRow } from '../test-support/sqlite-rows.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { deref, listOperations, loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { listLists } from '../../lib/contract/lists.js';
import { linkRole, listLinks } from '../../lib/contract/links.js';
import { fillPath } from '../../lib/contract/paths.js';
import type { components } from '../../generated/openapi.js';
import {
  clientBody,
  createProduct,
  expectProblem,
  expectValidation,
  read,
  sendJson,
  subscriptionBody,
  unknownId,
  type RawAnswer,
} from '../test-support/fixtures.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { startWebhookWorker } from '../webhooks/worker.js';

type Schemas = components['schemas'];

/** The records of a company that B's requests name; for A they exist, for `ghost` they exist nowhere. */
interface Ids {
  company: string;
  client: string;
  product: string;
  subscriptionProduct: string;
  subscription: string;
  openCharge: string;
  paidCharge: string;
  order: string;
  webhook: string;
}

/** B's own records, for requests whose only foreign part is one reference. */
interface OwnIds {
  client: string;
  product: string;
  subscription: string;
}

interface Call {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
}

/** What B's request must get: 404 (the subject is not B's), 422 naming exactly `fields`, or 201 with the id ignored. */
type Want = { status: 404 } | { status: 422; fields: string[] } | { status: 201; ignored: 'orderItemOrderId' };

interface Case {
  operationId: string;
  /** The body fields naming records that this case sends with A's ids (`*` for any array index). */
  references: string[];
  request: (a: Ids, own: OwnIds) => Call;
  want: Want;
}

// ——— The tables ———

/**
 * A's record of the kind a path names by its first segment (`/product/{id}` → A's product; a
 * charge's is the open one). Every read the contract links from a create (a `GET` naming the
 * created record in its path) is tried with A's record of its kind, so a read or a create added
 * to the contract is covered here with no edit.
 */
function recordOf(path: string): keyof Ids | undefined {
  const kind = path.split('/')[1];
  if (kind === 'charge') return 'openCharge';
  return kind === 'client' || kind === 'product' || kind === 'subscription' || kind === 'order' || kind === 'webhook' ? kind : undefined;
}

const readLinks = listLinks(loadBundledContract()).filter((link) => linkRole(link) === 'read');

/** One case per read: the first create linking to it names it (several creates may make one kind of record). */
const readCases: Array<[string, Case]> = [...new Map(readLinks.map((link) => [link.target.operationId, link])).values()].map((link) => {
  const { target } = link;
  const record = recordOf(target.path);
  return [
    `${target.method.toUpperCase()} ${target.path} of A's record made by ${link.source.operationId}`,
    {
      operationId: target.operationId,
      references: [],
      request: (a) => {
        if (!record) throw new Error(`${target.path} names no kind of record A made: add it to recordOf and to the fixture`);
        const values = Object.fromEntries(Object.keys(link.parameters).map((name) => [name.replace(/^path\./, ''), a[record]]));
        return { method: 'GET', path: fillPath(target.path, values) };
      },
      want: { status: 404 },
    },
  ];
});

/** One case per operation with an id in its path that no read link covers: B names A's record. */
const pathCases: Array<[string, Case]> = [
  ...readCases,
  [
    "POST /charge/{id}/simulate-payment of A's open charge",
    {
      operationId: 'simulatePayment',
      references: [],
      request: (a) => ({ method: 'POST', path: `/charge/${a.openCharge}/simulate-payment`, body: { settle: true } }),
      want: { status: 404 },
    },
  ],
  [
    "POST /charge/{id}/simulate-expiration of A's open charge",
    {
      operationId: 'simulateExpiration',
      references: [],
      request: (a) => ({ method: 'POST', path: `/charge/${a.openCharge}/simulate-expiration` }),
      want: { status: 404 },
    },
  ],
  [
    "POST /charge/{id}/simulate-expiration of A's paid charge",
    {
      operationId: 'simulateExpiration',
      references: [],
      request: (a) => ({ method: 'POST', path: `/charge/${a.paidCharge}/simulate-expiration` }),
      want: { status: 404 },
    },
  ],
  [
    "PATCH /webhook/{id} of A's webhook (status, name, url and events)",
    {
      operationId: 'updateWebhook',
      references: [],
      request: (a) => ({
        method: 'PATCH',
        path: `/webhook/${a.webhook}`,
        body: { status: 'INACTIVE', name: 'Sequestrado', url: 'https://attacker.example.com/hook', events: ['charge.paid'] },
      }),
      want: { status: 404 },
    },
  ],
  [
    "DELETE /webhook/{id} of A's webhook",
    { operationId: 'deleteWebhook', references: [], request: (a) => ({ method: 'DELETE', path: `/webhook/${a.webhook}` }), want: { status: 404 } },
  ],
];

/**
 * Every other operation with an id in its path, derived from the contract: B sends it naming A's
 * record of the path's kind, with the body of the operation's first request example (404). A
 * case above replaces it where the request needs more (each of A's charges, a body of its own).
 */
const handPathCases = new Set(pathCases.map(([, c]) => c.operationId));
const contractDoc = loadBundledContract();

/** The value of the operation's first JSON request example, if it has one. */
function requestExample(operation: JsonObject): unknown {
  const content = (deref<JsonObject | undefined>(contractDoc, operation.requestBody)?.content as JsonObject | undefined)?.['application/json'] as
    | JsonObject
    | undefined;
  const example = Object.values((content?.examples ?? {}) as JsonObject)[0];
  return example === undefined ? undefined : deref<{ value?: unknown }>(contractDoc, example).value;
}

for (const op of listOperations(contractDoc)) {
  if (!/\{[^}]+\}/.test(op.path) || handPathCases.has(op.operationId)) continue;
  const record = recordOf(op.path);
  const body = requestExample(op.operation);
  pathCases.push([
    `${op.method.toUpperCase()} ${op.path} of A's ${record ?? 'record'}`,
    {
      operationId: op.operationId,
      references: [],
      request: (a) => {
        if (!record) throw new Error(`${op.path} names no kind of record A made: add it to recordOf and to the fixture`);
        const values = Object.fromEntries([...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => [m[1]!, a[record]]));
        return { method: op.method.toUpperCase() as Call['method'], path: fillPath(op.path, values), ...(body === undefined ? {} : { body }) };
      },
      want: { status: 404 },
    },
  ]);
}

/** Cases whose request body names A's records: the subject (`PUT /subscription` id, 404) or references (422). */
const bodyCases: Array<[string, Case]> = [
  [
    "PUT /subscription with A's subscription id",
    {
      operationId: 'updateSubscription',
      references: ['/id'],
      request: (a) => ({ method: 'PUT', path: '/subscription', body: { id: a.subscription, status: 'CANCELLED', price: 1 } }),
      want: { status: 404 },
    },
  ],
  [
    "PUT /subscription with A's subscription id and A's product and client (the subject is judged first)",
    {
      operationId: 'updateSubscription',
      references: ['/id', '/productId', '/clientId'],
      request: (a) => ({ method: 'PUT', path: '/subscription', body: { id: a.subscription, productId: a.product, clientId: a.client } }),
      want: { status: 404 },
    },
  ],
  [
    "PUT /subscription of B's subscription with A's product",
    {
      operationId: 'updateSubscription',
      references: ['/productId'],
      request: (a, own) => ({ method: 'PUT', path: '/subscription', body: { id: own.subscription, productId: a.subscriptionProduct } }),
      want: { status: 422, fields: ['/productId'] },
    },
  ],
  [
    "PUT /subscription of B's subscription with A's client",
    {
      operationId: 'updateSubscription',
      references: ['/clientId'],
      request: (a, own) => ({ method: 'PUT', path: '/subscription', body: { id: own.subscription, clientId: a.client } }),
      want: { status: 422, fields: ['/clientId'] },
    },
  ],
  [
    "POST /subscription with A's product",
    {
      operationId: 'createSubscription',
      references: ['/productId'],
      request: (a) => ({ method: 'POST', path: '/subscription', body: subscriptionBody(a.subscriptionProduct) }),
      want: { status: 422, fields: ['/productId'] },
    },
  ],
  [
    "POST /subscription with B's product and A's client",
    {
      operationId: 'createSubscription',
      references: ['/clientId'],
      request: (a, own) => ({ method: 'POST', path: '/subscription', body: subscriptionBody(own.product, { clientId: a.client }) }),
      want: { status: 422, fields: ['/clientId'] },
    },
  ],
  [
    "POST /subscription with A's product and A's client",
    {
      operationId: 'createSubscription',
      references: ['/productId', '/clientId'],
      request: (a) => ({ method: 'POST', path: '/subscription', body: subscriptionBody(a.subscriptionProduct, { clientId: a.client }) }),
      want: { status: 422, fields: ['/productId', '/clientId'] },
    },
  ],
  [
    "POST /charge/payment-link with A's client as customerId",
    {
      operationId: 'createPaymentLink',
      references: ['/customerId'],
      request: (a) => ({ method: 'POST', path: '/charge/payment-link', body: { total: 1500, devMode: true, customerId: a.client } }),
      want: { status: 422, fields: ['/customerId'] },
    },
  ],
  [
    "POST /charge/payment-link with B's and A's products as items",
    {
      operationId: 'createPaymentLink',
      references: ['/items/*/productId'],
      request: (a, own) => ({
        method: 'POST',
        path: '/charge/payment-link',
        body: {
          devMode: true,
          items: [
            { productId: own.product, quantity: 1 },
            { productId: a.product, quantity: 2 },
          ],
        },
      }),
      want: { status: 422, fields: ['/items/1/productId'] },
    },
  ],
  [
    "POST /charge/payment-link with A's client and A's product",
    {
      operationId: 'createPaymentLink',
      references: ['/customerId', '/items/*/productId'],
      request: (a) => ({
        method: 'POST',
        path: '/charge/payment-link',
        body: { devMode: true, customerId: a.client, items: [{ productId: a.product, quantity: 1 }] },
      }),
      want: { status: 422, fields: ['/customerId', '/items/0/productId'] },
    },
  ],
  [
    "POST /order with A's client",
    {
      operationId: 'createOrder',
      references: ['/clientId'],
      request: (a) => ({ method: 'POST', path: '/order', body: { subtotal: 10, total: 10, clientId: a.client } }),
      want: { status: 422, fields: ['/clientId'] },
    },
  ],
  [
    "POST /order with A's product as an item",
    {
      operationId: 'createOrder',
      references: ['/items/*/productId'],
      request: (a) => ({ method: 'POST', path: '/order', body: { subtotal: 64.95, total: 64.95, items: [{ productId: a.product, quantity: 1 }] } }),
      want: { status: 422, fields: ['/items/0/productId'] },
    },
  ],
  [
    "POST /order with A's client and A's product",
    {
      operationId: 'createOrder',
      references: ['/clientId', '/items/*/productId'],
      request: (a) => ({
        method: 'POST',
        path: '/order',
        body: { subtotal: 64.95, total: 64.95, clientId: a.client, items: [{ productId: a.product, quantity: 1 }] },
      }),
      want: { status: 422, fields: ['/clientId', '/items/0/productId'] },
    },
  ],
  [
    "POST /order with A's companyId (D26)",
    {
      operationId: 'createOrder',
      references: ['/companyId'],
      request: (a) => ({ method: 'POST', path: '/order', body: { subtotal: 10, total: 10, companyId: a.company } }),
      want: { status: 422, fields: ['/companyId'] },
    },
  ],
  [
    "POST /order with B's product in an item carrying A's companyId (D26)",
    {
      operationId: 'createOrder',
      references: ['/items/*/companyId'],
      request: (a, own) => ({
        method: 'POST',
        path: '/order',
        body: { subtotal: 64.95, total: 64.95, items: [{ productId: own.product, quantity: 1, companyId: a.company }] },
      }),
      want: { status: 422, fields: ['/items/0/companyId'] },
    },
  ],
  [
    "POST /order with B's product in an item carrying A's order id (ignored, D29)",
    {
      operationId: 'createOrder',
      references: ['/items/*/orderId'],
      request: (a, own) => ({
        method: 'POST',
        path: '/order',
        body: { subtotal: 64.95, total: 64.95, items: [{ productId: own.product, quantity: 1, orderId: a.order }] },
      }),
      want: { status: 201, ignored: 'orderItemOrderId' },
    },
  ],
  [
    "POST /client with A's companyId (D26)",
    {
      operationId: 'createClient',
      references: ['/companyId'],
      request: (a) => ({ method: 'POST', path: '/client', body: clientBody({ name: 'Cliente de B', companyId: a.company }) }),
      want: { status: 422, fields: ['/companyId'] },
    },
  ],
];

/** Request body fields whose name ends in `Id` but that name no record of the service. */
const notReferences: Record<string, string> = {
  'createPaymentLink /customer/taxId': "the customer's CPF or CNPJ, not a record",
  'createPaymentLink /externalId': "the caller's own identifier, stored as sent",
  'createOrder /storefrontOrderId': "the storefront's own identifier, stored as sent",
  'createProduct /displayId': "the caller's display code, stored as sent",
  'createProduct /storefrontVariantId': "the storefront's own variant identifier, stored as sent (D44)",
};

// ——— The contract's ids, to check the tables against ———

const operations = listOperations();

/** A's record of the kind a body field names (`productId` → A's product, `customerId` → A's client); none for a subject's `id`. */
function recordOfField(name: string): keyof Ids | undefined {
  const kind = name.replace(/Id$/, '');
  if (kind === 'customer') return 'client';
  if (kind === 'charge') return 'openCharge';
  return kind === 'company' || kind === 'client' || kind === 'product' || kind === 'subscription' || kind === 'order' || kind === 'webhook' ? kind : undefined;
}

/**
 * Every other top-level reference of a request body, derived from the contract: B sends the
 * operation's first request example with A's record of the field's kind there and its own records
 * in the body's other references (422 naming the field alone). A case above replaces it where
 * the request needs more; a reference inside an array or an object needs a case of its own.
 */
{
  const referenced = new Set(bodyCases.flatMap(([, c]) => c.references.map((pointer) => `${c.operationId} ${pointer}`)));
  for (const op of operations) {
    const fields = idFields(op.operation).filter((pointer) => !(`${op.operationId} ${pointer}` in notReferences));
    const base = requestExample(op.operation);
    for (const pointer of fields) {
      const record = recordOfField(pointer.slice(1));
      if (referenced.has(`${op.operationId} ${pointer}`) || /\{/.test(op.path) || !/^\/\w+$/.test(pointer) || !record || !isObjectValue(base)) continue;
      bodyCases.push([
        `${op.method.toUpperCase()} ${op.path} with A's ${record} in ${pointer}`,
        {
          operationId: op.operationId,
          references: [pointer],
          request: (a, own) => {
            const body: Record<string, unknown> = { ...base };
            for (const other of fields) {
              const kind = recordOfField(other.slice(1));
              if (other !== pointer && /^\/\w+$/.test(other) && other.slice(1) in body && kind && kind in own) body[other.slice(1)] = own[kind as keyof OwnIds];
            }
            body[pointer.slice(1)] = a[record];
            return { method: op.method.toUpperCase() as Call['method'], path: op.path, body };
          },
          want: { status: 422, fields: [pointer] },
        },
      ]);
    }
  }
}

function isObjectValue(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const allCases = [...pathCases, ...bodyCases];
/** The company's lists that name no record in their path (`GET /client`, `GET /webhook`): B reads each after every case. */
const companyLists = listLists(loadBundledContract())
  .map((list) => list.operation)
  .filter((op) => !/\{[^}]+\}/.test(op.path));

/** Pointers (with `*` for array items) of every body property named `id` or `…Id` of an operation's request body. */
function idFields(operation: JsonObject): string[] {
  const doc = loadBundledContract();
  const body = deref<JsonObject | undefined>(doc, operation.requestBody);
  if (!body) return [];
  const found = new Set<string>();
  const walk = (raw: unknown, pointer: string, seen: ReadonlySet<string>): void => {
    if (!raw || typeof raw !== 'object') return;
    const ref = (raw as JsonObject).$ref;
    if (typeof ref === 'string') {
      if (!seen.has(ref)) walk(deref(doc, raw), pointer, new Set([...seen, ref]));
      return;
    }
    const schema = raw as JsonObject;
    for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) for (const sub of (schema[keyword] ?? []) as unknown[]) walk(sub, pointer, seen);
    if (schema.items) walk(schema.items, `${pointer}/*`, seen);
    for (const [name, property] of Object.entries((schema.properties ?? {}) as JsonObject)) {
      if (/^id$|Id$/.test(name)) found.add(`${pointer}/${name}`);
      walk(property, `${pointer}/${name}`, seen);
    }
  };
  walk(((body.content as JsonObject)['application/json'] as JsonObject | undefined)?.schema, '', new Set());
  return [...found];
}

describe('the tables cover the contract', () => {
  test('A made a record of the kind of every read the contract links from a create, and of every path with an id', () => {
    expect(readLinks.length).toBeGreaterThanOrEqual(6);
    expect(readLinks.filter((link) => recordOf(link.target.path) === undefined).map((link) => link.target.path)).toEqual([]);
    expect(operations.filter((op) => /\{[^}]+\}/.test(op.path) && recordOf(op.path) === undefined).map((op) => op.path)).toEqual([]);
  });

  test('every operation with an id in its path has a case, and every case names an operation with one', () => {
    const withPathIds = operations.filter((op) => /\{[^}]+\}/.test(op.path)).map((op) => op.operationId);
    expect(withPathIds.length).toBeGreaterThanOrEqual(7);
    const covered = new Set(pathCases.map(([, c]) => c.operationId));
    const missing = withPathIds.filter((id) => !covered.has(id));
    expect(missing, `operations with a path id that no case of pathCases covers: add a case for each`).toEqual([]);
    expect(
      [...covered].filter((id) => !withPathIds.includes(id)),
      'pathCases names operations without a path id',
    ).toEqual([]);
  });

  test('every id field of every request body is covered by a case or listed as not a reference', () => {
    const fields = operations.flatMap((op) => idFields(op.operation).map((pointer) => `${op.operationId} ${pointer}`));
    expect(fields.length).toBeGreaterThanOrEqual(10);
    const covered = new Set(allCases.flatMap(([, c]) => c.references.map((pointer) => `${c.operationId} ${pointer}`)));
    const uncovered = fields.filter((field) => !covered.has(field) && !(field in notReferences));
    expect(uncovered, "request body id fields that no case sends with A's id: add a case, or list the field in notReferences with the reason").toEqual([]);
    expect(
      [...covered, ...Object.keys(notReferences)].filter((field) => !fields.includes(field)),
      'cases or notReferences name fields the contract does not have',
    ).toEqual([]);
  });

  test('every operation is in a table or names no record (no id in its path, no reference in its body); the lists among those are read by B after every case', () => {
    const inTables = new Set(allCases.map(([, c]) => c.operationId));
    const namesARecord = (op: (typeof operations)[number]) =>
      /\{[^}]+\}/.test(op.path) || idFields(op.operation).some((field) => !(`${op.operationId} ${field}` in notReferences));
    const unclassified = operations.filter((op) => !inTables.has(op.operationId) && namesARecord(op)).map((op) => op.operationId);
    expect(unclassified, 'operations that name a record by id but are in no table: add a case to pathCases or bodyCases').toEqual([]);
    // The lists without a path id are B's way to see records; each is read, derived from the contract.
    expect(companyLists.map((op) => op.operationId)).toContain('listClients');
    expect(companyLists.every((op) => op.method === 'get' && !inTables.has(op.operationId))).toBe(true);
  });
});

// ——— The two companies ———

let server: TestServer;
let folder: string;
let databasePath: string;
let a: Ids;
let ghost: Ids;
let own: OwnIds;

async function created<T>(answer: Promise<{ data?: T; response: Response; error?: unknown }>): Promise<T> {
  const { data, response, error } = await answer;
  expect(response.status, JSON.stringify(error)).toBeGreaterThanOrEqual(200);
  expect(response.status, JSON.stringify(error)).toBeLessThan(300);
  if (data === undefined) throw new Error(`no body (${response.status})`);
  return data;
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'pix-tenants-'));
  databasePath = join(folder, 'payments.db');
  server = await createTestServer({ databasePath });
  const api = server.api;

  const client = await created(api.POST('/client', { body: clientBody() }));
  const product = await createProduct(api);
  const subscriptionProduct = await createProduct(api, {
    name: 'Assinatura de café',
    sku: 'ASS-CAF',
    displayId: '2001',
    isSubscription: true,
    defaultPeriod: 'MONTHLY',
    defaultTrialDays: 7,
  });
  const subscription = await created(api.POST('/subscription', { body: subscriptionBody(subscriptionProduct.id, { clientId: client.id }) }));
  const webhook = await created(
    api.POST('/webhook', {
      body: { url: 'http://127.0.0.1:9/hooks/pix', name: 'Loja A', events: ['charge.pending', 'charge.paid', 'charge.received', 'charge.expired'] },
    }),
  );
  const open = await created(
    api.POST('/charge/payment-link', { body: { devMode: true, customerId: client.id, items: [{ productId: product.id, quantity: 2 }] } }),
  );
  const paid = await created(api.POST('/charge/payment-link', { body: { devMode: true, total: 2500 } }));
  await created(api.POST('/charge/{id}/simulate-payment', { params: { path: { id: paid.data.id } }, body: { settle: true } }));
  const order = await created(
    api.POST('/order', { body: { subtotal: 64.95, total: 64.95, clientId: client.id, items: [{ productId: product.id, quantity: 1 }] } }),
  );

  // One tick of the delivery worker against an endpoint that fails: A's webhook has attempts to list.
  const worker = startWebhookWorker(server.deps, { polling: false, fetch: async () => new Response('down', { status: 503 }), random: () => 0.5 });
  await worker.tick();
  await worker.stop();

  a = {
    company: server.companyId,
    client: client.id,
    product: product.id,
    subscriptionProduct: subscriptionProduct.id,
    subscription: subscription.id,
    openCharge: open.data.id,
    paidCharge: paid.data.id,
    order: order.id,
    webhook: webhook.id,
  };
  ghost = {
    company: unknownId('comp'),
    client: unknownId('clnt'),
    product: unknownId('prod'),
    subscriptionProduct: `prod_zy${'0'.repeat(22)}`,
    subscription: unknownId('subs'),
    openCharge: unknownId('char'),
    paidCharge: `char_zy${'0'.repeat(22)}`,
    order: unknownId('ordr'),
    webhook: unknownId('wbhk'),
  };

  // B has records of its own, so that its lists are not trivially empty and one reference at a time can be foreign.
  const b = server.other.api;
  const ownClient = await created(b.POST('/client', { body: clientBody({ name: 'Cliente de B' }) }));
  const ownProduct = await createProduct(b, { name: 'Pão de fermentação natural', sku: 'PAO-01', displayId: '9001' });
  const ownSubscription = await created(b.POST('/subscription', { body: subscriptionBody(ownProduct.id, { clientId: ownClient.id }) }));
  await created(b.POST('/webhook', { body: { url: 'https://padaria.example.com/hooks', name: 'Padaria', events: ['charge.paid'] } }));
  own = { client: ownClient.id, product: ownProduct.id, subscription: ownSubscription.id };
});

afterAll(async () => {
  await server?.close();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

afterEach(() => {
  try {
    expect(server.violations).toEqual([]);
  } finally {
    server.violations.length = 0;
  }
});

test("A's records are all there, with deliveries recorded, before B tries anything", async () => {
  const seen = await recordsOfA();
  expect(seen.clients.map((c) => c.id)).toEqual([a.client]);
  expect(seen.webhooks.map((w) => w.id)).toEqual([a.webhook]);
  expect(seen.deliveries.length).toBeGreaterThanOrEqual(1);
  expect(seen.charges.map((c) => c.data.status)).toEqual(['OPEN', 'PAID']);
  expect(seen.products.map((p) => p.id)).toEqual([a.product, a.subscriptionProduct]);
  expect(seen.subscription?.id).toBe(a.subscription);
  expect(Object.keys(seen.database.orders ?? {})).toHaveLength(1);
});

// ——— Reading everything, with A's key and from the file ———

/** Everything of A, read with A's key (and through the store where the API has no read). */
async function recordsOfA() {
  const api = server.api;
  const ok = async <T>(answer: Promise<{ data?: T; response: Response }>): Promise<T> => {
    const { data, response } = await answer;
    expect(response.status).toBe(200);
    return data as T;
  };
  const webhookPath = { params: { path: { id: a.webhook } } };
  return {
    clients: await ok(api.GET('/client')),
    webhooks: await ok(api.GET('/webhook')),
    webhook: await ok(api.GET('/webhook/{id}', webhookPath)),
    deliveries: await ok(api.GET('/webhook/{id}/deliveries', webhookPath)),
    charges: [
      await ok(api.GET('/charge/{id}', { params: { path: { id: a.openCharge } } })),
      await ok(api.GET('/charge/{id}', { params: { path: { id: a.paidCharge } } })),
    ],
    // Products and the subscription through the store, which also sees what the API's answers leave out.
    products: [...(await server.deps.store.getProducts(a.company, [a.product, a.subscriptionProduct])).values()],
    subscription: await server.deps.store.getSubscription(a.company, a.subscription),
    database: databaseRows(),
  };
}

/** Every row of every table of the database file, by table and then by key. */
function databaseRows(): Record<string, Record<string, unknown>> {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    return Object.fromEntries(everyRow(db).map(({ table, rows }) => [table, Object.fromEntries(rows.map((row) => [row._key, row]))]));
  } finally {
    db.close();
  }
}

/** A record of a list: the fields every check below reads. */
interface Listed {
  id?: string;
  companyId?: string;
}

/** Every list of the contract without a path id (companyLists), read with a company's key, by operationId. */
async function listsOf(apiKey: string): Promise<Record<string, Listed[]>> {
  const lists: Record<string, Listed[]> = {};
  for (const op of companyLists) {
    const answer = read(await server.request(op.path, { apiKey }));
    const { status, json } = await answer;
    expect(status, `GET ${op.path}`).toBe(200);
    expect(Array.isArray(json), `GET ${op.path} answers an array`).toBe(true);
    lists[op.operationId] = json as Listed[];
  }
  return lists;
}

/** B's lists, with B's key. */
const listsOfB = () => listsOf(server.other.apiKey);

/** Sends a call with B's key, through the raw request (checked against the contract too). */
async function asB(call: Call): Promise<RawAnswer> {
  if (call.body === undefined) return read(await server.request(call.path, { method: call.method, apiKey: server.other.apiKey }));
  return sendJson(server, call.method, call.path, call.body, { apiKey: server.other.apiKey });
}

/** The text with each of the given ids replaced by its field name, to compare two answers that differ only in ids. */
function masked(text: string, ids: Ids): string {
  let result = text;
  for (const [name, id] of Object.entries(ids)) result = result.split(id).join(`<${name}>`);
  return result;
}

// ——— B against A's records ———

describe("company B names company A's records", () => {
  test.each(allCases)('%s', async (_name, { request, want }) => {
    const before = await recordsOfA();
    const listsBefore = await listsOfB();
    const call = request(a, own);

    const answer = await asB(call);
    const control = await asB(request(ghost, own));

    if (want.status === 404) {
      const p = await expectProblem(answer.response, 404, '/problems/not-found', call.path);
      await expectProblem(control.response, 404, '/problems/not-found');
      // D27: A's record and a record that exists nowhere are the same answer, the id aside.
      expect(masked(answer.text, a)).toBe(masked(control.text, ghost));
      expect(p.detail).not.toContain('Café Aurora');
    } else if (want.status === 422) {
      await expectValidation(answer.response, want.fields, call.path);
      await expectValidation(control.response, want.fields, call.path);
      expect(masked(answer.text, a)).toBe(masked(control.text, ghost));
    } else {
      // An item's orderId is ignored (D29): B's order is B's, its item belongs to the new order, A's order is untouched.
      expect(answer.status, answer.text).toBe(201);
      expect(control.status, control.text).toBe(201);
      const order = answer.json as Schemas['Order'];
      expect(order.companyId).toBe(server.other.companyId);
      expect(order.orderItems.map((item) => item.orderId)).toEqual([order.id]);
      expect(order.id).not.toBe(a.order);
      expect(answer.text).not.toContain(a.order);
    }

    // Nothing of A changed, whatever B was answered; nothing of A shows up among B's records.
    const after = await recordsOfA();
    const listsAfter = await listsOfB();
    if (want.status === 201) {
      // The only rows added are the two orders B just created (with A's id and with the unknown one).
      const added = Object.entries(after.database.orders ?? {}).filter(([rowid]) => !(rowid in (before.database.orders ?? {})));
      expect(added.map(([, row]) => (row as { company_id: string }).company_id)).toEqual([server.other.companyId, server.other.companyId]);
      for (const [rowid] of added) delete after.database.orders![rowid];
    }
    expect(after).toEqual(before);
    expect(listsAfter).toEqual(listsBefore);
    const textOfB = JSON.stringify(listsAfter);
    for (const id of Object.values(a)) expect(textOfB).not.toContain(id);
  });
});

describe("B's lists", () => {
  test("every list with B's key holds B's records only; with A's key, A's only", async () => {
    const ofB = await listsOfB();
    const ofA = await listsOf(server.apiKey);
    expect(Object.keys(ofB).sort()).toEqual(companyLists.map((op) => op.operationId).sort());
    const idsOfB = new Set(Object.values(ofB).flatMap((records) => records.map((r) => r.id)));
    for (const [operationId, records] of Object.entries(ofB)) {
      expect(
        records.every((r) => r.companyId === undefined || r.companyId === server.other.companyId),
        operationId,
      ).toBe(true);
      expect(JSON.stringify(records), operationId).not.toContain(a.company);
    }
    for (const [operationId, records] of Object.entries(ofA)) {
      expect(
        records.every((r) => r.companyId === undefined || r.companyId === a.company),
        operationId,
      ).toBe(true);
      expect(
        records.filter((r) => r.id !== undefined && idsOfB.has(r.id)),
        operationId,
      ).toEqual([]);
    }
    // B's own records are listed: B's client, and the one webhook B registered.
    expect(ofB.listClients?.map((c) => c.id)).toEqual([own.client]);
    expect(ofB.listWebhooks).toHaveLength(1);
  });
});

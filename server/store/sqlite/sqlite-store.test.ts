/**
 * The SQLite store on a temporary file: migrations, durability across instances, company
 * scoping, order numbers, the idempotency-key life cycle and the atomicity of insertCharge.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { issueApiKey } from '../../auth/api-keys.js';
import { buildCompany } from '../../domain/companies.js';
import { newId } from '../../domain/ids.js';
import { migrations } from '../migrations.js';
import type {
  ChargeDoc,
  ClientDoc,
  CompanyRecord,
  IdempotencyClaim,
  IdempotencyClaimInput,
  OrderDoc,
  ProductDoc,
  Store,
  SubscriptionDoc,
  WebhookDoc,
} from '../types.js';
import { SqliteStore } from './sqlite-store.js';

const NOW = new Date('2025-03-10T12:00:00.000Z');
const at = NOW.toISOString();

let dir: string;
let counter = 0;
const open: SqliteStore[] = [];

function freshPath(): string {
  return join(dir, `store-${++counter}`, 'payments.db');
}

/** A store that afterEach closes if the test did not. */
function openStore(path: string): SqliteStore {
  const store = new SqliteStore(path);
  open.push(store);
  return store;
}

async function closeStore(store: SqliteStore): Promise<void> {
  open.splice(open.indexOf(store), 1);
  await store.close();
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'pix-store-test-'));
});
afterEach(async () => {
  for (const store of open.splice(0)) await store.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function addCompany(store: Store, name: string, taxId: string): Promise<CompanyRecord> {
  const company = buildCompany({ name, taxId, city: 'Recife', color: '#112233' }, NOW);
  await store.createCompany(company, issueApiKey(company.doc.id, NOW).record);
  return company;
}

function client(companyId: string, name = 'Maria Silva Souza'): ClientDoc {
  return {
    id: newId('client'),
    taxId: '52998224725',
    name,
    email: 'maria@example.com',
    phone: '11987654321',
    status: 'ACTIVE',
    companyId,
    createdAt: at,
    updatedAt: at,
    postalCode: '01310100',
    address: 'Avenida Paulista',
    number: '1000',
  };
}

function product(companyId: string): ProductDoc {
  return {
    id: newId('product'),
    name: 'Café especial 250 g',
    description: 'Grãos torrados do Cerrado Mineiro',
    price: 39.9,
    companyId,
    status: 'ACTIVE',
    isSubscription: false,
    createdAt: at,
    updatedAt: at,
    sku: 'CAFE-250',
    displayId: 'cafe-250',
  };
}

function subscription(productId: string, clientId: string): SubscriptionDoc {
  return {
    id: newId('subscription'),
    productId,
    clientId,
    period: 'MONTHLY',
    price: 39.9,
    trialDays: 7,
    status: 'TRIALING',
    createdAt: at,
    updatedAt: at,
    trialEndsAt: '2025-03-17T12:00:00.000Z',
    nextBillingAt: '2025-03-17T12:00:00.000Z',
  };
}

function charge(company: CompanyRecord, prod: ProductDoc, customer?: ClientDoc, id = newId('charge')): ChargeDoc {
  return {
    id,
    total: 7980,
    url: `http://pay.test/pay/${id}`,
    status: 'OPEN',
    paymentStatus: 'PENDING',
    devMode: false,
    needShipping: false,
    expiresAt: '2025-03-10T13:00:00.000Z',
    company: { taxId: company.doc.cpfCnpj, name: company.doc.name, color: company.color },
    brCode: '00020101021226...6304ABCD',
    brCodeBase64: 'data:image/png;base64,iVBORw0KGgo=',
    items: [
      {
        productId: prod.id,
        companyId: company.doc.id,
        quantity: 2,
        product: { id: prod.id, name: prod.name, description: prod.description, price: prod.price, needShipping: true, companyId: company.doc.id, status: 'ACTIVE' },
      },
    ],
    ...(customer ? { customer: { name: customer.name, taxId: customer.taxId, email: customer.email, phone: customer.phone } } : {}),
    externalId: 'pedido-42',
  };
}

function order(company: CompanyRecord, orderNumber: number): OrderDoc {
  const id = newId('order');
  return {
    id,
    orderNumber: String(orderNumber).padStart(6, '0'),
    status: 'CREATED',
    subtotal: 79.8,
    discount: 0,
    shippingCost: 10,
    total: 89.8,
    paymentStatus: 'PENDING',
    companyId: company.doc.id,
    company: company.doc,
    orderItems: [],
    createdAt: at,
    updatedAt: at,
    paymentMethod: 'PIX',
    shippingAddress: { postalCode: '01310100', city: 'São Paulo', state: 'SP', country: 'BR' },
  };
}

function webhook(companyId: string): WebhookDoc {
  return {
    id: newId('webhook'),
    url: 'https://merchant.example.com/hooks/pix',
    name: 'Pagamentos',
    companyId,
    status: 'ACTIVE',
    events: ['charge.paid', 'charge.expired'],
    createdAt: at,
    updatedAt: at,
  };
}

/** An idempotency claim `seconds` after NOW, with a 60 s lease and a one-day retention. */
function claimAt(companyId: string, key: string, fingerprint: string, seconds: number): IdempotencyClaimInput {
  const t = NOW.getTime() + seconds * 1000;
  return {
    companyId,
    key,
    fingerprint,
    now: new Date(t).toISOString(),
    leaseUntil: new Date(t + 60_000).toISOString(),
    expiresAt: new Date(t + 86_400_000).toISOString(),
  };
}

describe('migrations', () => {
  test('are applied once and recorded in schema_migrations; opening again neither fails nor repeats them', async () => {
    const path = freshPath();
    for (let i = 0; i < 3; i++) await closeStore(openStore(path));

    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
      expect(rows).toEqual(migrations.map((m) => ({ version: m.version, name: m.name })));
      const tables = db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .all()
        .map((r) => r.name);
      expect(tables).toEqual(
        expect.arrayContaining(['api_keys', 'charges', 'clients', 'companies', 'idempotency_keys', 'orders', 'products', 'schema_migrations', 'subscriptions', 'webhooks']),
      );
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });
});

describe('durability', () => {
  test('what one instance wrote and closed, a new instance reads back whole', async () => {
    const path = freshPath();
    const first = openStore(path);
    const company = await addCompany(first, 'Café Aurora Ltda', '45723174000110');
    const companyId = company.doc.id;
    const other = buildCompany({ name: 'Padaria Bom Dia Ltda', taxId: '11222333000181' }, NOW);
    const issued = issueApiKey(other.doc.id, NOW);
    await first.createCompany(other, issued.record);

    const c = client(companyId);
    await first.insertClient(c);
    const p = product(companyId);
    await first.insertProduct(p);
    const s = subscription(p.id, c.id);
    await first.insertSubscription(companyId, s);
    const changed: SubscriptionDoc = { ...s, status: 'ACTIVE', updatedAt: '2025-03-17T12:00:00.000Z', nextBillingAt: '2025-04-17T12:00:00.000Z' };
    await first.replaceSubscription(companyId, changed);

    const newClient = client(companyId, 'João Pereira Lima');
    const ch = charge(company, p, newClient);
    expect(await first.claimIdempotencyKey(claimAt(companyId, 'order-42', 'fp-1', 0))).toEqual({ kind: 'claimed' });
    const responseBody = JSON.stringify({ status: 201, message: 'Payment link created', data: { id: ch.id, url: ch.url, devMode: false, total: ch.total } });
    await first.insertCharge(ch, companyId, { newClient, response: { companyId, key: 'order-42', status: 201, body: responseBody } });

    const o = await first.insertOrder(companyId, (n) => order(company, n));
    const w = webhook(companyId);
    await first.insertWebhook(w, 'whsec_not_returned');
    await closeStore(first);

    const second = openStore(path);
    expect(await second.countCompanies()).toBe(2);
    expect(await second.getCompany(companyId)).toEqual(company);
    expect(await second.getCompany(other.doc.id)).toEqual(other);
    expect(await second.findApiKey(issued.record.id)).toEqual(issued.record);
    expect(await second.getClient(companyId, c.id)).toEqual(c);
    expect(await second.getClient(companyId, newClient.id)).toEqual(newClient);
    expect((JSON.parse(await second.listClientsJson(companyId)) as ClientDoc[]).map((x) => x.id).sort()).toEqual([c.id, newClient.id].sort());
    expect(await second.getProducts(companyId, [p.id])).toEqual(new Map([[p.id, p]]));
    expect(await second.getSubscription(companyId, s.id)).toEqual(changed);
    expect(await second.getCharge(companyId, ch.id)).toEqual(ch);
    expect(await second.claimIdempotencyKey(claimAt(companyId, 'order-42', 'fp-1', 10))).toEqual({ kind: 'replay', status: 201, body: responseBody });
    expect(o.orderNumber).toBe('000001');
    const next = await second.insertOrder(companyId, (n) => order(company, n));
    expect(next.orderNumber).toBe('000002');
    expect(await second.getWebhook(companyId, w.id)).toEqual(w);
  });
});

describe('company scoping', () => {
  interface Fixture {
    store: SqliteStore;
    a: CompanyRecord;
    b: CompanyRecord;
    ids: { client: string; product: string; subscription: string; charge: string; webhook: string };
  }
  let fx: Fixture;

  beforeAll(async () => {
    const store = new SqliteStore(freshPath());
    const a = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
    const b = await addCompany(store, 'Padaria Bom Dia Ltda', '11222333000181');
    const c = client(a.doc.id);
    await store.insertClient(c);
    await store.insertClient(client(b.doc.id, 'Cliente da Padaria'));
    const p = product(a.doc.id);
    await store.insertProduct(p);
    const s = subscription(p.id, c.id);
    await store.insertSubscription(a.doc.id, s);
    const ch = charge(a, p);
    await store.insertCharge(ch, a.doc.id, {});
    const w = webhook(a.doc.id);
    await store.insertWebhook(w, 'whsec_x');
    fx = { store, a, b, ids: { client: c.id, product: p.id, subscription: s.id, charge: ch.id, webhook: w.id } };
  });
  afterAll(async () => fx.store.close());

  type Read = (store: Store, companyId: string, ids: Fixture['ids']) => Promise<unknown>;
  test.each<[string, { given: Read; want: string }]>([
    ['getClient', { given: (s, co, ids) => s.getClient(co, ids.client), want: 'client' }],
    ['getProducts', { given: async (s, co, ids) => (await s.getProducts(co, [ids.product])).get(ids.product), want: 'product' }],
    ['getSubscription', { given: (s, co, ids) => s.getSubscription(co, ids.subscription), want: 'subscription' }],
    ['getCharge', { given: (s, co, ids) => s.getCharge(co, ids.charge), want: 'charge' }],
    ['getWebhook', { given: (s, co, ids) => s.getWebhook(co, ids.webhook), want: 'webhook' }],
  ])("%s finds the owner's record and nothing with another company's id", async (_name, { given, want }) => {
    const own = (await given(fx.store, fx.a.doc.id, fx.ids)) as { id: string } | undefined;
    expect(own?.id).toBe(fx.ids[want as keyof Fixture['ids']]);
    expect(await given(fx.store, fx.b.doc.id, fx.ids)).toBeUndefined();
  });

  test('listClientsJson returns only the own company’s clients, as one JSON array', async () => {
    expect((JSON.parse(await fx.store.listClientsJson(fx.a.doc.id)) as ClientDoc[]).map((c) => c.id)).toEqual([fx.ids.client]);
    expect((JSON.parse(await fx.store.listClientsJson(fx.b.doc.id)) as ClientDoc[]).map((c) => c.name)).toEqual(['Cliente da Padaria']);
    expect(await fx.store.listClientsJson('comp_nobody')).toBe('[]');
  });

  test('replaceSubscription with another company’s id changes nothing', async () => {
    const before = await fx.store.getSubscription(fx.a.doc.id, fx.ids.subscription);
    expect(before).toBeDefined();
    await fx.store.replaceSubscription(fx.b.doc.id, { ...before!, status: 'CANCELLED' });
    expect(await fx.store.getSubscription(fx.a.doc.id, fx.ids.subscription)).toEqual(before);
  });

  test('idempotency keys are per company', async () => {
    const key = 'shared-key';
    expect(await fx.store.claimIdempotencyKey(claimAt(fx.a.doc.id, key, 'fp-a', 0))).toEqual({ kind: 'claimed' });
    expect(await fx.store.claimIdempotencyKey(claimAt(fx.b.doc.id, key, 'fp-b', 0))).toEqual({ kind: 'claimed' });
  });
});

describe('order numbers', () => {
  test('increase by one per company, independently of other companies', async () => {
    const store = openStore(freshPath());
    const a = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
    const b = await addCompany(store, 'Padaria Bom Dia Ltda', '11222333000181');
    const sequence: Array<[CompanyRecord, number]> = [
      [a, 1],
      [a, 2],
      [b, 1],
      [a, 3],
      [b, 2],
    ];
    for (const [company, want] of sequence) {
      let given: number | undefined;
      const stored = await store.insertOrder(company.doc.id, (n) => {
        given = n;
        return order(company, n);
      });
      expect(given, company.doc.name).toBe(want);
      expect(stored.orderNumber).toBe(String(want).padStart(6, '0'));
    }
  });
});

describe('idempotency keys', () => {
  test('claimed → in-flight → mismatch → replay once the charge stored its response', async () => {
    const store = openStore(freshPath());
    const company = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
    const companyId = company.doc.id;
    const p = product(companyId);
    await store.insertProduct(p);
    const ch = charge(company, p);
    const body = JSON.stringify({ status: 201, message: 'Payment link created', data: { id: ch.id } });

    const steps: Array<[string, { given: () => Promise<IdempotencyClaim>; want: IdempotencyClaim }]> = [
      ['first use', { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-1', 0)), want: { kind: 'claimed' } }],
      ['same request within the lease', { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-1', 30)), want: { kind: 'in-flight' } }],
      ['different request within the lease', { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-2', 30)), want: { kind: 'mismatch' } }],
      [
        'same request after insertCharge stored the response',
        {
          given: async () => {
            await store.insertCharge(ch, companyId, { response: { companyId, key: 'k1', status: 201, body } });
            return store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-1', 40));
          },
          want: { kind: 'replay', status: 201, body },
        },
      ],
      ['same request long after the lease, within the retention', { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-1', 3_600)), want: { kind: 'replay', status: 201, body } }],
      ['different request after completion', { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-2', 3_600)), want: { kind: 'mismatch' } }],
      ['any request after the retention ended', { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-3', 86_401)), want: { kind: 'claimed' } }],
      ['the new claim holds', { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-3', 86_402)), want: { kind: 'in-flight' } }],
    ];
    for (const [name, { given, want }] of steps) expect(await given(), name).toEqual(want);
  });

  test.each<[string, { given: { secondFingerprint: string; afterSeconds: number }; want: IdempotencyClaim['kind'] }]>([
    ['same request, lease not yet over', { given: { secondFingerprint: 'fp-1', afterSeconds: 59 }, want: 'in-flight' }],
    ['same request, lease over', { given: { secondFingerprint: 'fp-1', afterSeconds: 61 }, want: 'claimed' }],
    ['other request, lease not yet over', { given: { secondFingerprint: 'fp-2', afterSeconds: 59 }, want: 'mismatch' }],
    ['other request, lease over', { given: { secondFingerprint: 'fp-2', afterSeconds: 61 }, want: 'claimed' }],
  ])('an unfinished claim: %s → %s', async (_name, { given, want }) => {
    const store = openStore(freshPath());
    const { doc } = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
    expect(await store.claimIdempotencyKey(claimAt(doc.id, 'k', 'fp-1', 0))).toEqual({ kind: 'claimed' });
    expect((await store.claimIdempotencyKey(claimAt(doc.id, 'k', given.secondFingerprint, given.afterSeconds))).kind).toBe(want);
  });

  test.each<[string, { given: { completed: boolean }; want: IdempotencyClaim['kind'] }]>([
    ['an unfinished key is freed', { given: { completed: false }, want: 'claimed' }],
    ['a key with a stored response is kept', { given: { completed: true }, want: 'replay' }],
  ])('releaseIdempotencyKey: %s', async (_name, { given, want }) => {
    const store = openStore(freshPath());
    const company = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
    const companyId = company.doc.id;
    expect(await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 0))).toEqual({ kind: 'claimed' });
    if (given.completed) {
      const p = product(companyId);
      await store.insertProduct(p);
      await store.insertCharge(charge(company, p), companyId, { response: { companyId, key: 'k', status: 201, body: '{"data":{}}' } });
    }
    await store.releaseIdempotencyKey(companyId, 'k');
    // The same request within the lease: a freed key is claimed afresh, a kept one replays.
    expect((await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 1))).kind).toBe(want);
  });
});

describe('insertCharge is all or nothing', () => {
  test.each<[string, { given: (ctx: { company: CompanyRecord; existing: ChargeDoc; product: ProductDoc; customer: ClientDoc }) => { charge: ChargeDoc; companyId: string } }]>([
    ['a duplicate charge id', { given: ({ company, existing, product: p, customer }) => ({ charge: charge(company, p, customer, existing.id), companyId: company.doc.id }) }],
    ['a company that does not exist', { given: ({ company, product: p, customer }) => ({ charge: charge(company, p, customer), companyId: 'comp_doesnotexist0000000000000' }) }],
  ])('a failure on %s leaves no client and no idempotent response behind', async (_name, { given }) => {
    const store = openStore(freshPath());
    const company = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
    const companyId = company.doc.id;
    const p = product(companyId);
    await store.insertProduct(p);
    const existing = charge(company, p);
    await store.insertCharge(existing, companyId, {});

    const customer = client(companyId, 'João Pereira Lima');
    expect(await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 0))).toEqual({ kind: 'claimed' });
    const failing = given({ company, existing, product: p, customer });
    await expect(
      store.insertCharge(failing.charge, failing.companyId, { newClient: customer, response: { companyId, key: 'k', status: 201, body: '{"data":{}}' } }),
    ).rejects.toThrow();

    expect(await store.getClient(companyId, customer.id)).toBeUndefined();
    expect(await store.listClientsJson(companyId)).toBe('[]');
    expect(await store.getCharge(companyId, existing.id)).toEqual(existing);
    // No response was stored: the key is still an unfinished claim, not a replay.
    expect(await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 1))).toEqual({ kind: 'in-flight' });
    await store.releaseIdempotencyKey(companyId, 'k');
    expect(await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 2))).toEqual({ kind: 'claimed' });

    // The same store still works after the rolled-back transaction.
    const retry = charge(company, p, customer);
    await store.insertCharge(retry, companyId, { newClient: customer, response: { companyId, key: 'k', status: 201, body: '{"data":{}}' } });
    expect(await store.getClient(companyId, customer.id)).toEqual(customer);
    expect(await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 3))).toEqual({ kind: 'replay', status: 201, body: '{"data":{}}' });
  });
});

describe('group commit', () => {
  /** A second connection to the file: it sees only what is committed. */
  function committedRows(path: string, sql: string): unknown[] {
    const reader = new Database(path, { readonly: true });
    try {
      return reader.prepare(sql).all();
    } finally {
      reader.close();
    }
  }

  test('a write resolves once it is committed: another connection sees it then, and not before', async () => {
    const path = freshPath();
    const store = openStore(path);
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    const written = store.insertClient(client(company.doc.id, 'Ana'));
    // Issued, not yet committed: the open group is invisible to other connections.
    expect(committedRows(path, 'SELECT id FROM clients')).toEqual([]);
    await written;
    expect(committedRows(path, "SELECT json_extract(doc, '$.name') AS name FROM clients")).toEqual([{ name: 'Ana' }]);
  });

  test('writes of one turn share a transaction, yet a failing one is undone alone and the others commit', async () => {
    const path = freshPath();
    const store = openStore(path);
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    const duplicate = client(company.doc.id, 'Bruno');
    await store.insertClient(duplicate);
    const results = await Promise.allSettled([
      store.insertClient(client(company.doc.id, 'Carla')),
      store.insertClient(duplicate),
      store.insertProduct(product(company.doc.id)),
      store.insertClient(client(company.doc.id, 'Davi')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    expect(committedRows(path, "SELECT json_extract(doc, '$.name') AS name FROM clients ORDER BY rowid")).toEqual([{ name: 'Bruno' }, { name: 'Carla' }, { name: 'Davi' }]);
    expect(committedRows(path, 'SELECT COUNT(*) AS n FROM products')).toEqual([{ n: 1 }]);
  });

  test('a store closed with writes in its open group commits them first', async () => {
    const path = freshPath();
    const store = openStore(path);
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    const written = store.insertClient(client(company.doc.id, 'Eva'));
    await closeStore(store);
    await written;
    expect(committedRows(path, 'SELECT COUNT(*) AS n FROM clients')).toEqual([{ n: 1 }]);
  });
});

describe('the outbox', () => {
  test('an event is written only when a webhook of the company wants it, with a delivery for each that does', async () => {
    const path = freshPath();
    const store = openStore(path);
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    const prod = product(company.doc.id);
    await store.insertProduct(prod);
    const event = (type: 'charge.pending' | 'charge.paid', id: string) => ({ id: `msg_${id}`, type, createdAt: at, body: `{"type":"${type}"}` });
    const first = charge(company, prod);
    await store.insertCharge(first, company.doc.id, { events: [event('charge.pending', 'a')] });
    const webhook = (events: WebhookDoc['events']): WebhookDoc => ({ id: newId('webhook'), url: 'https://hooks.example.com/pix', name: 'Loja', companyId: company.doc.id, status: 'ACTIVE', events, createdAt: at, updatedAt: at });
    const wantsPaid = webhook(['charge.paid']);
    await store.insertWebhook(wantsPaid, 'whsec_x');
    const second = charge(company, prod);
    await store.insertCharge(second, company.doc.id, { events: [event('charge.pending', 'b')] });
    const wantsBoth = webhook(['charge.pending', 'charge.paid']);
    await store.insertWebhook(wantsBoth, 'whsec_y');
    const third = charge(company, prod);
    await store.insertCharge(third, company.doc.id, { events: [event('charge.pending', 'c')] });
    await store.transitionCharge(company.doc.id, third.id, (stored) => ({ charge: { ...stored, paymentStatus: 'PAID', status: 'PAID' }, events: [event('charge.paid', 'd')] }));
    await closeStore(store);

    const db = new Database(path, { readonly: true });
    try {
      expect(db.prepare('SELECT id FROM webhook_events ORDER BY seq').all()).toEqual([{ id: 'msg_c' }, { id: 'msg_d' }]);
      expect(db.prepare('SELECT event_id, webhook_id FROM webhook_deliveries ORDER BY seq, webhook_id').all()).toEqual(
        [
          { event_id: 'msg_c', webhook_id: wantsBoth.id },
          ...[wantsPaid.id, wantsBoth.id].sort().map((id) => ({ event_id: 'msg_d', webhook_id: id })),
        ],
      );
    } finally {
      db.close();
    }
  });
});

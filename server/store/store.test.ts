/**
 * The Store contract, run against every engine: SQLite (a temporary file) always, PostgreSQL
 * when TEST_DATABASE_URL names a server (each test on a schema of its own, dropped after it).
 * Round trips of every record kind, company scoping, order numbers, the idempotency-key life
 * cycle, the atomicity of insertCharge, the outbox, delivery claims, charge images and
 * rate-limit counts; then, on PostgreSQL only, the same steps raced from two instances (two
 * pools on one schema, standing for two server processes).
 */
// long-running: about 35 s (the store suite on each engine); test/support/sequencer.ts starts it early
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { issueApiKey } from '../auth/api-keys.js';
import { buildCompany } from '../domain/companies.js';
import { migrations } from './migrations.js';
import { PgStore } from './postgres/pg-store.js';
import { SqliteStore } from './sqlite/sqlite-store.js';
import { NOW, later, addCompany, client, product, subscription, charge, order, webhook, event, attempt, claimAt, sortedPairs } from './test-records.js';
import type {
  ChargeEventType,
  ClientDoc,
  ListPosition,
  CompanyRecord,
  DeliveryShare,
  IdempotencyClaim,
  NewEvent,
  ProductDoc,
  Store,
  StoredCharge,
  SubscriptionDoc,
  WebhookDeliveryDoc,
  WebhookDoc,
} from './types.js';

/** A JSON answer the store gave as text or bytes, as text. */
const jsonText = (json: string | Uint8Array | undefined): string => {
  if (json === undefined) throw new Error('the store gave no whole list');
  return typeof json === 'string' ? json : Buffer.from(json).toString('utf8');
};

/** The company's whole client list, as one page of the list (D48). */
const clientsOf = async (store: Store, companyId: string): Promise<Uint8Array> => (await store.listPageJson('clients', companyId, 1_000_000)).json;

const databaseUrl = process.env.TEST_DATABASE_URL || undefined;
if (!databaseUrl) {
  console.warn('NOTICE: server/store/store.test.ts: PostgreSQL store tests skipped: set TEST_DATABASE_URL=postgres://root@127.0.0.1:5432/test');
}

// ---------------------------------------------------------------------------------------------
// Engines

/** One empty database of an engine, for one test. */
interface TestDatabase {
  /** A new store instance on this database (another process, for PostgreSQL). */
  open(): Promise<Store>;
  /** Rows committed to the database, read on a connection of its own. */
  rows<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** Runs statements on a connection of its own, behind the stores' backs (to stage an older schema). */
  exec(sql: string): Promise<void>;
  /** Closes the stores this database opened and drops it. */
  destroy(): Promise<void>;
}

interface Engine {
  name: 'sqlite' | 'postgres';
  create(): Promise<TestDatabase>;
}

let tempDir: string | undefined;
let fileCounter = 0;
afterAll(() => {
  if (tempDir) rmSync(tempDir, { recursive: true, force: true });
});

const sqlite: Engine = {
  name: 'sqlite',
  async create() {
    tempDir ??= mkdtempSync(join(tmpdir(), 'pix-store-suite-'));
    const path = join(tempDir, `db-${++fileCounter}`, 'payments.db');
    const stores: SqliteStore[] = [];
    return {
      async open() {
        const store = new SqliteStore(path);
        stores.push(store);
        return store;
      },
      async rows<T>(sql: string) {
        const reader = new Database(path, { readonly: true });
        try {
          return reader.prepare(sql).all() as T[];
        } finally {
          reader.close();
        }
      },
      async exec(sql: string) {
        const writer = new Database(path);
        try {
          writer.exec(sql);
        } finally {
          writer.close();
        }
      },
      async destroy() {
        for (const store of stores.splice(0)) await store.close();
      },
    };
  },
};

const postgres: Engine = {
  name: 'postgres',
  async create() {
    const connectionString = databaseUrl!;
    const schema = `store_test_${randomBytes(6).toString('hex')}`;
    const stores: PgStore[] = [];
    let reader: pg.Pool | undefined;
    return {
      async open() {
        const store = await PgStore.open({ connectionString, schema, poolSize: 8 });
        stores.push(store);
        return store;
      },
      async rows<T>(sql: string) {
        reader ??= new pg.Pool({ connectionString, max: 1, options: `-c search_path=${schema}` });
        return (await reader.query(sql)).rows as T[];
      },
      async exec(sql: string) {
        reader ??= new pg.Pool({ connectionString, max: 1, options: `-c search_path=${schema}` });
        await reader.query(sql);
      },
      async destroy() {
        for (const store of stores.splice(0)) await store.close();
        await reader?.end();
        const admin = new pg.Client({ connectionString });
        await admin.connect();
        try {
          await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        } finally {
          await admin.end();
        }
      },
    };
  },
};

const engines: Array<[string, Engine]> = [['sqlite', sqlite], ...(databaseUrl ? [['postgres', postgres] as [string, Engine]] : [])];

// ---------------------------------------------------------------------------------------------
// The contract, per engine

describe.each(engines)('Store on %s', (_name, engine) => {
  let db: TestDatabase;
  let store: Store;

  beforeEach(async () => {
    db = await engine.create();
    store = await db.open();
  });
  afterEach(async () => db.destroy());

  test('migrations are applied once, recorded in schema_migrations, and not repeated by another instance', async () => {
    await db.open();
    await db.open();
    expect(await db.rows('SELECT version, name FROM schema_migrations ORDER BY version')).toEqual(
      migrations.map((m) => ({ version: m.version, name: m.name })),
    );
    // Migration 3 exists on both engines (SQLite counts requests in memory and leaves it empty).
    expect(await db.rows('SELECT key_id FROM rate_limit_windows')).toEqual([]);
  });

  test('the deployment mode (D51): none until recorded; the first recorded stays, from another instance too, unless changed on purpose', async () => {
    expect(await store.deploymentMode()).toBeUndefined();
    expect(await store.recordDeploymentMode('production', NOW)).toBe('production');
    const another = await db.open();
    // A second start in another mode does not change it: it is told what is recorded.
    expect(await another.recordDeploymentMode('development', NOW)).toBe('production');
    expect(await another.deploymentMode()).toBe('production');
    expect(await store.deploymentMode()).toBe('production');
    expect(await another.recordDeploymentMode('development', NOW, { change: true })).toBe('development');
    expect(await store.deploymentMode()).toBe('development');
    expect(await db.rows('SELECT singleton, mode FROM deployment_mode')).toEqual([{ singleton: 1, mode: 'development' }]);
  });

  test('every record kind reads back whole, from another instance of the store', async () => {
    const company = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
    const companyId = company.doc.id;
    // One company with a Pix key of its own (D43, migration 4), one without.
    const other = buildCompany({ name: 'Padaria Bom Dia Ltda', taxId: '11222333000181', pixKey: '+5511987654321' }, NOW);
    const issued = issueApiKey(other.doc.id, NOW);
    await store.createCompany(other, issued.record);

    const c = client(companyId);
    await store.insertClient(c);
    const p = product(companyId);
    await store.insertProduct(p);
    const s = subscription(p.id, c.id);
    await store.insertSubscription(companyId, s);
    const changed: SubscriptionDoc = { ...s, status: 'ACTIVE', updatedAt: later(60), nextBillingAt: '2025-04-17T12:00:00.000Z' };
    await store.replaceSubscription(companyId, changed);

    const w = webhook(companyId, ['charge.pending']);
    await store.insertWebhook(w, 'whsec_secret');
    const renamed: WebhookDoc = { ...w, name: 'Pagamentos Pix', updatedAt: later(1) };
    await store.replaceWebhook(companyId, renamed);

    // Another tax number than `c`'s, which the charge would reuse (D48).
    const newClient = client(companyId, 'João Pereira Lima', { taxId: '11144477735' });
    const ch = charge(company, p, { customer: newClient });
    expect(await store.claimIdempotencyKey(claimAt(companyId, 'order-42', 'fp-1', 0))).toEqual({ kind: 'claimed' });
    const responseBody = JSON.stringify({ status: 201, message: 'Payment link created', data: { id: ch.id, url: ch.url, devMode: false, total: ch.total } });
    const pending = event('charge.pending');
    await store.insertCharge(ch, companyId, {
      customer: newClient,
      response: { ...claimAt(companyId, 'order-42', 'fp-1', 0), status: 201, body: responseBody },
      events: [pending],
    });
    const { order: o } = await store.insertOrder(companyId, (n) => order(company, n));

    const [due] = await store.claimDueDeliveries(later(2), later(32), 10);
    expect(due).toEqual({
      eventId: pending.id,
      webhookId: w.id,
      companyId,
      type: 'charge.pending',
      body: pending.body,
      attempts: 0,
      url: w.url,
      secret: 'whsec_secret',
    });
    const delivered = attempt(due!, later(3), { httpStatus: 204 });
    await store.recordAttempt({ companyId, attempt: delivered, state: 'DELIVERED' });
    await store.close();

    const second = await db.open();
    const reads: Array<[string, { given: () => Promise<unknown>; want: unknown }]> = [
      ['countCompanies', { given: () => second.countCompanies(), want: 2 }],
      ['getCompany', { given: () => second.getCompany(companyId), want: company }],
      ['getCompany (other)', { given: () => second.getCompany(other.doc.id), want: other }],
      ['getCompany (without a Pix key: no pixKey at all)', { given: async () => 'pixKey' in ((await second.getCompany(companyId)) ?? {}), want: false }],
      ['getCompany (with a Pix key)', { given: async () => (await second.getCompany(other.doc.id))?.pixKey, want: '+5511987654321' }],
      ['findApiKey', { given: () => second.findApiKey(issued.record.id), want: issued.record }],
      ['findApiKey (unknown)', { given: () => second.findApiKey('key_unknown'), want: undefined }],
      ['getClient', { given: () => second.getClient(companyId, c.id), want: c }],
      ['getClient (created with the charge)', { given: () => second.getClient(companyId, newClient.id), want: newClient }],
      [
        'listPageJson',
        {
          given: async () => (JSON.parse(jsonText(await clientsOf(second, companyId))) as ClientDoc[]).map((x) => x.id).sort(),
          want: [c.id, newClient.id].sort(),
        },
      ],
      ['getProducts (duplicates and unknown ids)', { given: () => second.getProducts(companyId, [p.id, 'prod_unknown', p.id]), want: new Map([[p.id, p]]) }],
      ['getProducts (none)', { given: () => second.getProducts(companyId, []), want: new Map() }],
      // An id from a request path may hold U+0000; it names nothing (PostgreSQL's jsonb refuses the escape).
      ['getProducts (an id with U+0000)', { given: () => second.getProducts(companyId, [p.id, 'a\u0000b']), want: new Map([[p.id, p]]) }],
      ['getOrder (an id with U+0000)', { given: () => second.getOrder(companyId, 'a\u0000b'), want: undefined }],
      ['getSubscription (replaced)', { given: () => second.getSubscription(companyId, s.id), want: changed }],
      ['getCharge', { given: () => second.getCharge(companyId, ch.id), want: ch }],
      ['getChargeJson is the text as stored', { given: () => second.getChargeJson(companyId, ch.id), want: JSON.stringify(ch) }],
      ['findCharge', { given: () => second.findCharge(ch.id), want: { companyId, charge: ch } }],
      ['findCharge (unknown)', { given: () => second.findCharge('char_unknown'), want: undefined }],
      [
        'idempotent response replays',
        { given: () => second.claimIdempotencyKey(claimAt(companyId, 'order-42', 'fp-1', 10)), want: { kind: 'replay', status: 201, body: responseBody } },
      ],
      ['getWebhook (replaced)', { given: () => second.getWebhook(companyId, w.id), want: renamed }],
      ['listWebhooks', { given: () => second.listWebhooks(companyId), want: [renamed] }],
      ['listDeliveryAttempts', { given: () => second.listDeliveryAttempts(companyId, w.id, 100), want: [delivered] }],
      ['nothing left to deliver', { given: () => second.claimDueDeliveries(later(3600), later(3630), 10), want: [] }],
      ['the next order number', { given: async () => (await second.insertOrder(companyId, (n) => order(company, n))).order.orderNumber, want: '000002' }],
    ];
    expect(o.orderNumber).toBe('000001');
    for (const [name, { given, want }] of reads) expect(await given(), name).toEqual(want);
  });

  describe('company scoping', () => {
    interface Fixture {
      a: CompanyRecord;
      b: CompanyRecord;
      ids: { client: string; product: string; subscription: string; charge: string; webhook: string };
    }
    let fx: Fixture;

    beforeEach(async () => {
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
      fx = { a, b, ids: { client: c.id, product: p.id, subscription: s.id, charge: ch.id, webhook: w.id } };
    });

    type Read = (store: Store, companyId: string, ids: Fixture['ids']) => Promise<{ id: string } | undefined>;
    test.each<[string, { given: Read; want: keyof Fixture['ids'] }]>([
      ['getClient', { given: (s, co, ids) => s.getClient(co, ids.client), want: 'client' }],
      ['getProducts', { given: async (s, co, ids) => (await s.getProducts(co, [ids.product])).get(ids.product), want: 'product' }],
      ['getSubscription', { given: (s, co, ids) => s.getSubscription(co, ids.subscription), want: 'subscription' }],
      ['getCharge', { given: (s, co, ids) => s.getCharge(co, ids.charge), want: 'charge' }],
      [
        'getChargeJson',
        {
          given: async (s, co, ids) => {
            const json = await s.getChargeJson(co, ids.charge);
            return json === undefined ? undefined : (JSON.parse(json) as { id: string });
          },
          want: 'charge',
        },
      ],
      ['getWebhook', { given: (s, co, ids) => s.getWebhook(co, ids.webhook), want: 'webhook' }],
      ['listWebhooks', { given: async (s, co) => (await s.listWebhooks(co))[0], want: 'webhook' }],
    ])("%s finds the owner's record and nothing with another company's id", async (_name, { given, want }) => {
      expect((await given(store, fx.a.doc.id, fx.ids))?.id).toBe(fx.ids[want]);
      expect(await given(store, fx.b.doc.id, fx.ids)).toBeUndefined();
    });

    test('listPageJson returns only the own company’s clients, as one JSON array', async () => {
      expect((JSON.parse(jsonText(await clientsOf(store, fx.a.doc.id))) as ClientDoc[]).map((c) => c.id)).toEqual([fx.ids.client]);
      expect((JSON.parse(jsonText(await clientsOf(store, fx.b.doc.id))) as ClientDoc[]).map((c) => c.name)).toEqual(['Cliente da Padaria']);
      expect(jsonText(await clientsOf(store, 'comp_nobody'))).toBe('[]');
    });

    test.each<[string, { given: (store: Store, foreign: string, ids: Fixture['ids']) => Promise<unknown>; want?: unknown }]>([
      [
        'replaceSubscription',
        { given: async (s, co, ids) => s.replaceSubscription(co, { ...(await s.getSubscription(fx.a.doc.id, ids.subscription))!, status: 'CANCELLED' }) },
      ],
      ['replaceWebhook', { given: async (s, co, ids) => s.replaceWebhook(co, { ...(await s.getWebhook(fx.a.doc.id, ids.webhook))!, status: 'INACTIVE' }) }],
      ['deleteWebhook', { given: (s, co, ids) => s.deleteWebhook(co, ids.webhook), want: false }],
      [
        'transitionCharge',
        { given: (s, co, ids) => s.transitionCharge(co, ids.charge, (c) => ({ charge: { ...c, status: 'EXPIRED' }, events: [] })), want: undefined },
      ],
      ['setChargeImage', { given: (s, co, ids) => s.setChargeImage(co, ids.charge, 'data:image/png;base64,Zm9yZWlnbg==') }],
    ])("%s with another company's id changes nothing", async (_name, { given, want }) => {
      const before = {
        subscription: await store.getSubscription(fx.a.doc.id, fx.ids.subscription),
        webhook: await store.getWebhook(fx.a.doc.id, fx.ids.webhook),
        charge: await store.getChargeJson(fx.a.doc.id, fx.ids.charge),
      };
      expect(await given(store, fx.b.doc.id, fx.ids)).toEqual(want);
      expect({
        subscription: await store.getSubscription(fx.a.doc.id, fx.ids.subscription),
        webhook: await store.getWebhook(fx.a.doc.id, fx.ids.webhook),
        charge: await store.getChargeJson(fx.a.doc.id, fx.ids.charge),
      }).toEqual(before);
    });

    test('idempotency keys are per company', async () => {
      expect(await store.claimIdempotencyKey(claimAt(fx.a.doc.id, 'shared-key', 'fp-a', 0))).toEqual({ kind: 'claimed' });
      expect(await store.claimIdempotencyKey(claimAt(fx.b.doc.id, 'shared-key', 'fp-b', 0))).toEqual({ kind: 'claimed' });
    });
  });

  test('order numbers increase by one per company, independently of other companies', async () => {
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
      expect(stored.order.orderNumber).toBe(String(want).padStart(6, '0'));
    }
  });

  describe('idempotency keys', () => {
    test('claimed → in-flight → mismatch → replay once the charge stored its response → claimed again after the retention', async () => {
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
              await store.insertCharge(ch, companyId, { response: { ...claimAt(companyId, 'k1', 'fp-1', 0), status: 201, body } });
              return store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-1', 40));
            },
            want: { kind: 'replay', status: 201, body },
          },
        ],
        [
          'same request long after the lease, within the retention',
          { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-1', 3_600)), want: { kind: 'replay', status: 201, body } },
        ],
        ['different request after completion', { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-2', 3_600)), want: { kind: 'mismatch' } }],
        [
          'any request after the retention ended',
          { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-3', 86_401)), want: { kind: 'claimed' } },
        ],
        ['the new claim holds', { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-3', 86_402)), want: { kind: 'in-flight' } }],
        [
          'and is unfinished: the old response is gone',
          { given: () => store.claimIdempotencyKey(claimAt(companyId, 'k1', 'fp-1', 86_402)), want: { kind: 'mismatch' } },
        ],
      ];
      for (const [name, { given, want }] of steps) expect(await given(), name).toEqual(want);
    });

    test.each<[string, { given: { secondFingerprint: string; afterSeconds: number }; want: IdempotencyClaim['kind'] }]>([
      ['same request, lease not yet over', { given: { secondFingerprint: 'fp-1', afterSeconds: 59 }, want: 'in-flight' }],
      ['same request, lease over', { given: { secondFingerprint: 'fp-1', afterSeconds: 61 }, want: 'claimed' }],
      ['other request, lease not yet over', { given: { secondFingerprint: 'fp-2', afterSeconds: 59 }, want: 'mismatch' }],
      ['other request, lease over', { given: { secondFingerprint: 'fp-2', afterSeconds: 61 }, want: 'claimed' }],
    ])('an unfinished claim: %s → %s', async (_name, { given, want }) => {
      const { doc } = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      expect(await store.claimIdempotencyKey(claimAt(doc.id, 'k', 'fp-1', 0))).toEqual({ kind: 'claimed' });
      expect((await store.claimIdempotencyKey(claimAt(doc.id, 'k', given.secondFingerprint, given.afterSeconds))).kind).toBe(want);
      // A claim taken over holds a new lease, from the time it was taken.
      if (want === 'claimed')
        expect((await store.claimIdempotencyKey(claimAt(doc.id, 'k', given.secondFingerprint, given.afterSeconds + 59))).kind).toBe('in-flight');
    });

    test.each<[string, { given: { completed: boolean }; want: IdempotencyClaim['kind'] }]>([
      ['an unfinished key is freed', { given: { completed: false }, want: 'claimed' }],
      ['a key with a stored response is kept', { given: { completed: true }, want: 'replay' }],
    ])('releaseIdempotencyKey: %s', async (_name, { given, want }) => {
      const company = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      const companyId = company.doc.id;
      expect(await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 0))).toEqual({ kind: 'claimed' });
      if (given.completed) {
        const p = product(companyId);
        await store.insertProduct(p);
        await store.insertCharge(charge(company, p), companyId, { response: { ...claimAt(companyId, 'k', 'fp-1', 0), status: 201, body: '{"data":{}}' } });
      }
      await store.releaseIdempotencyKey(companyId, 'k');
      // The same request within the lease: a freed key is claimed afresh, a kept one replays.
      expect((await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 1))).kind).toBe(want);
    });
  });

  describe('insertCharge is all or nothing', () => {
    interface Context {
      company: CompanyRecord;
      existing: StoredCharge;
      existingEvent: NewEvent;
      product: ProductDoc;
      customer: ClientDoc;
    }
    test.each<[string, { given: (ctx: Context) => { charge: StoredCharge; companyId: string; events: NewEvent[] } }]>([
      [
        'a duplicate charge id',
        {
          given: ({ company, existing, product: p, customer }) => ({
            charge: charge(company, p, { customer, id: existing.id }),
            companyId: company.doc.id,
            events: [event('charge.pending')],
          }),
        },
      ],
      [
        'a company that does not exist',
        {
          given: ({ company, product: p, customer }) => ({ charge: charge(company, p, { customer }), companyId: 'comp_doesnotexist0000000000000', events: [] }),
        },
      ],
      // Fails last, once the client, the charge and a first event are written.
      [
        'an event id already in the outbox',
        {
          given: ({ company, product: p, customer, existingEvent }) => ({
            charge: charge(company, p, { customer }),
            companyId: company.doc.id,
            events: [event('charge.pending'), existingEvent],
          }),
        },
      ],
    ])('a failure on %s leaves no client, no charge, no event and no idempotent response behind', async (_name, { given }) => {
      const company = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      const companyId = company.doc.id;
      const p = product(companyId);
      await store.insertProduct(p);
      await store.insertWebhook(webhook(companyId, ['charge.pending']), 'whsec_x');
      const existing = charge(company, p);
      const existingEvent = event('charge.pending');
      await store.insertCharge(existing, companyId, { events: [existingEvent] });
      const outbox = async () => ({
        events: await db.rows<{ id: string }>('SELECT id FROM webhook_events ORDER BY seq'),
        deliveries: await db.rows<{ event_id: string }>('SELECT event_id FROM webhook_deliveries ORDER BY seq'),
      });
      const outboxBefore = await outbox();
      expect(outboxBefore.events).toEqual([{ id: existingEvent.id }]);

      const customer = client(companyId, 'João Pereira Lima');
      expect(await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 0))).toEqual({ kind: 'claimed' });
      const failing = given({ company, existing, existingEvent, product: p, customer });
      await expect(
        store.insertCharge(failing.charge, failing.companyId, {
          customer,
          response: { ...claimAt(companyId, 'k', 'fp-1', 0), status: 201, body: '{"data":{}}' },
          events: failing.events,
        }),
      ).rejects.toThrow();

      expect(await store.getClient(companyId, customer.id)).toBeUndefined();
      expect(jsonText(await clientsOf(store, companyId))).toBe('[]');
      expect(await store.getCharge(companyId, existing.id)).toEqual(existing);
      if (failing.charge.id !== existing.id) expect(await store.findCharge(failing.charge.id)).toBeUndefined();
      expect(await outbox()).toEqual(outboxBefore);
      // No response was stored: the key is still an unfinished claim, not a replay.
      expect(await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 1))).toEqual({ kind: 'in-flight' });
      await store.releaseIdempotencyKey(companyId, 'k');
      expect(await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 2))).toEqual({ kind: 'claimed' });

      // The same store still works after the rolled-back transaction.
      const retry = charge(company, p, { customer });
      await store.insertCharge(retry, companyId, {
        customer,
        response: { ...claimAt(companyId, 'k', 'fp-1', 0), status: 201, body: '{"data":{}}' },
        events: [event('charge.pending')],
      });
      expect(await store.getClient(companyId, customer.id)).toEqual(customer);
      expect(await store.getCharge(companyId, retry.id)).toEqual(retry);
      expect(await db.rows<{ seq: number }>('SELECT seq FROM webhook_events ORDER BY seq')).toEqual([{ seq: 1 }, { seq: 2 }]);
      expect(await store.claimIdempotencyKey(claimAt(companyId, 'k', 'fp-1', 3))).toEqual({ kind: 'replay', status: 201, body: '{"data":{}}' });
    });
  });

  describe('clients at scale (D48)', () => {
    const byPosition = (a: ClientDoc, b: ClientDoc): number =>
      a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? -1 : 1) : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

    /** `count` clients of the company, two per instant (the id breaks the tie), stored in no particular order; returned in the list's order. */
    async function storeClients(companyId: string, count: number): Promise<ClientDoc[]> {
      const made = Array.from({ length: count }, (_, i) => {
        const when = later(Math.floor(i / 2));
        return client(companyId, `Cliente ${i}`, { createdAt: when, updatedAt: when });
      });
      for (const c of [...made].reverse().sort((a, b) => (a.name.length % 3) - (b.name.length % 3))) await store.insertClient(c);
      return made.sort(byPosition);
    }

    /** Every page from the first, following `next`: the ids of each. */
    async function walk(companyId: string, limit: number): Promise<string[][]> {
      const pages: string[][] = [];
      let after: ListPosition | undefined;
      for (;;) {
        const page = await store.listPageJson('clients', companyId, limit, after);
        pages.push((JSON.parse(jsonText(page.json)) as ClientDoc[]).map((c) => c.id));
        if (!page.next) return pages;
        expect(pages.length, 'pages').toBeLessThan(100);
        after = page.next;
      }
    }

    test.each<[string, { given: { clients: number; limit: number }; want: { sizes: number[] } }]>([
      ['no clients', { given: { clients: 0, limit: 5 }, want: { sizes: [0] } }],
      ['fewer clients than the limit', { given: { clients: 3, limit: 5 }, want: { sizes: [3] } }],
      ['exactly the limit: one page, no next', { given: { clients: 5, limit: 5 }, want: { sizes: [5] } }],
      ['one more than the limit', { given: { clients: 6, limit: 5 }, want: { sizes: [5, 1] } }],
      ['pages of one, across ties of createdAt', { given: { clients: 5, limit: 1 }, want: { sizes: [1, 1, 1, 1, 1] } }],
      ['an odd limit splitting ties', { given: { clients: 11, limit: 3 }, want: { sizes: [3, 3, 3, 2] } }],
    ])('listPageJson with %s: every client once, in the list order, and only the own company', async (_name, { given, want }) => {
      const a = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      const b = await addCompany(store, 'Padaria Bom Dia Ltda', '11222333000181');
      const ofA = await storeClients(a.doc.id, given.clients);
      await storeClients(b.doc.id, 4);
      const pages = await walk(a.doc.id, given.limit);
      expect(pages.map((p) => p.length)).toEqual(want.sizes);
      expect(pages.flat()).toEqual(ofA.map((c) => c.id));
      // The whole list, unpaged, is the same order.
      expect((JSON.parse(jsonText(await clientsOf(store, a.doc.id))) as ClientDoc[]).map((c) => c.id)).toEqual(ofA.map((c) => c.id));
    });

    test('a page holds the documents as stored, and its next position is its last client', async () => {
      const { doc } = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      const ofA = await storeClients(doc.id, 3);
      const first = await store.listPageJson('clients', doc.id, 2);
      expect(jsonText(first.json)).toBe(
        `[${ofA
          .slice(0, 2)
          .map((c) => JSON.stringify(c))
          .join(',')}]`,
      );
      expect(first.next).toEqual({ createdAt: ofA[1]!.createdAt, id: ofA[1]!.id });
      const last = await store.listPageJson('clients', doc.id, 2, first.next);
      expect(jsonText(last.json)).toBe(`[${JSON.stringify(ofA[2])}]`);
      expect(last.next).toBeUndefined();
    });

    test('a walk sees a client created meanwhile once if it comes after the position, and never one before it', async () => {
      const { doc } = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      const ofA = await storeClients(doc.id, 4);
      const first = await store.listPageJson('clients', doc.id, 2);
      const early = client(doc.id, 'Antes', { createdAt: later(-60), updatedAt: later(-60) });
      const late = client(doc.id, 'Depois', { createdAt: later(60), updatedAt: later(60) });
      await store.insertClient(early);
      await store.insertClient(late);
      const rest = await store.listPageJson('clients', doc.id, 10, first.next);
      expect((JSON.parse(jsonText(rest.json)) as ClientDoc[]).map((c) => c.id)).toEqual([ofA[2]!.id, ofA[3]!.id, late.id]);
      expect(rest.next).toBeUndefined();
    });

    test('a position past every client, or of another company, gives what follows it in this company only', async () => {
      const a = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      const b = await addCompany(store, 'Padaria Bom Dia Ltda', '11222333000181');
      const ofA = await storeClients(a.doc.id, 2);
      const ofB = await storeClients(b.doc.id, 2);
      const past = await store.listPageJson('clients', a.doc.id, 5, { createdAt: later(3600), id: ofA[1]!.id });
      expect(jsonText(past.json)).toBe('[]');
      expect(past.next).toBeUndefined();
      const fromB = await store.listPageJson('clients', a.doc.id, 5, { createdAt: ofB[0]!.createdAt, id: ofB[0]!.id });
      expect((JSON.parse(jsonText(fromB.json)) as ClientDoc[]).every((c) => c.companyId === a.doc.id)).toBe(true);
    });

    test('listPositionAt: the position of the count-th client when more follow, of the own company only (D49)', async () => {
      const a = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      const b = await addCompany(store, 'Padaria Bom Dia Ltda', '11222333000181');
      const ofA = await storeClients(a.doc.id, 5);
      await storeClients(b.doc.id, 4);
      expect(await store.listPositionAt('clients', a.doc.id, 3)).toEqual({ createdAt: ofA[2]!.createdAt, id: ofA[2]!.id });
      expect(await store.listPositionAt('clients', a.doc.id, 4)).toEqual({ createdAt: ofA[3]!.createdAt, id: ofA[3]!.id });
      expect(await store.listPositionAt('clients', a.doc.id, 5), 'no client follows the fifth').toBeUndefined();
      expect(await store.listPositionAt('clients', a.doc.id, 9)).toBeUndefined();
    });

    const taxId = '52998224725';
    test.each<[string, { given: Array<Partial<ClientDoc> & { of?: 'other' }>; want: { reused?: number } }]>([
      ['no client with the tax number: the customer is inserted', { given: [{ taxId: '11144477735' }], want: {} }],
      ['an ACTIVE client with it, other name and e-mail: reused as it is', { given: [{ name: 'Maria S.', email: 'antigo@example.com' }], want: { reused: 0 } }],
      ['two ACTIVE clients with it: the oldest is reused', { given: [{ createdAt: later(2) }, { createdAt: later(1) }], want: { reused: 1 } }],
      ['only an INACTIVE client with it: the customer is inserted', { given: [{ status: 'INACTIVE' }], want: {} }],
      [
        'an older INACTIVE and a newer ACTIVE one: the ACTIVE one',
        { given: [{ status: 'INACTIVE', createdAt: later(1) }, { createdAt: later(2) }], want: { reused: 1 } },
      ],
      ["another company's ACTIVE client with it: the customer is inserted", { given: [{ of: 'other' }], want: {} }],
    ])('insertCharge with a customer and %s', async (_name, { given, want }) => {
      const company = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      const other = await addCompany(store, 'Padaria Bom Dia Ltda', '11222333000181');
      const companyId = company.doc.id;
      const p = product(companyId);
      await store.insertProduct(p);
      const existing = given.map(({ of, ...fields }) => client(of === 'other' ? other.doc.id : companyId, 'Maria Silva Souza', { taxId, ...fields }));
      for (const c of existing) await store.insertClient(c);
      const customer = client(companyId, 'Maria Silva Souza', { taxId, email: 'nova@example.com', createdAt: later(10), updatedAt: later(10) });
      const ch = charge(company, p, { customer });
      await store.insertCharge(ch, companyId, { customer });

      const own = existing.filter((c) => c.companyId === companyId).sort(byPosition);
      const listed = JSON.parse(jsonText(await clientsOf(store, companyId))) as ClientDoc[];
      expect(listed).toEqual(want.reused === undefined ? [...own, customer] : own);
      if (want.reused !== undefined) expect(await store.getClient(companyId, existing[want.reused]!.id)).toEqual(existing[want.reused]);
      expect(await store.getCharge(companyId, ch.id)).toEqual(ch);
    });

    test('charges of one buyer make one client, the first; POST /client still adds one each time (D33)', async () => {
      const company = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      const companyId = company.doc.id;
      const p = product(companyId);
      await store.insertProduct(p);
      const customers = Array.from({ length: 3 }, (_, i) => client(companyId, `Maria ${i}`, { createdAt: later(i), updatedAt: later(i) }));
      for (const customer of customers) await store.insertCharge(charge(company, p, { customer }), companyId, { customer });
      expect(JSON.parse(jsonText(await clientsOf(store, companyId)))).toEqual([customers[0]]);
      const direct = client(companyId, 'Maria direta', { createdAt: later(30), updatedAt: later(30) });
      await store.insertClient(direct);
      expect(JSON.parse(jsonText(await clientsOf(store, companyId)))).toEqual([customers[0], direct]);
    });

    test('migration 5 indexes the tax numbers of clients stored before it: they are reused too', async () => {
      const company = await addCompany(store, 'Café Aurora Ltda', '45723174000110');
      const companyId = company.doc.id;
      const p = product(companyId);
      await store.insertProduct(p);
      const before = client(companyId);
      await store.insertClient(before);
      // The schema as version 4 left it: no tax_id column, migration 5 not applied.
      await db.exec('DROP INDEX clients_by_tax_id');
      await db.exec('ALTER TABLE clients DROP COLUMN tax_id');
      await db.exec('DELETE FROM schema_migrations WHERE version = 5');
      const upgraded = await db.open();
      expect(await db.rows('SELECT tax_id FROM clients')).toEqual([{ tax_id: before.taxId }]);
      const customer = client(companyId, 'Maria', { createdAt: later(5), updatedAt: later(5) });
      await upgraded.insertCharge(charge(company, p, { customer }), companyId, { customer });
      expect(JSON.parse(jsonText(await clientsOf(upgraded, companyId)))).toEqual([before]);
    });
  });

  describe('the outbox', () => {
    test('an event is written only when an ACTIVE webhook of the company wants it, with a delivery for each that does', async () => {
      const company = await addCompany(store, 'Café Aurora', '45723174000110');
      const otherCompany = await addCompany(store, 'Padaria Bom Dia', '11222333000181');
      const companyId = company.doc.id;
      const prod = product(companyId);
      await store.insertProduct(prod);
      // Another company's webhook wants everything, and gets nothing of this company.
      await store.insertWebhook(webhook(otherCompany.doc.id, ['charge.pending', 'charge.paid']), 'whsec_o');

      const a = event('charge.pending');
      await store.insertCharge(charge(company, prod), companyId, { events: [a] });
      const wantsPaid = webhook(companyId, ['charge.paid']);
      await store.insertWebhook(wantsPaid, 'whsec_x');
      const inactive = { ...webhook(companyId, ['charge.pending', 'charge.paid']), status: 'INACTIVE' as const };
      await store.insertWebhook(inactive, 'whsec_i');
      const b = event('charge.pending');
      await store.insertCharge(charge(company, prod), companyId, { events: [b] });
      const wantsBoth = webhook(companyId, ['charge.pending', 'charge.paid']);
      await store.insertWebhook(wantsBoth, 'whsec_y');
      const third = charge(company, prod);
      const c = event('charge.pending');
      await store.insertCharge(third, companyId, { events: [c] });
      const d = event('charge.paid');
      const e = event('charge.expired');
      const moved = await store.transitionCharge(companyId, third.id, (stored) => ({
        charge: { ...stored, paymentStatus: 'PAID', status: 'PAID' },
        events: [d, e],
      }));
      expect(moved).toMatchObject({ id: third.id, status: 'PAID' });

      expect(await db.rows('SELECT id, company_id, seq, type FROM webhook_events ORDER BY seq')).toEqual([
        { id: c.id, company_id: companyId, seq: 1, type: 'charge.pending' },
        { id: d.id, company_id: companyId, seq: 2, type: 'charge.paid' },
      ]);
      expect(await db.rows(`SELECT event_id, webhook_id, seq, state, attempts FROM webhook_deliveries ORDER BY seq, webhook_id`)).toEqual([
        { event_id: c.id, webhook_id: wantsBoth.id, seq: 1, state: 'PENDING', attempts: 0 },
        ...[wantsPaid.id, wantsBoth.id].sort().map((id) => ({ event_id: d.id, webhook_id: id, seq: 2, state: 'PENDING', attempts: 0 })),
      ]);
    });

    test.each<[string, { given: { events: ChargeEventType[] }; want: { events: number; deliveries: number } }]>([
      ['no events', { given: { events: [] }, want: { events: 0, deliveries: 0 } }],
      ['one wanted by both webhooks', { given: { events: ['charge.paid'] }, want: { events: 1, deliveries: 2 } }],
      ['one wanted by one webhook', { given: { events: ['charge.expired'] }, want: { events: 1, deliveries: 1 } }],
      ['one wanted by none', { given: { events: ['charge.received'] }, want: { events: 0, deliveries: 0 } }],
      ['two, of which one wanted by both', { given: { events: ['charge.received', 'charge.paid'] }, want: { events: 1, deliveries: 2 } }],
    ])('transitionCharge with %s', async (_name, { given, want }) => {
      const company = await addCompany(store, 'Café Aurora', '45723174000110');
      const companyId = company.doc.id;
      const prod = product(companyId);
      await store.insertProduct(prod);
      await store.insertWebhook(webhook(companyId, ['charge.paid', 'charge.expired']), 'whsec_1');
      await store.insertWebhook(webhook(companyId, ['charge.paid']), 'whsec_2');
      const ch = charge(company, prod);
      await store.insertCharge(ch, companyId, {});
      await store.transitionCharge(companyId, ch.id, (stored) => ({ charge: { ...stored, status: 'PAID' }, events: given.events.map((type) => event(type)) }));
      expect({
        events: (await db.rows('SELECT id FROM webhook_events')).length,
        deliveries: (await db.rows('SELECT event_id FROM webhook_deliveries')).length,
      }).toEqual(want);
    });

    test('a refused move (apply throws) changes nothing and writes no event', async () => {
      const company = await addCompany(store, 'Café Aurora', '45723174000110');
      const prod = product(company.doc.id);
      await store.insertProduct(prod);
      await store.insertWebhook(webhook(company.doc.id, ['charge.paid']), 'whsec_1');
      const ch = charge(company, prod);
      await store.insertCharge(ch, company.doc.id, {});
      await expect(
        store.transitionCharge(company.doc.id, ch.id, () => {
          throw new Error('refused');
        }),
      ).rejects.toThrow('refused');
      expect(await store.getChargeJson(company.doc.id, ch.id)).toBe(JSON.stringify(ch));
      expect(await store.transitionCharge(company.doc.id, 'char_unknown', (c) => ({ charge: c, events: [event('charge.paid')] }))).toBeUndefined();
      expect(await db.rows('SELECT id FROM webhook_events')).toEqual([]);
      // The store still works after the rollback.
      expect(await store.transitionCharge(company.doc.id, ch.id, (c) => ({ charge: { ...c, status: 'PAID' }, events: [event('charge.paid')] }))).toMatchObject({
        status: 'PAID',
      });
      expect(await db.rows('SELECT seq FROM webhook_events')).toEqual([{ seq: 1 }]);
    });
  });

  test('openChargesDue lists OPEN charges expired at `now`, soonest first, up to the limit', async () => {
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    const companyId = company.doc.id;
    const prod = product(companyId);
    await store.insertProduct(prod);
    const expiring = (minutes: number) => charge(company, prod, { expiresAt: later(minutes * 60) });
    const [c3, c1, c2, c4, paid] = [expiring(3), expiring(1), expiring(2), expiring(10), expiring(0)];
    for (const ch of [c3!, c1!, c2!, c4!, paid!]) await store.insertCharge(ch, companyId, {});
    await store.transitionCharge(companyId, paid!.id, (c) => ({ charge: { ...c, status: 'PAID' }, events: [] }));

    const due = async (minutes: number, limit: number) => (await store.openChargesDue(later(minutes * 60), limit)).map((x) => x.id);
    const cases: Array<[string, { given: () => Promise<string[]>; want: string[] }]> = [
      ['before any expiry', { given: () => due(0.5, 10), want: [] }],
      ['at an expiry (inclusive)', { given: () => due(2, 10), want: [c1!.id, c2!.id] }],
      ['limited', { given: () => due(5, 2), want: [c1!.id, c2!.id] }],
      ['all, soonest first, not the PAID one', { given: () => due(60, 10), want: [c1!.id, c2!.id, c3!.id, c4!.id] }],
    ];
    for (const [name, { given, want }] of cases) expect(await given(), name).toEqual(want);
    expect(await store.openChargesDue(later(3600), 1)).toEqual([{ companyId, id: c1!.id }]);
  });

  describe('webhook deliveries', () => {
    let companyId: string;
    let company: CompanyRecord;
    let prod: ProductDoc;

    beforeEach(async () => {
      company = await addCompany(store, 'Café Aurora', '45723174000110');
      companyId = company.doc.id;
      prod = product(companyId);
      await store.insertProduct(prod);
    });

    /** A charge moved once per type, each move emitting its event, `seconds` apart. */
    async function emit(types: ChargeEventType[]): Promise<NewEvent[]> {
      const ch = charge(company, prod);
      await store.insertCharge(ch, companyId, {});
      const events = types.map((type, i) => event(type, later(i)));
      for (const e of events) await store.transitionCharge(companyId, ch.id, (c) => ({ charge: c, events: [e] }));
      return events;
    }

    test('one due delivery per webhook, its oldest; leased until leaseUntil; the next once the first is delivered', async () => {
      const w1 = webhook(companyId, ['charge.paid', 'charge.expired'], later(-2));
      const w2 = webhook(companyId, ['charge.expired'], later(-1));
      await store.insertWebhook(w1, 'whsec_1');
      await store.insertWebhook(w2, 'whsec_2');
      const [paid, expired] = await emit(['charge.paid', 'charge.expired']);

      const first = await store.claimDueDeliveries(later(10), later(40), 10);
      expect(sortedPairs(first)).toEqual([`${paid!.id}/${w1.id}`, `${expired!.id}/${w2.id}`].sort());
      expect(first.find((d) => d.webhookId === w1.id)).toEqual({
        eventId: paid!.id,
        webhookId: w1.id,
        companyId,
        type: 'charge.paid',
        body: paid!.body,
        attempts: 0,
        url: w1.url,
        secret: 'whsec_1',
      });

      const pair = (e: NewEvent | undefined, w: WebhookDoc): string => `${e!.id}/${w.id}`;
      expect(await store.claimDueDeliveries(later(39), later(69), 10), 'within the lease, nothing').toEqual([]);
      const limited = await store.claimDueDeliveries(later(40), later(70), 1);
      expect(limited, 'the limit bounds a claim').toHaveLength(1);
      const unsent = first.find((d) => d.webhookId !== limited[0]!.webhookId);
      expect(sortedPairs(await store.claimDueDeliveries(later(40), later(70), 10)), 'after the lease, the other one is due again').toEqual(
        sortedPairs([unsent!]),
      );

      // At later(70) both are due again: w1 delivers its first event, w2 fails and retries at later(500).
      const again = await store.claimDueDeliveries(later(70), later(100), 10);
      expect(sortedPairs(again)).toEqual(sortedPairs(first));
      await store.recordAttempt({ companyId, attempt: attempt(again.find((d) => d.webhookId === w1.id)!, later(71), { httpStatus: 200 }), state: 'DELIVERED' });
      await store.recordAttempt({
        companyId,
        attempt: attempt(again.find((d) => d.webhookId === w2.id)!, later(72), { httpStatus: 500, nextAttemptAt: later(500) }),
        state: 'PENDING',
      });
      expect(sortedPairs(await store.claimDueDeliveries(later(80), later(110), 10)), "w1's next event is due; w2's retry is not").toEqual([pair(expired, w1)]);
      const retried = await store.claimDueDeliveries(later(500), later(530), 10);
      expect(sortedPairs(retried), "w2's retry is due at its nextAttemptAt (w1's lease ended too)").toEqual([pair(expired, w1), pair(expired, w2)].sort());
      expect(retried.find((d) => d.webhookId === w2.id)?.attempts, 'with its attempt counted').toBe(1);
    });

    test("a claim takes the companies in turns, at most a company's free slots, and leases only what it returns (D14)", async () => {
      const other = await addCompany(store, 'Padaria Bom Dia', '11222333000181');
      const otherProd = product(other.doc.id);
      await store.insertProduct(otherProd);
      const hooksA = Array.from({ length: 5 }, (_, i) => webhook(companyId, ['charge.paid'], later(-10 + i)));
      for (const w of hooksA) await store.insertWebhook(w, 'whsec_a');
      await store.insertWebhook(webhook(other.doc.id, ['charge.paid']), 'whsec_b');
      // A's event is due for its five webhooks; B's a second later: by due time alone, A's five would all come first.
      await emit(['charge.paid']);
      const chargeB = charge(other, otherProd);
      await store.insertCharge(chargeB, other.doc.id, {});
      await store.transitionCharge(other.doc.id, chargeB.id, (c) => ({ charge: c, events: [event('charge.paid', later(1))] }));

      const claimedA = new Set<string>();
      const claim = async (at: number, limit: number, share?: DeliveryShare): Promise<string> => {
        const due = await store.claimDueDeliveries(later(at), later(at + 10), limit, share);
        for (const d of due) if (d.companyId === companyId) claimedA.add(d.webhookId);
        return due.map((d) => (d.companyId === companyId ? 'A' : d.companyId === other.doc.id ? 'B' : '?')).join('');
      };
      const steps: Array<[string, { given: () => Promise<string>; want: string }]> = [
        ['three, two a company at most: in turns', { given: () => claim(10, 3, { perCompany: 2 }), want: 'ABA' }],
        ["A's two slots busy: only B's", { given: () => claim(20, 10, { perCompany: 2, busy: new Map([[companyId, 2]]) }), want: 'B' }],
        [
          'A with one of four busy: three of A, none of B (leased); A was not leased by the claim before',
          { given: () => claim(21, 10, { perCompany: 4, busy: new Map([[companyId, 1]]) }), want: 'AAA' },
        ],
        ["without a share: A's other two", { given: () => claim(22, 10), want: 'AA' }],
        // Re-leased at 30 (B) and 31, 32 (A): B is due first, and a turn goes by due time.
        ['every lease over, limit six: all of them, one turn each, then the rest of A', { given: () => claim(40, 6), want: 'BAAAAA' }],
      ];
      for (const [name, { given, want }] of steps) expect(await given(), name).toBe(want);
      expect([...claimedA].sort()).toEqual(hooksA.map((w) => w.id).sort());
    });

    test.each<[string, { given: { state: 'FAILED' | 'PENDING'; disableWebhook: boolean }; want: { status: WebhookDoc['status']; dueAgain: boolean } }]>([
      ['a retry', { given: { state: 'PENDING', disableWebhook: false }, want: { status: 'ACTIVE', dueAgain: true } }],
      ['giving up', { given: { state: 'FAILED', disableWebhook: false }, want: { status: 'ACTIVE', dueAgain: false } }],
      ['410 Gone', { given: { state: 'FAILED', disableWebhook: true }, want: { status: 'INACTIVE', dueAgain: false } }],
    ])('recordAttempt of %s', async (_name, { given, want }) => {
      const w = webhook(companyId, ['charge.paid']);
      await store.insertWebhook(w, 'whsec_1');
      await emit(['charge.paid', 'charge.paid']);
      const [due] = await store.claimDueDeliveries(later(10), later(40), 10);
      const doc = attempt(due!, later(11), {
        httpStatus: given.disableWebhook ? 410 : 503,
        ...(given.state === 'PENDING' ? { nextAttemptAt: later(100) } : {}),
      });
      await store.recordAttempt({ companyId, attempt: doc, state: given.state, ...(given.disableWebhook ? { disableWebhook: true } : {}) });

      const stored = await store.getWebhook(companyId, w.id);
      expect(stored?.status).toBe(want.status);
      if (given.disableWebhook) expect(stored).toEqual({ ...w, status: 'INACTIVE', updatedAt: later(11) });
      expect(await store.listDeliveryAttempts(companyId, w.id, 100)).toEqual([doc]);
      const next = await store.claimDueDeliveries(later(100), later(130), 10);
      // A retry makes the same event due again; giving up moves on to the next event; an INACTIVE webhook gets nothing.
      expect(next.map((d) => d.eventId)).toEqual(want.status === 'INACTIVE' ? [] : [want.dueAgain ? due!.eventId : expect.not.stringMatching(due!.eventId)]);
    });

    test('listDeliveryAttempts lists the attempts of one webhook, newest first', async () => {
      const w = webhook(companyId, ['charge.paid']);
      const other = webhook(companyId, ['charge.paid']);
      await store.insertWebhook(w, 'whsec_1');
      await store.insertWebhook(other, 'whsec_2');
      await emit(['charge.paid']);
      const docs: WebhookDeliveryDoc[] = [];
      for (let i = 0; i < 3; i++) {
        const [due] = (await store.claimDueDeliveries(later(1000 * i + 10), later(1000 * i + 40), 10)).filter((d) => d.webhookId === w.id);
        const doc = attempt(due!, later(1000 * i + 11), { httpStatus: 500, nextAttemptAt: later(1000 * (i + 1)) });
        await store.recordAttempt({ companyId, attempt: doc, state: 'PENDING' });
        docs.push(doc);
      }
      expect((await store.listDeliveryAttempts(companyId, w.id, 100)).map((d) => d.attempt)).toEqual([3, 2, 1]);
      expect(await store.listDeliveryAttempts(companyId, w.id, 100)).toEqual(docs.reverse());
      expect(await store.listDeliveryAttempts(companyId, other.id, 100)).toEqual([]);
      expect(await store.listDeliveryAttempts('comp_other', w.id, 100)).toEqual([]);
      // At most `limit`, the newest (D49).
      expect((await store.listDeliveryAttempts(companyId, w.id, 2)).map((d) => d.attempt)).toEqual([3, 2]);
    });

    test("insertWebhook stores a company's registrations up to its limit, then refuses without storing (D49)", async () => {
      const kept = [webhook(companyId, ['charge.paid']), webhook(companyId, ['charge.paid'])];
      for (const w of kept) expect(await store.insertWebhook(w, 'whsec_1', 2)).toBe(true);
      const third = webhook(companyId, ['charge.paid']);
      expect(await store.insertWebhook(third, 'whsec_1', 2)).toBe(false);
      expect((await store.listWebhooks(companyId)).map((w) => w.id).sort()).toEqual(kept.map((w) => w.id).sort());
      // Another company's count is its own; a deleted registration frees its place.
      const otherCompany = await addCompany(store, 'Padaria Bom Dia', '11222333000181');
      expect(await store.insertWebhook(webhook(otherCompany.doc.id, ['charge.paid']), 'whsec_1', 2)).toBe(true);
      expect(await store.deleteWebhook(companyId, kept[0]!.id)).toBe(true);
      expect(await store.insertWebhook(third, 'whsec_1', 2)).toBe(true);
    });

    test('insertWebhook at the limit, twice at once: one is stored (D49)', async () => {
      await store.insertWebhook(webhook(companyId, ['charge.paid']), 'whsec_1', 2);
      const results = await Promise.all([0, 1].map(() => store.insertWebhook(webhook(companyId, ['charge.paid']), 'whsec_1', 2)));
      expect(results.sort()).toEqual([false, true]);
      expect(await store.listWebhooks(companyId)).toHaveLength(2);
    });

    test('deleteWebhook takes its deliveries and attempts along; an attempt recorded after it records nothing', async () => {
      const w = webhook(companyId, ['charge.paid']);
      const kept = webhook(companyId, ['charge.paid']);
      await store.insertWebhook(w, 'whsec_1');
      await store.insertWebhook(kept, 'whsec_2');
      await emit(['charge.paid', 'charge.paid']);
      const [due] = (await store.claimDueDeliveries(later(10), later(40), 10)).filter((d) => d.webhookId === w.id);
      await store.recordAttempt({ companyId, attempt: attempt(due!, later(11), { httpStatus: 500, nextAttemptAt: later(20) }), state: 'PENDING' });
      const [inFlight] = (await store.claimDueDeliveries(later(20), later(50), 10)).filter((d) => d.webhookId === w.id);

      const steps: Array<[string, { given: () => Promise<unknown>; want: unknown }]> = [
        ['deleted', { given: () => store.deleteWebhook(companyId, w.id), want: true }],
        ['gone', { given: () => store.getWebhook(companyId, w.id), want: undefined }],
        ['deleted again', { given: () => store.deleteWebhook(companyId, w.id), want: false }],
        [
          'its attempt in flight records nothing',
          { given: () => store.recordAttempt({ companyId, attempt: attempt(inFlight!, later(21), { httpStatus: 200 }), state: 'DELIVERED' }), want: undefined },
        ],
        ['its attempts', { given: () => db.rows(`SELECT id FROM webhook_attempts WHERE webhook_id = '${w.id}'`), want: [] }],
        ['its deliveries', { given: () => db.rows(`SELECT event_id FROM webhook_deliveries WHERE webhook_id = '${w.id}'`), want: [] }],
        [
          'the other keeps its own',
          { given: async () => (await db.rows(`SELECT event_id FROM webhook_deliveries WHERE webhook_id = '${kept.id}'`)).length, want: 2 },
        ],
        ['listWebhooks', { given: async () => (await store.listWebhooks(companyId)).map((x) => x.id), want: [kept.id] }],
      ];
      for (const [name, { given, want }] of steps) expect(await given(), name).toEqual(want);
    });

    test('listWebhooks lists oldest first', async () => {
      const second = webhook(companyId, ['charge.paid'], later(2));
      const first = webhook(companyId, ['charge.paid'], later(1));
      await store.insertWebhook(second, 'whsec_2');
      await store.insertWebhook(first, 'whsec_1');
      expect((await store.listWebhooks(companyId)).map((w) => w.id)).toEqual([first.id, second.id]);
    });
  });

  test.each<[string, { given: { existing?: string; images: string[] }; want: string }]>([
    [
      'the first image stays',
      { given: { images: ['data:image/png;base64,Zmlyc3Q=', 'data:image/png;base64,c2Vjb25k'] }, want: 'data:image/png;base64,Zmlyc3Q=' },
    ],
    [
      'an image stored with the charge stays',
      { given: { existing: 'data:image/png;base64,b2xk', images: ['data:image/png;base64,bmV3'] }, want: 'data:image/png;base64,b2xk' },
    ],
    ['any JSON string content is kept exactly', { given: { images: ['quote " backslash \\ é \u2028 end'] }, want: 'quote " backslash \\ é \u2028 end' }],
  ])('setChargeImage: %s', async (_name, { given, want }) => {
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    const prod = product(company.doc.id);
    await store.insertProduct(prod);
    const ch: StoredCharge = { ...charge(company, prod), ...(given.existing ? { brCodeBase64: given.existing } : {}) };
    await store.insertCharge(ch, company.doc.id, {});
    for (const image of given.images) await store.setChargeImage(company.doc.id, ch.id, image);
    // The text as SQLite's json_set writes it: the member appended, the rest as stored.
    const json = given.existing ? JSON.stringify(ch) : JSON.stringify({ ...ch, brCodeBase64: want });
    expect(await store.getChargeJson(company.doc.id, ch.id)).toBe(json);
    expect((await store.getCharge(company.doc.id, ch.id))?.brCodeBase64).toBe(want);
  });

  describe('sandbox reset (D51)', () => {
    /** Rows of each table that belong to a company (deliveries through their events). */
    const perCompany = async (companyId: string): Promise<Record<string, number>> => {
      const where = `company_id = '${companyId}'`;
      const tables: Record<string, string> = {
        companies: `SELECT id FROM companies WHERE id = '${companyId}'`,
        api_keys: `SELECT id FROM api_keys WHERE ${where}`,
        clients: `SELECT id FROM clients WHERE ${where}`,
        products: `SELECT id FROM products WHERE ${where}`,
        subscriptions: `SELECT id FROM subscriptions WHERE ${where}`,
        orders: `SELECT id FROM orders WHERE ${where}`,
        charges: `SELECT id FROM charges WHERE ${where}`,
        webhooks: `SELECT id FROM webhooks WHERE ${where}`,
        webhook_events: `SELECT id FROM webhook_events WHERE ${where}`,
        webhook_deliveries: `SELECT d.event_id FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id WHERE e.${where}`,
        webhook_attempts: `SELECT id FROM webhook_attempts WHERE ${where}`,
        idempotency_keys: `SELECT key FROM idempotency_keys WHERE ${where}`,
      };
      const counts: Record<string, number> = {};
      for (const [table, sql] of Object.entries(tables)) counts[table] = (await db.rows(sql)).length;
      return counts;
    };

    /** A company with a record of every kind, a webhook with events delivered, failed and pending, and an idempotent charge. */
    const populated = async (name: string, taxId: string) => {
      const company = await addCompany(store, name, taxId);
      const companyId = company.doc.id;
      const buyer = client(companyId);
      await store.insertClient(buyer);
      const prod = product(companyId);
      await store.insertProduct(prod);
      await store.insertSubscription(companyId, subscription(prod.id, buyer.id));
      await store.insertOrder(companyId, (n) => order(company, n));
      const hook = webhook(companyId, ['charge.pending', 'charge.paid']);
      await store.insertWebhook(hook, 'whsec_1');
      expect(await store.claimIdempotencyKey(claimAt(companyId, 'key-1', 'fp', 0))).toEqual({ kind: 'claimed' });
      const ch = charge(company, prod);
      await store.insertCharge(ch, companyId, {
        customer: client(companyId, 'Ana Lima', { taxId: '39053344705' }),
        events: [event('charge.pending')],
        response: { ...claimAt(companyId, 'key-1', 'fp', 0), status: 201, body: '{}' },
      });
      await store.transitionCharge(companyId, ch.id, (stored) => ({ charge: { ...stored, status: 'PAID' }, events: [event('charge.paid')] }));
      const [due] = (await store.claimDueDeliveries(later(10), later(40), 10)).filter((d) => d.companyId === companyId);
      await store.recordAttempt({ companyId, attempt: attempt(due!, later(11), { httpStatus: 500, nextAttemptAt: later(20) }), state: 'PENDING' });
      return { company, companyId, charge: ch };
    };

    test("deletes every record of the company and its outbox in one step; the company, its keys and the other company's records stay", async () => {
      const a = await populated('Café Aurora', '45723174000110');
      const b = await populated('Padaria Bom Dia', '11222333000181');
      const before = await perCompany(a.companyId);
      expect(before).toEqual({
        companies: 1,
        api_keys: 1,
        clients: 2,
        products: 1,
        subscriptions: 1,
        orders: 1,
        charges: 1,
        webhooks: 1,
        webhook_events: 2,
        webhook_deliveries: 2,
        webhook_attempts: 1,
        idempotency_keys: 1,
      });
      const otherBefore = await perCompany(b.companyId);
      // Read once, so that an engine keeping reads in memory has them (the SQLite store keeps charges and client lists).
      expect(await store.getCharge(a.companyId, a.charge.id)).toBeDefined();
      expect(JSON.parse(jsonText(await clientsOf(store, a.companyId)))).toHaveLength(2);

      expect(await store.resetCompany(a.companyId)).toEqual({ charges: 1, clients: 2, products: 1, subscriptions: 1, orders: 1, webhooks: 1 });

      expect(await perCompany(a.companyId)).toEqual({
        ...Object.fromEntries(Object.keys(before).map((table) => [table, 0])),
        companies: 1,
        api_keys: 1,
      });
      expect(await perCompany(b.companyId)).toEqual(otherBefore);
      const steps: Array<[string, { given: () => Promise<unknown>; want: unknown }]> = [
        ['the charge read again', { given: () => store.getCharge(a.companyId, a.charge.id), want: undefined }],
        ['the client list read again', { given: async () => jsonText(await clientsOf(store, a.companyId)), want: '[]' }],
        ['the webhooks', { given: () => store.listWebhooks(a.companyId), want: [] }],
        [
          'nothing of it is due',
          { given: async () => (await store.claimDueDeliveries(later(3600), later(3700), 10)).map((d) => d.companyId), want: [b.companyId] },
        ],
        ['the other company’s charge', { given: async () => (await store.getCharge(b.companyId, b.charge.id))?.id, want: b.charge.id }],
        [
          'an order after it is number 1 again',
          { given: async () => (await store.insertOrder(a.companyId, (n) => order(a.company, n))).order.orderNumber, want: '000001' },
        ],
        ['its idempotency key is free', { given: () => store.claimIdempotencyKey(claimAt(a.companyId, 'key-1', 'other', 30)), want: { kind: 'claimed' } }],
        [
          'reset again',
          { given: () => store.resetCompany(a.companyId), want: { charges: 0, clients: 0, products: 0, subscriptions: 0, orders: 1, webhooks: 0 } },
        ],
        ['an unknown company', { given: () => store.resetCompany('comp_unknown'), want: undefined }],
      ];
      for (const [name, { given, want }] of steps) expect(await given(), name).toEqual(want);
    });
  });

  describe('API keys of a company (D04)', () => {
    test('a key is added to a company, listed oldest first by id, and revoked; an unknown company or key changes nothing', async () => {
      const company = await addCompany(store, 'Café Aurora', '45723174000110');
      const other = await addCompany(store, 'Padaria Bom Dia', '11222333000181');
      const [first] = await store.listApiKeys(company.doc.id);
      const second = issueApiKey(company.doc.id, new Date(NOW.getTime() + 1000)).record;
      const orphan = issueApiKey('comp_unknown', NOW).record;
      const steps: Array<[string, { given: () => Promise<unknown>; want: unknown }]> = [
        ['the companies, oldest first', { given: async () => (await store.listCompanies()).map((c) => c.doc.id), want: [company.doc.id, other.doc.id].sort() }],
        ['added', { given: () => store.addApiKey(second), want: true }],
        ['found', { given: () => store.findApiKey(second.id), want: second }],
        ['listed after the first', { given: async () => (await store.listApiKeys(company.doc.id)).map((k) => k.id), want: [first!.id, second.id] }],
        ['to an unknown company', { given: () => store.addApiKey(orphan), want: false }],
        ['not stored', { given: () => store.findApiKey(orphan.id), want: undefined }],
        ['revoked', { given: () => store.revokeApiKey(first!.id), want: first }],
        ['no longer found', { given: () => store.findApiKey(first!.id), want: undefined }],
        ['the other stays', { given: async () => (await store.listApiKeys(company.doc.id)).map((k) => k.id), want: [second.id] }],
        ['revoked again', { given: () => store.revokeApiKey(first!.id), want: undefined }],
        ['the other company’s keys', { given: async () => (await store.listApiKeys(other.doc.id)).length, want: 1 }],
      ];
      for (const [name, { given, want }] of steps) expect(await given(), name).toEqual(want);
    });
  });

  test('countRequest counts per API key and window', async () => {
    const steps: Array<[string, { given: [string, number]; want: number }]> = [
      ['key 1, window 0, first', { given: ['key_1', 0], want: 1 }],
      ['key 1, window 0, second', { given: ['key_1', 0], want: 2 }],
      ['key 2, window 0, first', { given: ['key_2', 0], want: 1 }],
      ['key 1, window 0, third', { given: ['key_1', 0], want: 3 }],
      ['key 1, next window', { given: ['key_1', 60_000], want: 1 }],
      ['key 1, next window again', { given: ['key_1', 60_000], want: 2 }],
      ['key 2, a window hours later (ms beyond 32 bits)', { given: ['key_2', 1_741_608_000_000], want: 1 }],
      ['key 2, the same', { given: ['key_2', 1_741_608_000_000], want: 2 }],
    ];
    for (const [name, { given, want }] of steps) expect(await store.countRequest(...given), name).toBe(want);
  });
});

// ---------------------------------------------------------------------------------------------
// Two instances on one PostgreSQL database, racing

describe.skipIf(!databaseUrl)('PgStore: two instances (two processes) on one database', () => {
  let db: TestDatabase;
  let one: Store;
  let two: Store;
  /** The i-th of n concurrent calls goes to one instance or the other. */
  const either = (i: number): Store => (i % 2 === 0 ? one : two);

  beforeEach(async () => {
    db = await postgres.create();
    // Started together, both migrate the same empty schema: one does, the other waits and finds it done.
    [one, two] = await Promise.all([db.open(), db.open()]);
  });
  afterEach(async () => db.destroy());

  test('instances started together apply each migration once', async () => {
    expect(await db.rows('SELECT version FROM schema_migrations ORDER BY version')).toEqual(migrations.map((m) => ({ version: m.version })));
  });

  test.each<[string, { given: { firstAt?: number; at: number }; want: { claimed: number; inFlight: number } }]>([
    ['a new key', { given: { at: 0 }, want: { claimed: 1, inFlight: 63 } }],
    ['a key whose claim lease ended (taken over)', { given: { firstAt: 0, at: 61 }, want: { claimed: 1, inFlight: 63 } }],
    ['a key past its retention (taken over)', { given: { firstAt: 0, at: 86_401 }, want: { claimed: 1, inFlight: 63 } }],
  ])('64 concurrent claims of %s: exactly one is claimed', async (_name, { given, want }) => {
    const { doc } = await addCompany(one, 'Café Aurora', '45723174000110');
    if (given.firstAt !== undefined) expect(await one.claimIdempotencyKey(claimAt(doc.id, 'k', 'fp-0', given.firstAt))).toEqual({ kind: 'claimed' });
    const claims = await Promise.all(Array.from({ length: 64 }, (_, i) => either(i).claimIdempotencyKey(claimAt(doc.id, 'k', 'fp-1', given.at))));
    expect({ claimed: claims.filter((c) => c.kind === 'claimed').length, inFlight: claims.filter((c) => c.kind === 'in-flight').length }).toEqual(want);
  });

  test('concurrent claims with two fingerprints: one claimed, the same request in-flight, the other mismatch', async () => {
    const { doc } = await addCompany(one, 'Café Aurora', '45723174000110');
    const claims = await Promise.all(Array.from({ length: 64 }, (_, i) => either(i).claimIdempotencyKey(claimAt(doc.id, 'k', i % 4 < 2 ? 'fp-a' : 'fp-b', 0))));
    const winner = claims.findIndex((c) => c.kind === 'claimed');
    expect(claims.filter((c) => c.kind === 'claimed')).toHaveLength(1);
    const winnerFingerprint = winner % 4 < 2 ? 'fp-a' : 'fp-b';
    claims.forEach((c, i) => {
      if (i !== winner) expect(c.kind).toBe((i % 4 < 2 ? 'fp-a' : 'fp-b') === winnerFingerprint ? 'in-flight' : 'mismatch');
    });
  });

  test('concurrent first charges of one new buyer from both: one client (D48)', async () => {
    const company = await addCompany(one, 'Café Aurora', '45723174000110');
    const companyId = company.doc.id;
    const prod = product(companyId);
    await one.insertProduct(prod);
    const customers = Array.from({ length: 24 }, (_, i) => client(companyId, `Maria ${i}`));
    await Promise.all(customers.map((customer, i) => either(i).insertCharge(charge(company, prod, { customer }), companyId, { customer })));
    expect(await db.rows('SELECT COUNT(*)::int AS n FROM clients')).toEqual([{ n: 1 }]);
    expect(await db.rows('SELECT COUNT(*)::int AS n FROM charges')).toEqual([{ n: 24 }]);
  });

  test('50 concurrent orders from both: numbers are exactly 1..50', async () => {
    const company = await addCompany(one, 'Café Aurora', '45723174000110');
    const other = await addCompany(one, 'Padaria Bom Dia', '11222333000181');
    const orders = await Promise.all(Array.from({ length: 50 }, (_, i) => either(i).insertOrder(company.doc.id, (n) => order(company, n))));
    await Promise.all(Array.from({ length: 6 }, (_, i) => either(i).insertOrder(other.doc.id, (n) => order(other, n))));
    expect(orders.map(({ order: o }) => Number(o.orderNumber)).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await db.rows(`SELECT order_number FROM orders WHERE company_id = '${other.doc.id}' ORDER BY order_number`)).toEqual(
      [1, 2, 3, 4, 5, 6].map((n) => ({ order_number: n })),
    );
  });

  test('concurrent moves and new charges from both: no lost update, events numbered 1..n, a delivery each', async () => {
    const company = await addCompany(one, 'Café Aurora', '45723174000110');
    const companyId = company.doc.id;
    const prod = product(companyId);
    await one.insertProduct(prod);
    const w = webhook(companyId, ['charge.pending', 'charge.paid']);
    await one.insertWebhook(w, 'whsec_1');
    const ch = charge(company, prod);
    await one.insertCharge(ch, companyId, {});

    const moves = Array.from({ length: 20 }, (_, i) =>
      either(i).transitionCharge(companyId, ch.id, (c) => ({ charge: { ...c, externalId: `${c.externalId ?? ''}|${i}` }, events: [event('charge.paid')] })),
    );
    const creations = Array.from({ length: 20 }, (_, i) => either(i + 1).insertCharge(charge(company, prod), companyId, { events: [event('charge.pending')] }));
    await Promise.all([...moves, ...creations]);

    const marks = (await one.getCharge(companyId, ch.id))!.externalId!.split('|').slice(1);
    expect(marks.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect((await db.rows<{ seq: number }>('SELECT seq FROM webhook_events ORDER BY seq')).map((r) => r.seq)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    expect(await db.rows('SELECT event_id FROM webhook_deliveries')).toHaveLength(40);
  });

  test('concurrent claimDueDeliveries from both: each due delivery is claimed once', async () => {
    const company = await addCompany(one, 'Café Aurora', '45723174000110');
    const companyId = company.doc.id;
    const prod = product(companyId);
    await one.insertProduct(prod);
    const hooks = Array.from({ length: 30 }, () => webhook(companyId, ['charge.paid']));
    for (const w of hooks) await one.insertWebhook(w, 'whsec_1');
    const ch = charge(company, prod);
    await one.insertCharge(ch, companyId, {});
    // Two events, so each webhook has a second one that must not be claimed alongside its first.
    for (let i = 0; i < 2; i++) await one.transitionCharge(companyId, ch.id, (c) => ({ charge: c, events: [event('charge.paid', later(i))] }));

    const claimed = (await Promise.all(Array.from({ length: 16 }, (_, i) => either(i).claimDueDeliveries(later(10), later(40), 4)))).flat();
    const rest = await one.claimDueDeliveries(later(10), later(40), 100);
    const all = [...claimed, ...rest];
    expect(new Set(sortedPairs(all)).size).toBe(all.length);
    expect(all.map((d) => d.webhookId).sort()).toEqual(hooks.map((w) => w.id).sort());
    expect(new Set(all.map((d) => d.eventId)).size).toBe(1);
    expect(await two.claimDueDeliveries(later(39), later(69), 100)).toEqual([]);
  });

  test('countRequest from both adds up', async () => {
    // A client address, counted once and never again (D11).
    expect(await two.countRequest('@203.0.113.7', 1_741_608_000_000)).toBe(1);
    const counts = await Promise.all(Array.from({ length: 100 }, (_, i) => either(i).countRequest('key_shared', 1_741_608_000_000)));
    expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(await two.countRequest('key_shared', 1_741_608_000_000)).toBe(101);
    // A new window starts at one, and clears every window older than an hour, the address's too.
    expect(await one.countRequest('key_shared', 1_741_608_000_000 + 3_600_001)).toBe(1);
    expect(await db.rows('SELECT window_start FROM rate_limit_windows')).toEqual([{ window_start: String(1_741_608_000_000 + 3_600_001) }]);
  });

  test('concurrent setChargeImage from both: one image is kept, the document stays valid', async () => {
    const company = await addCompany(one, 'Café Aurora', '45723174000110');
    const prod = product(company.doc.id);
    await one.insertProduct(prod);
    const ch = charge(company, prod);
    await one.insertCharge(ch, company.doc.id, {});
    const images = Array.from({ length: 10 }, (_, i) => `data:image/png;base64,${i}`);
    await Promise.all(images.map((image, i) => either(i).setChargeImage(company.doc.id, ch.id, image)));
    const json = (await two.getChargeJson(company.doc.id, ch.id))!;
    const stored = JSON.parse(json) as StoredCharge;
    expect(images).toContain(stored.brCodeBase64);
    expect(json).toBe(JSON.stringify({ ...ch, brCodeBase64: stored.brCodeBase64 }));
  });
});

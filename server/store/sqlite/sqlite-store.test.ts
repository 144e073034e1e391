/**
 * What only the SQLite store does: its file (WAL, synchronous FULL) and its group commit. What
 * every store does is tested on every engine in server/store/store.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { addCompany, charge, claimAt, client, event, later, product, webhook } from '../test-records.js';
import { SqliteStore } from './sqlite-store.js';
import { WalFlusher } from './wal-flush.js';

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

describe('the file', () => {
  test('is in WAL mode, and a commit is acknowledged only once the WAL flusher has put it on disk', async () => {
    const store = openStore(freshPath());
    const db = (store as unknown as { db: Database.Database }).db;
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    // 1 = NORMAL: SQLite writes the WAL frames, the flusher fsyncs them off the event loop.
    expect(db.pragma('synchronous', { simple: true })).toBe(1);

    const flush = WalFlusher.prototype.flush;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const spy = vi.spyOn(WalFlusher.prototype, 'flush').mockImplementation(function (this: WalFlusher) {
      return gate.then(() => flush.call(this));
    });
    try {
      let acknowledged = false;
      const written = addCompany(store, 'Café Aurora', '45723174000110').then(() => {
        acknowledged = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(spy).toHaveBeenCalledTimes(1);
      expect(acknowledged, 'acknowledged before the WAL was flushed').toBe(false);
      release();
      await written;
      expect(acknowledged).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });
});

/** Reads the file through a second connection, which sees only what is committed. */
function committed<T>(path: string, read: (reader: Database.Database) => T): T {
  const reader = new Database(path, { readonly: true });
  try {
    return read(reader);
  } finally {
    reader.close();
  }
}

describe('group commit', () => {
  const committedRows = (path: string, sql: string): unknown[] => committed(path, (reader) => reader.prepare(sql).all());

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
    expect(committedRows(path, "SELECT json_extract(doc, '$.name') AS name FROM clients ORDER BY name")).toEqual([
      { name: 'Bruno' },
      { name: 'Carla' },
      { name: 'Davi' },
    ]);
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

describe('reads and the disk', () => {
  /** Holds every WAL flush (and what waits for it) until `release` is called. */
  function holdFlushes() {
    const flush = WalFlusher.prototype.flush;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const spy = vi.spyOn(WalFlusher.prototype, 'flush').mockImplementation(function (this: WalFlusher) {
      const flushed = gate.then(() => flush.call(this));
      this.pending = flushed;
      return flushed;
    });
    return { release, restore: () => spy.mockRestore() };
  }

  test('a lookup for a write answers at once; any other read waits until what it saw is on disk', async () => {
    const store = openStore(freshPath());
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    const p = product(company.doc.id);
    const held = holdFlushes();
    try {
      const order: string[] = [];
      const written = store.insertProduct(p).then(() => order.push('product on disk'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the lookup for a write waited for the disk')), 2_000);
      });
      const forWrite = await Promise.race([store.getProducts(company.doc.id, [p.id], { forWrite: true }), waited]).finally(() => clearTimeout(timer));
      order.push('lookup for a write');
      expect(forWrite.get(p.id)?.id).toBe(p.id);
      const read = store.getProducts(company.doc.id, [p.id]).then(() => order.push('read'));
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(order).toEqual(['lookup for a write']);
      held.release();
      await Promise.all([written, read]);
      expect(order).toEqual(['lookup for a write', 'product on disk', 'read']);
    } finally {
      held.restore();
    }
  });

  test("the webhook worker's poll opens a write transaction (a commit and a WAL flush) only when a delivery is due", async () => {
    const store = openStore(freshPath());
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    const db = (store as unknown as { db: Database.Database }).db;
    const exec = vi.spyOn(db, 'exec');
    const flushes = vi.spyOn(WalFlusher.prototype, 'flush');
    try {
      expect(await store.claimDueDeliveries(later(10), later(40), 10), 'nothing due').toEqual([]);
      expect(exec, 'no transaction for a poll that finds nothing').not.toHaveBeenCalled();
      expect(flushes, 'no WAL flush for a poll that finds nothing').not.toHaveBeenCalled();
      const p = product(company.doc.id);
      await store.insertProduct(p);
      await store.insertWebhook(webhook(company.doc.id, ['charge.pending']), 'whsec_secret');
      await store.insertCharge(charge(company, p), company.doc.id, { events: [event('charge.pending')] });
      exec.mockClear();
      expect(await store.claimDueDeliveries(later(10), later(40), 10), 'the due delivery is claimed').toHaveLength(1);
      expect(exec).toHaveBeenCalledWith('BEGIN IMMEDIATE');
      exec.mockClear();
      expect(await store.claimDueDeliveries(later(20), later(50), 10), 'leased: not due again within its lease').toEqual([]);
      expect(exec).not.toHaveBeenCalled();
    } finally {
      exec.mockRestore();
      flushes.mockRestore();
    }
  });

  test("a create's lookups (its products, the company's subscribers) are read once, until a write of their table", async () => {
    const store = openStore(freshPath());
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    const p = product(company.doc.id);
    await store.insertProduct(p);
    const { prepared, sql } = store as unknown as {
      prepared: Map<unknown, { statement: Database.Statement }>;
      sql: { productsAmong: unknown; subscribers: unknown };
    };
    const productReads = vi.spyOn(prepared.get(sql.productsAmong)!.statement, 'all');
    const subscriberReads = vi.spyOn(prepared.get(sql.subscribers)!.statement, 'all');
    const lookUp = () => store.getProducts(company.doc.id, [p.id], { forWrite: true });
    const pay = () => store.insertCharge(charge(company, p), company.doc.id, { events: [event('charge.pending')] });
    await lookUp();
    await lookUp();
    expect(productReads, 'the second lookup is answered from memory').toHaveBeenCalledTimes(1);
    await pay();
    await pay();
    expect(subscriberReads, "the second charge's subscribers are answered from memory").toHaveBeenCalledTimes(1);
    await store.insertProduct(product(company.doc.id));
    await lookUp();
    expect(productReads, 'a write of the table makes it read again').toHaveBeenCalledTimes(2);
    await store.insertWebhook(webhook(company.doc.id, ['charge.pending']), 'whsec_secret');
    await pay();
    expect(subscriberReads, 'a new registration makes them read again').toHaveBeenCalledTimes(2);
  });
});

describe('migration 7: clients kept in the order of their list', () => {
  /** The clients table as versions 1 to 6 left it: rowid, id the primary key, the list's order an index. */
  function backToVersion6(path: string): void {
    const db = new Database(path);
    try {
      db.transaction(() => {
        db.exec(`CREATE TABLE clients_v6 (
          id TEXT PRIMARY KEY, company_id TEXT NOT NULL REFERENCES companies(id), created_at TEXT NOT NULL, doc TEXT NOT NULL, tax_id TEXT NOT NULL DEFAULT '')`);
        // In another order than the list's, as rows of several companies interleave in a file.
        db.exec('INSERT INTO clients_v6 (id, company_id, created_at, doc, tax_id) SELECT id, company_id, created_at, doc, tax_id FROM clients ORDER BY id');
        db.exec('DROP TABLE clients');
        db.exec('ALTER TABLE clients_v6 RENAME TO clients');
        db.exec('CREATE INDEX clients_by_company ON clients (company_id, created_at, id)');
        db.exec('CREATE INDEX clients_by_tax_id ON clients (company_id, tax_id, created_at, id)');
        db.exec('DELETE FROM schema_migrations WHERE version = 7');
      })();
    } finally {
      db.close();
    }
  }

  test('rebuilds the table keyed by the list order, keeping every client, its lists, pages and lookups', async () => {
    const path = freshPath();
    let store = openStore(path);
    const a = await addCompany(store, 'Café Aurora', '45723174000110');
    const b = await addCompany(store, 'Padaria Bom Dia', '11222333000181');
    const clients = Array.from({ length: 30 }, (_, i) =>
      client(i % 3 === 0 ? b.doc.id : a.doc.id, `Cliente ${i}`, { createdAt: later(i % 7), updatedAt: later(i % 7), taxId: String(10_000_000_000 + i) }),
    );
    for (const c of clients) await store.insertClient(c);
    const views = async (s: SqliteStore) => ({
      listA: Buffer.from((await s.listPageJson('clients', a.doc.id, 1_000_000)).json).toString(),
      listB: Buffer.from((await s.listPageJson('clients', b.doc.id, 1_000_000)).json).toString(),
      firstPage: await s.listPageJson('clients', a.doc.id, 7),
      secondPage: await s.listPageJson('clients', a.doc.id, 7, (await s.listPageJson('clients', a.doc.id, 7)).next),
      byId: await Promise.all(clients.map((c) => s.getClient(c.companyId, c.id))),
    });
    const before = await views(store);
    expect(before.byId).toEqual(clients);
    await closeStore(store);

    backToVersion6(path);
    store = openStore(path);
    expect(await views(store)).toEqual(before);
    const schema = committedSchema(path);
    expect(schema.clients).toMatch(/WITHOUT ROWID\s*$/);
    expect(Object.keys(schema).filter((name) => name.startsWith('clients_'))).toEqual(['clients_by_id', 'clients_by_position', 'clients_by_tax_id']);
    // The id is still unique.
    await expect(store.insertClient({ ...clients[1]!, createdAt: later(60) })).rejects.toThrow(/UNIQUE/);
    // A page is one run of the table's rows; a position in the list is counted to on the small index.
    const { lists } = store as unknown as { lists: { clients: Record<'docsAfter' | 'at', { sql: string }> } };
    expect(queryPlan(path, lists.clients.docsAfter.sql, [a.doc.id, later(0), '', 7])).toMatch(/USING PRIMARY KEY/);
    expect(queryPlan(path, lists.clients.at.sql, [a.doc.id, 6])).toMatch(/USING COVERING INDEX clients_by_position/);
  });

  const queryPlan = (path: string, statement: string, params: unknown[]): string =>
    committed(path, (reader) =>
      reader
        .prepare<unknown[], { detail: string }>(`EXPLAIN QUERY PLAN ${statement}`)
        .all(...params)
        .map((row) => row.detail)
        .join('\n'),
    );

  /** The tables and indexes of the file, by name, with their SQL. */
  const committedSchema = (path: string): Record<string, string> =>
    committed(path, (reader) =>
      Object.fromEntries(
        reader
          .prepare<[], { name: string; sql: string | null }>("SELECT name, sql FROM sqlite_master WHERE name LIKE 'clients%' ORDER BY name")
          .all()
          .map((row) => [row.name, row.sql ?? '']),
      ),
    );
});

describe('pages kept in memory', () => {
  test('a page a client asks for is read once until a client is written; a part of a streamed list is read every time', async () => {
    const store = openStore(freshPath());
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    for (const name of ['Ana', 'Bruno', 'Carla']) await store.insertClient(client(company.doc.id, name));
    const { prepared, lists } = store as unknown as { prepared: Map<unknown, { statement: Database.Statement }>; lists: { clients: { firstDocs: unknown } } };
    const reads = vi.spyOn(prepared.get(lists.clients.firstDocs)!.statement, 'all');
    const first = await store.listPageJson('clients', company.doc.id, 2);
    expect(await store.listPageJson('clients', company.doc.id, 2)).toEqual(first);
    expect(reads, 'the same page again, from memory').toHaveBeenCalledTimes(1);
    await store.listPageJson('clients', company.doc.id, 5_000);
    await store.listPageJson('clients', company.doc.id, 5_000);
    expect(reads, 'pages past 1,000 are not kept').toHaveBeenCalledTimes(3);
    await store.insertClient(client(company.doc.id, 'Davi', { createdAt: later(60), updatedAt: later(60) }));
    const after = await store.listPageJson('clients', company.doc.id, 2);
    expect(reads, 'a client written: the page is read again').toHaveBeenCalledTimes(4);
    expect(after).toEqual(first);
  });
});

describe('migration 9: idempotency keys kept by their key', () => {
  test("rebuilds the table without rowid, keeping every key's answer; a stored answer is replayed, a new key claimed", async () => {
    const path = freshPath();
    let store = openStore(path);
    const company = await addCompany(store, 'Café Aurora', '45723174000110');
    await closeStore(store);
    // The table as versions 1 to 8 left it (a rowid table and the index of its key), with one answered key.
    const db = new Database(path);
    try {
      db.transaction(() => {
        db.exec('DROP TABLE idempotency_keys');
        db.exec(`CREATE TABLE idempotency_keys (
          company_id TEXT NOT NULL REFERENCES companies(id), key TEXT NOT NULL, fingerprint TEXT NOT NULL, lease_until TEXT NOT NULL,
          expires_at TEXT NOT NULL, status INTEGER, body TEXT, PRIMARY KEY (company_id, key))`);
        const { fingerprint, leaseUntil, expiresAt } = claimAt(company.doc.id, 'order-42', 'fp-1', 0);
        db.prepare('INSERT INTO idempotency_keys VALUES (?, ?, ?, ?, ?, ?, ?)').run(
          company.doc.id,
          'order-42',
          fingerprint,
          leaseUntil,
          expiresAt,
          201,
          '{"status":201}',
        );
        db.exec('DELETE FROM schema_migrations WHERE version = 9');
      })();
    } finally {
      db.close();
    }

    store = openStore(path);
    expect(
      committed(path, (reader) => reader.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'idempotency_keys'").get()?.sql),
    ).toMatch(/WITHOUT ROWID\s*$/);
    expect(await store.claimIdempotencyKey(claimAt(company.doc.id, 'order-42', 'fp-1', 1))).toEqual({ kind: 'replay', status: 201, body: '{"status":201}' });
    expect(await store.claimIdempotencyKey(claimAt(company.doc.id, 'order-42', 'fp-2', 1))).toEqual({ kind: 'mismatch' });
    expect(await store.claimIdempotencyKey(claimAt(company.doc.id, 'order-43', 'fp-1', 1))).toEqual({ kind: 'claimed' });
  });
});

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrations } from '../migrations.js';
import type {
  ApiKeyRecord,
  ChargeDoc,
  ClientDoc,
  CompanyRecord,
  IdempotencyClaim,
  IdempotencyClaimInput,
  OrderDoc,
  ProductDoc,
  Store,
  StoredResponse,
  SubscriptionDoc,
  WebhookDoc,
} from '../types.js';

/**
 * The embedded default store: one SQLite file in WAL mode. better-sqlite3 is
 * synchronous, so every method runs to completion without interleaving with other
 * requests; `transaction` makes the multi-row steps atomic and durable on commit.
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    // FULL: a commit is on disk before the response that acknowledges it is sent.
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    migrate(this.db);
    const db = this.db;
    this.statements = {
      countCompanies: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM companies'),
      insertCompany: db.prepare('INSERT INTO companies (id, city, color, created_at, doc) VALUES (?, ?, ?, ?, ?)'),
      getCompany: db.prepare<[string], { city: string; color: string; doc: string }>('SELECT city, color, doc FROM companies WHERE id = ?'),
      insertApiKey: db.prepare('INSERT INTO api_keys (id, company_id, secret_hash, created_at) VALUES (?, ?, ?, ?)'),
      findApiKey: db.prepare<[string], { id: string; company_id: string; secret_hash: string; created_at: string }>(
        'SELECT id, company_id, secret_hash, created_at FROM api_keys WHERE id = ?',
      ),
      insertClient: db.prepare('INSERT INTO clients (id, company_id, created_at, doc) VALUES (?, ?, ?, ?)'),
      getClient: db.prepare<[string, string], { doc: string }>('SELECT doc FROM clients WHERE company_id = ? AND id = ?'),
      listClients: db.prepare<[string], { doc: string }>('SELECT doc FROM clients WHERE company_id = ? ORDER BY created_at, id'),
      insertProduct: db.prepare('INSERT INTO products (id, company_id, doc) VALUES (?, ?, ?)'),
      getProduct: db.prepare<[string, string], { doc: string }>('SELECT doc FROM products WHERE company_id = ? AND id = ?'),
      insertSubscription: db.prepare('INSERT INTO subscriptions (id, company_id, doc) VALUES (?, ?, ?)'),
      getSubscription: db.prepare<[string, string], { doc: string }>('SELECT doc FROM subscriptions WHERE company_id = ? AND id = ?'),
      replaceSubscription: db.prepare('UPDATE subscriptions SET doc = ? WHERE company_id = ? AND id = ?'),
      nextOrderNumber: db.prepare<[string], { n: number }>('SELECT COALESCE(MAX(order_number), 0) + 1 AS n FROM orders WHERE company_id = ?'),
      insertOrder: db.prepare('INSERT INTO orders (id, company_id, order_number, doc) VALUES (?, ?, ?, ?)'),
      insertCharge: db.prepare('INSERT INTO charges (id, company_id, expires_at, doc) VALUES (?, ?, ?, ?)'),
      getCharge: db.prepare<[string, string], { doc: string }>('SELECT doc FROM charges WHERE company_id = ? AND id = ?'),
      insertWebhook: db.prepare('INSERT INTO webhooks (id, company_id, secret, doc) VALUES (?, ?, ?, ?)'),
      getWebhook: db.prepare<[string, string], { doc: string }>('SELECT doc FROM webhooks WHERE company_id = ? AND id = ?'),
      getIdempotency: db.prepare<[string, string], { fingerprint: string; lease_until: string; expires_at: string; status: number | null; body: string | null }>(
        'SELECT fingerprint, lease_until, expires_at, status, body FROM idempotency_keys WHERE company_id = ? AND key = ?',
      ),
      claimIdempotency: db.prepare(
        `INSERT INTO idempotency_keys (company_id, key, fingerprint, lease_until, expires_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (company_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, lease_until = excluded.lease_until,
           expires_at = excluded.expires_at, status = NULL, body = NULL`,
      ),
      completeIdempotency: db.prepare('UPDATE idempotency_keys SET status = ?, body = ? WHERE company_id = ? AND key = ?'),
      releaseIdempotency: db.prepare('DELETE FROM idempotency_keys WHERE company_id = ? AND key = ? AND status IS NULL'),
    };
  }

  async countCompanies(): Promise<number> {
    return this.statements.countCompanies.get()!.n;
  }

  async createCompany(company: CompanyRecord, key: ApiKeyRecord): Promise<void> {
    this.db.transaction(() => {
      this.statements.insertCompany.run(company.doc.id, company.city, company.color, company.doc.createdAt, JSON.stringify(company.doc));
      this.statements.insertApiKey.run(key.id, key.companyId, key.secretHash, key.createdAt);
    })();
  }

  async getCompany(companyId: string): Promise<CompanyRecord | undefined> {
    const row = this.statements.getCompany.get(companyId);
    return row && { doc: JSON.parse(row.doc), city: row.city, color: row.color };
  }

  async findApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = this.statements.findApiKey.get(keyId);
    return row && { id: row.id, companyId: row.company_id, secretHash: row.secret_hash, createdAt: row.created_at };
  }

  async insertClient(client: ClientDoc): Promise<void> {
    this.statements.insertClient.run(client.id, client.companyId, client.createdAt, JSON.stringify(client));
  }

  async getClient(companyId: string, id: string): Promise<ClientDoc | undefined> {
    return parseDoc(this.statements.getClient.get(companyId, id));
  }

  async listClients(companyId: string): Promise<ClientDoc[]> {
    return this.statements.listClients.all(companyId).map((row) => JSON.parse(row.doc) as ClientDoc);
  }

  async insertProduct(product: ProductDoc): Promise<void> {
    this.statements.insertProduct.run(product.id, product.companyId, JSON.stringify(product));
  }

  async getProducts(companyId: string, ids: readonly string[]): Promise<Map<string, ProductDoc>> {
    const result = new Map<string, ProductDoc>();
    for (const id of new Set(ids)) {
      const product = parseDoc<ProductDoc>(this.statements.getProduct.get(companyId, id));
      if (product) result.set(id, product);
    }
    return result;
  }

  async insertSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void> {
    this.statements.insertSubscription.run(subscription.id, companyId, JSON.stringify(subscription));
  }

  async getSubscription(companyId: string, id: string): Promise<SubscriptionDoc | undefined> {
    return parseDoc(this.statements.getSubscription.get(companyId, id));
  }

  async replaceSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void> {
    this.statements.replaceSubscription.run(JSON.stringify(subscription), companyId, subscription.id);
  }

  async insertOrder(companyId: string, build: (orderNumber: number) => OrderDoc): Promise<OrderDoc> {
    return this.db.transaction(() => {
      const orderNumber = this.statements.nextOrderNumber.get(companyId)!.n;
      const order = build(orderNumber);
      this.statements.insertOrder.run(order.id, companyId, orderNumber, JSON.stringify(order));
      return order;
    })();
  }

  async insertCharge(charge: ChargeDoc, companyId: string, extras: { newClient?: ClientDoc; response?: StoredResponse }): Promise<void> {
    this.db.transaction(() => {
      if (extras.newClient) {
        const client = extras.newClient;
        this.statements.insertClient.run(client.id, client.companyId, client.createdAt, JSON.stringify(client));
      }
      this.statements.insertCharge.run(charge.id, companyId, charge.expiresAt, JSON.stringify(charge));
      if (extras.response) {
        const r = extras.response;
        this.statements.completeIdempotency.run(r.status, r.body, r.companyId, r.key);
      }
    })();
  }

  async getCharge(companyId: string, id: string): Promise<ChargeDoc | undefined> {
    return parseDoc(this.statements.getCharge.get(companyId, id));
  }

  async insertWebhook(webhook: WebhookDoc, secret: string): Promise<void> {
    this.statements.insertWebhook.run(webhook.id, webhook.companyId, secret, JSON.stringify(webhook));
  }

  async getWebhook(companyId: string, id: string): Promise<WebhookDoc | undefined> {
    return parseDoc(this.statements.getWebhook.get(companyId, id));
  }

  async claimIdempotencyKey(input: IdempotencyClaimInput): Promise<IdempotencyClaim> {
    return this.db.transaction((): IdempotencyClaim => {
      const row = this.statements.getIdempotency.get(input.companyId, input.key);
      // A row past its retention, or an unfinished one whose lease ran out (its request died), is free.
      const usable = row && row.expires_at > input.now && (row.status !== null || row.lease_until > input.now);
      if (row && usable) {
        if (row.fingerprint !== input.fingerprint) return { kind: 'mismatch' };
        if (row.status === null) return { kind: 'in-flight' };
        return { kind: 'replay', status: row.status, body: row.body ?? '' };
      }
      this.statements.claimIdempotency.run(input.companyId, input.key, input.fingerprint, input.leaseUntil, input.expiresAt);
      return { kind: 'claimed' };
    })();
  }

  async releaseIdempotencyKey(companyId: string, key: string): Promise<void> {
    this.statements.releaseIdempotency.run(companyId, key);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}

function parseDoc<T>(row: { doc: string } | undefined): T | undefined {
  return row ? (JSON.parse(row.doc) as T) : undefined;
}

function migrate(db: Database.Database): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied = new Set(db.prepare<[], { version: number }>('SELECT version FROM schema_migrations').all().map((r) => r.version));
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      for (const statement of migration.statements) db.exec(statement);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, new Date().toISOString());
    })();
  }
}

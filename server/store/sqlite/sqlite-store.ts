import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { createMigrationsTable, migrations } from '../migrations.js';
import type {
  ApiKeyRecord,
  AttemptOutcome,
  DueDelivery,
  NewEvent,
  WebhookDeliveryDoc,
  ClientDoc,
  CompanyRecord,
  IdempotencyClaim,
  IdempotencyClaimInput,
  OrderDoc,
  ProductDoc,
  Store,
  StoredCharge,
  StoredResponse,
  SubscriptionDoc,
  WebhookDoc,
} from '../types.js';
import { companyOfRow, dueDeliveryOf, type CompanyRow, type DueDeliveryRow } from '../rows.js';

/**
 * The embedded default store: one SQLite file in WAL mode. better-sqlite3 is synchronous, so
 * every method runs to completion without interleaving with other requests.
 *
 * Writes are group-committed: every write step of one event-loop turn runs in one transaction,
 * each step in its own savepoint (a step that fails is undone alone), and each resolves only
 * once that transaction is committed, with `synchronous = FULL`, so nothing is acknowledged
 * before it is on disk. One fsync serves all the writes of a turn instead of one each, which
 * was most of the time of creating a charge. Reads see the steps of the open turn, as a
 * transaction sees its own writes.
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;
  private readonly statements;
  /** Steps of the open group transaction, waiting for its commit. */
  private group: Array<{ resolve: () => void; reject: (error: unknown) => void }> | undefined;
  /**
   * Rate-limit windows (D11), one per API key: its current window and the requests counted in it. In
   * memory: one instance serves a SQLite file, so nothing needs sharing, and a restart forgets them.
   */
  private readonly rateWindows = new Map<string, { start: number; count: number }>();

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    // FULL: a commit is on disk before the response that acknowledges it is sent (see `write`).
    this.db.pragma('synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    // 16 MiB of page cache (the default is 2 MiB), so that the indexes a write touches stay in
    // memory; and a checkpoint every 16 MiB of WAL rather than 4, so that pages written over
    // and over (index roots) are copied to the database once per checkpoint, not four times.
    this.db.pragma('cache_size = -16384');
    this.db.pragma('wal_autocheckpoint = 4000');
    migrate(this.db);
    const db = this.db;
    this.statements = {
      countCompanies: db.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM companies'),
      insertCompany: db.prepare('INSERT INTO companies (id, city, color, pix_key, created_at, doc) VALUES (?, ?, ?, ?, ?, ?)'),
      getCompany: db.prepare<[string], CompanyRow>('SELECT city, color, pix_key, doc FROM companies WHERE id = ?'),
      insertApiKey: db.prepare('INSERT INTO api_keys (id, company_id, secret_hash, created_at) VALUES (?, ?, ?, ?)'),
      findApiKey: db.prepare<[string], { id: string; company_id: string; secret_hash: string; created_at: string }>(
        'SELECT id, company_id, secret_hash, created_at FROM api_keys WHERE id = ?',
      ),
      insertClient: db.prepare('INSERT INTO clients (id, company_id, created_at, doc) VALUES (?, ?, ?, ?)'),
      getClient: db.prepare<[string, string], { doc: string }>('SELECT doc FROM clients WHERE company_id = ? AND id = ?'),
      listClientDocs: db.prepare<[string], string>('SELECT doc FROM clients WHERE company_id = ? ORDER BY created_at, id').pluck(),
      insertProduct: db.prepare('INSERT INTO products (id, company_id, doc) VALUES (?, ?, ?)'),
      getProduct: db.prepare<[string, string], { doc: string }>('SELECT doc FROM products WHERE company_id = ? AND id = ?'),
      insertSubscription: db.prepare('INSERT INTO subscriptions (id, company_id, doc) VALUES (?, ?, ?)'),
      getSubscription: db.prepare<[string, string], { doc: string }>('SELECT doc FROM subscriptions WHERE company_id = ? AND id = ?'),
      replaceSubscription: db.prepare('UPDATE subscriptions SET doc = ? WHERE company_id = ? AND id = ?'),
      nextOrderNumber: db.prepare<[string], { n: number }>('SELECT COALESCE(MAX(order_number), 0) + 1 AS n FROM orders WHERE company_id = ?'),
      insertOrder: db.prepare('INSERT INTO orders (id, company_id, order_number, doc) VALUES (?, ?, ?, ?)'),
      insertCharge: db.prepare('INSERT INTO charges (id, company_id, expires_at, doc) VALUES (?, ?, ?, ?)'),
      getCharge: db.prepare<[string, string], { doc: string }>('SELECT doc FROM charges WHERE company_id = ? AND id = ?'),
      setChargeImage: db.prepare(
        `UPDATE charges SET doc = json_set(doc, '$.brCodeBase64', ?) WHERE company_id = ? AND id = ? AND json_type(doc, '$.brCodeBase64') IS NULL`,
      ),
      insertWebhook: db.prepare('INSERT INTO webhooks (id, company_id, secret, doc, status, created_at) VALUES (?, ?, ?, ?, ?, ?)'),
      listWebhooks: db.prepare<[string], { doc: string }>('SELECT doc FROM webhooks WHERE company_id = ? ORDER BY created_at, id'),
      replaceWebhook: db.prepare('UPDATE webhooks SET doc = ?, status = ? WHERE company_id = ? AND id = ?'),
      deleteWebhook: db.prepare('DELETE FROM webhooks WHERE company_id = ? AND id = ?'),
      deleteWebhookDeliveries: db.prepare('DELETE FROM webhook_deliveries WHERE webhook_id = ?'),
      deleteWebhookAttempts: db.prepare('DELETE FROM webhook_attempts WHERE webhook_id = ?'),
      subscribers: db.prepare<[string], { id: string; doc: string }>(`SELECT id, doc FROM webhooks WHERE company_id = ? AND status = 'ACTIVE'`),
      findCharge: db.prepare<[string], { company_id: string; doc: string }>('SELECT company_id, doc FROM charges WHERE id = ?'),
      replaceCharge: db.prepare('UPDATE charges SET doc = ?, open = ? WHERE company_id = ? AND id = ?'),
      openChargesDue: db.prepare<[string, number], { company_id: string; id: string }>('SELECT company_id, id FROM charges WHERE open = 1 AND expires_at <= ? ORDER BY expires_at LIMIT ?'),
      nextEventSeq: db.prepare<[string], { n: number }>('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM webhook_events WHERE company_id = ?'),
      insertEvent: db.prepare('INSERT INTO webhook_events (id, company_id, seq, type, created_at, body) VALUES (?, ?, ?, ?, ?, ?)'),
      insertDelivery: db.prepare(`INSERT INTO webhook_deliveries (event_id, webhook_id, seq, state, attempts, next_attempt_at) VALUES (?, ?, ?, 'PENDING', 0, ?)`),
      dueDeliveries: db.prepare<[string, number], DueDeliveryRow>(
        `SELECT d.event_id, d.webhook_id, e.company_id, e.type, e.body, d.attempts, json_extract(w.doc, '$.url') AS url, w.secret
         FROM webhook_deliveries d
         JOIN webhook_events e ON e.id = d.event_id
         JOIN webhooks w ON w.id = d.webhook_id AND w.status = 'ACTIVE'
         WHERE d.state = 'PENDING' AND d.next_attempt_at <= ?
           AND d.seq = (SELECT MIN(d2.seq) FROM webhook_deliveries d2 WHERE d2.webhook_id = d.webhook_id AND d2.state = 'PENDING')
         ORDER BY d.next_attempt_at
         LIMIT ?`,
      ),
      leaseDelivery: db.prepare('UPDATE webhook_deliveries SET next_attempt_at = ? WHERE event_id = ? AND webhook_id = ?'),
      updateDelivery: db.prepare('UPDATE webhook_deliveries SET state = ?, attempts = ?, next_attempt_at = ? WHERE event_id = ? AND webhook_id = ?'),
      insertAttempt: db.prepare('INSERT INTO webhook_attempts (id, company_id, webhook_id, event_id, requested_at, doc) VALUES (?, ?, ?, ?, ?, ?)'),
      listAttempts: db.prepare<[string, string], { doc: string }>('SELECT doc FROM webhook_attempts WHERE company_id = ? AND webhook_id = ? ORDER BY requested_at DESC, rowid DESC'),
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
    await this.write(() => {
      this.statements.insertCompany.run(company.doc.id, company.city, company.color, company.pixKey ?? null, company.doc.createdAt, JSON.stringify(company.doc));
      this.statements.insertApiKey.run(key.id, key.companyId, key.secretHash, key.createdAt);
    });
  }

  async getCompany(companyId: string): Promise<CompanyRecord | undefined> {
    const row = this.statements.getCompany.get(companyId);
    return row && companyOfRow(row);
  }

  async findApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = this.statements.findApiKey.get(keyId);
    return row && { id: row.id, companyId: row.company_id, secretHash: row.secret_hash, createdAt: row.created_at };
  }

  async insertClient(client: ClientDoc): Promise<void> {
    await this.write(() => this.statements.insertClient.run(client.id, client.companyId, client.createdAt, JSON.stringify(client)));
  }

  async getClient(companyId: string, id: string): Promise<ClientDoc | undefined> {
    return parseDoc(this.statements.getClient.get(companyId, id));
  }

  async listClientsJson(companyId: string): Promise<string> {
    return `[${this.statements.listClientDocs.all(companyId).join(',')}]`;
  }

  async insertProduct(product: ProductDoc): Promise<void> {
    await this.write(() => this.statements.insertProduct.run(product.id, product.companyId, JSON.stringify(product)));
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
    await this.write(() => this.statements.insertSubscription.run(subscription.id, companyId, JSON.stringify(subscription)));
  }

  async getSubscription(companyId: string, id: string): Promise<SubscriptionDoc | undefined> {
    return parseDoc(this.statements.getSubscription.get(companyId, id));
  }

  async replaceSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void> {
    await this.write(() => this.statements.replaceSubscription.run(JSON.stringify(subscription), companyId, subscription.id));
  }

  async insertOrder(companyId: string, build: (orderNumber: number) => OrderDoc): Promise<OrderDoc> {
    return this.write(() => {
      const orderNumber = this.statements.nextOrderNumber.get(companyId)!.n;
      const order = build(orderNumber);
      this.statements.insertOrder.run(order.id, companyId, orderNumber, JSON.stringify(order));
      return order;
    });
  }

  async insertCharge(charge: StoredCharge, companyId: string, extras: { newClient?: ClientDoc; response?: StoredResponse; events?: NewEvent[] }): Promise<void> {
    await this.write(() => {
      if (extras.newClient) {
        const client = extras.newClient;
        this.statements.insertClient.run(client.id, client.companyId, client.createdAt, JSON.stringify(client));
      }
      this.statements.insertCharge.run(charge.id, companyId, charge.expiresAt, JSON.stringify(charge));
      this.addEvents(companyId, extras.events ?? []);
      if (extras.response) {
        const r = extras.response;
        this.statements.completeIdempotency.run(r.status, r.body, r.companyId, r.key);
      }
    });
  }

  async getCharge(companyId: string, id: string): Promise<StoredCharge | undefined> {
    return parseDoc(this.statements.getCharge.get(companyId, id));
  }

  async getChargeJson(companyId: string, id: string): Promise<string | undefined> {
    return this.statements.getCharge.get(companyId, id)?.doc;
  }

  async setChargeImage(companyId: string, id: string, brCodeBase64: string): Promise<void> {
    await this.write(() => this.statements.setChargeImage.run(brCodeBase64, companyId, id));
  }

  async findCharge(id: string): Promise<{ companyId: string; charge: StoredCharge } | undefined> {
    const row = this.statements.findCharge.get(id);
    return row && { companyId: row.company_id, charge: JSON.parse(row.doc) as StoredCharge };
  }

  async transitionCharge(companyId: string, id: string, apply: (charge: StoredCharge) => { charge: StoredCharge; events: NewEvent[] }): Promise<StoredCharge | undefined> {
    return this.write((): StoredCharge | undefined => {
      const current = parseDoc<StoredCharge>(this.statements.getCharge.get(companyId, id));
      if (!current) return undefined;
      const { charge, events } = apply(current);
      this.statements.replaceCharge.run(JSON.stringify(charge), charge.status === 'OPEN' ? 1 : 0, companyId, id);
      this.addEvents(companyId, events);
      return charge;
    });
  }

  async openChargesDue(now: string, limit: number): Promise<Array<{ companyId: string; id: string }>> {
    return this.statements.openChargesDue.all(now, limit).map((row) => ({ companyId: row.company_id, id: row.id }));
  }

  async insertWebhook(webhook: WebhookDoc, secret: string): Promise<void> {
    await this.write(() => this.statements.insertWebhook.run(webhook.id, webhook.companyId, secret, JSON.stringify(webhook), webhook.status, webhook.createdAt));
  }

  async listWebhooks(companyId: string): Promise<WebhookDoc[]> {
    return this.statements.listWebhooks.all(companyId).map((row) => JSON.parse(row.doc) as WebhookDoc);
  }

  async replaceWebhook(companyId: string, webhook: WebhookDoc): Promise<void> {
    await this.write(() => this.statements.replaceWebhook.run(JSON.stringify(webhook), webhook.status, companyId, webhook.id));
  }

  async deleteWebhook(companyId: string, id: string): Promise<boolean> {
    return this.write((): boolean => {
      if (this.statements.deleteWebhook.run(companyId, id).changes === 0) return false;
      this.statements.deleteWebhookDeliveries.run(id);
      this.statements.deleteWebhookAttempts.run(id);
      return true;
    });
  }

  async listDeliveryAttempts(companyId: string, webhookId: string): Promise<WebhookDeliveryDoc[]> {
    return this.statements.listAttempts.all(companyId, webhookId).map((row) => JSON.parse(row.doc) as WebhookDeliveryDoc);
  }

  async claimDueDeliveries(now: string, leaseUntil: string, limit: number): Promise<DueDelivery[]> {
    return this.write((): DueDelivery[] => {
      const rows = this.statements.dueDeliveries.all(now, limit);
      for (const row of rows) this.statements.leaseDelivery.run(leaseUntil, row.event_id, row.webhook_id);
      return rows.map(dueDeliveryOf);
    });
  }

  async recordAttempt(outcome: AttemptOutcome): Promise<void> {
    const { attempt, companyId } = outcome;
    await this.write(() => {
      // A webhook deleted while its attempt was in flight took its deliveries along: nothing to record.
      const webhook = parseDoc<WebhookDoc>(this.statements.getWebhook.get(companyId, attempt.webhookId));
      if (!webhook) return;
      this.statements.updateDelivery.run(outcome.state, attempt.attempt, attempt.nextAttemptAt ?? attempt.requestedAt, attempt.eventId, attempt.webhookId);
      this.statements.insertAttempt.run(attempt.id, companyId, attempt.webhookId, attempt.eventId, attempt.requestedAt, JSON.stringify(attempt));
      if (outcome.disableWebhook) {
        this.statements.replaceWebhook.run(JSON.stringify({ ...webhook, status: 'INACTIVE', updatedAt: attempt.requestedAt }), 'INACTIVE', companyId, webhook.id);
      }
    });
  }

  /** Puts events in the outbox, numbered per company, with a delivery per subscribed ACTIVE webhook. */
  private addEvents(companyId: string, events: readonly NewEvent[]): void {
    if (events.length === 0) return;
    const subscribers = this.statements.subscribers.all(companyId).map((row) => ({ id: row.id, events: (JSON.parse(row.doc) as WebhookDoc).events }));
    // An event no webhook subscribes to would never be sent: it is not written (most charges
    // of a company without webhooks are created, read and left to expire).
    const wanted = events.filter((event) => subscribers.some((webhook) => webhook.events.includes(event.type)));
    if (wanted.length === 0) return;
    let seq = this.statements.nextEventSeq.get(companyId)!.n;
    for (const event of wanted) {
      this.statements.insertEvent.run(event.id, companyId, seq, event.type, event.createdAt, event.body);
      for (const webhook of subscribers) {
        if (webhook.events.includes(event.type)) this.statements.insertDelivery.run(event.id, webhook.id, seq, event.createdAt);
      }
      seq += 1;
    }
  }

  async getWebhook(companyId: string, id: string): Promise<WebhookDoc | undefined> {
    return parseDoc(this.statements.getWebhook.get(companyId, id));
  }

  async claimIdempotencyKey(input: IdempotencyClaimInput): Promise<IdempotencyClaim> {
    // A claim is not waited for: it only has to be seen by the requests that follow (it is, on this
    // connection, at once), and it is committed with or before the charge whose response it
    // guards. A replay is: the response it repeats may be in the open group still.
    return this.write((): IdempotencyClaim => {
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
    }, (claim) => claim.kind === 'replay');
  }

  async releaseIdempotencyKey(companyId: string, key: string): Promise<void> {
    // Not waited for either: lost in a crash, the claim frees itself when its lease ends.
    await this.write(() => this.statements.releaseIdempotency.run(companyId, key), () => false);
  }

  async countRequest(keyId: string, windowStart: number): Promise<number> {
    let window = this.rateWindows.get(keyId);
    if (!window || window.start !== windowStart) {
      // A bound on memory: past 100,000 keys every window starts over.
      if (this.rateWindows.size > 100_000) this.rateWindows.clear();
      window = { start: windowStart, count: 0 };
      this.rateWindows.set(keyId, window);
    }
    window.count += 1;
    return window.count;
  }

  async close(): Promise<void> {
    if (this.group) this.commitGroup();
    this.db.close();
  }

  /**
   * Runs a write step in the open group transaction (opening one if needed, committed once this
   * turn of the event loop has run), in a savepoint of its own; resolves with its result once
   * the transaction is committed, rejects at once if the step fails, or with the commit's error.
   * A step whose result needs no durability (`waitForCommit` false) resolves at once.
   */
  private write<T>(step: () => T, waitForCommit: (result: T) => boolean = () => true): Promise<T> {
    try {
      if (!this.group) {
        this.db.exec('BEGIN IMMEDIATE');
        this.group = [];
        setImmediate(() => this.commitGroup());
      }
      const result = this.db.transaction(step)();
      if (!waitForCommit(result)) return Promise.resolve(result);
      return new Promise<T>((resolve, reject) => this.group!.push({ resolve: () => resolve(result), reject }));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private commitGroup(): void {
    const waiting = this.group ?? [];
    this.group = undefined;
    if (!this.db.open) return void waiting.forEach((step) => step.reject(new Error('The store was closed before the write was committed.')));
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const step of waiting) step.reject(error);
      return;
    }
    for (const step of waiting) step.resolve();
  }
}

function parseDoc<T>(row: { doc: string } | undefined): T | undefined {
  return row ? (JSON.parse(row.doc) as T) : undefined;
}

function migrate(db: Database.Database): void {
  db.exec(createMigrationsTable);
  const applied = new Set(db.prepare<[], { version: number }>('SELECT version FROM schema_migrations').all().map((r) => r.version));
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      for (const statement of migration.statements) db.exec(statement);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, new Date().toISOString());
    })();
  }
}

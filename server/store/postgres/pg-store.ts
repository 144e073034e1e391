import pg from 'pg';
import { createMigrationsTable, migrations } from '../migrations.js';
import type {
  ApiKeyRecord,
  AttemptOutcome,
  ClientDoc,
  CompanyRecord,
  DueDelivery,
  IdempotencyClaim,
  IdempotencyClaimInput,
  NewEvent,
  OrderDoc,
  ProductDoc,
  Store,
  StoredCharge,
  StoredResponse,
  SubscriptionDoc,
  WebhookDeliveryDoc,
  WebhookDoc,
} from '../types.js';
import { companyOfRow, dueDeliveryOf, type CompanyRow, type DueDeliveryRow } from '../rows.js';

export interface PgStoreOptions {
  connectionString: string;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** statement_timeout of every connection, ms (default 5000); 0 = none. */
  statementTimeoutMs?: number;
  /** A schema to use (created if missing) instead of `public`; tests give each store its own. */
  schema?: string;
}

/** Held (per database) by the transaction that migrates, so that instances starting together migrate once. */
const MIGRATION_LOCK = 7_263_540_011;
/** Rate-limit windows older than this (before the current one) are deleted when a key opens a new window. */
const RATE_WINDOW_RETENTION_MS = 3_600_000;
const SCHEMA_NAME = /^[a-z_][a-z0-9_]*$/;

type Queryable = Pick<pg.PoolClient, 'query'>;

/**
 * The store for several server instances sharing one PostgreSQL database. Each method is one
 * transaction (or one statement), correct under concurrency across processes: row locks where a
 * read decides a write (`FOR UPDATE`), the company row locked while numbering orders and events,
 * `SKIP LOCKED` to hand each due delivery to one worker, `ON CONFLICT` for idempotency claims and
 * rate-limit counters. Documents are kept as JSON text, as in SQLite, and returned as stored.
 */
export class PgStore implements Store {
  private closed = false;

  private constructor(private readonly pool: pg.Pool) {}

  /** Creates the pool, applies the migrations not yet applied, and returns the store. */
  static async open(options: PgStoreOptions): Promise<PgStore> {
    const { schema } = options;
    if (schema !== undefined && !SCHEMA_NAME.test(schema)) throw new Error(`Invalid PostgreSQL schema name ${JSON.stringify(schema)}: use lower-case letters, digits and _.`);
    const timeout = options.statementTimeoutMs ?? 5000;
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolSize ?? 10,
      // false leaves the server's setting (0, none, unless the database sets one).
      statement_timeout: timeout > 0 ? timeout : false,
      ...(schema !== undefined ? { options: `-c search_path=${schema}` } : {}),
      application_name: 'pix-reference-server',
      Client: TextSafeClient,
    });
    // An idle connection that breaks (server restart, network) emits 'error' on the pool; unhandled, it
    // would end the process. The pool drops that connection and opens another when needed.
    pool.on('error', (error: Error & { code?: string }) => {
      process.emitWarning(`PostgreSQL: an idle connection failed and was dropped (${error.code ?? 'no code'}: ${error.message})`, 'PgStoreWarning');
    });
    const store = new PgStore(pool);
    try {
      await store.migrate(schema);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return store;
  }

  private async migrate(schema: string | undefined): Promise<void> {
    await this.transaction(async (db) => {
      // Waiting for another instance's migrations is not a stuck statement.
      await db.query('SET LOCAL statement_timeout = 0');
      await db.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
      if (schema !== undefined) {
        await db.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
        await db.query(`SET LOCAL search_path TO ${schema}`);
      }
      await db.query(createMigrationsTable);
      const applied = new Set((await db.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version));
      for (const migration of migrations) {
        if (applied.has(migration.version)) continue;
        for (const statement of migration.statements) await db.query(statement);
        await db.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, new Date().toISOString()]);
      }
    });
  }

  async countCompanies(): Promise<number> {
    const { rows } = await this.pool.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM companies');
    return rows[0]!.n;
  }

  async createCompany(company: CompanyRecord, key: ApiKeyRecord): Promise<void> {
    await this.transaction(async (db) => {
      await db.query('INSERT INTO companies (id, city, color, pix_key, created_at, doc) VALUES ($1, $2, $3, $4, $5, $6)', [
        company.doc.id,
        company.city,
        company.color,
        company.pixKey ?? null,
        company.doc.createdAt,
        JSON.stringify(company.doc),
      ]);
      await db.query('INSERT INTO api_keys (id, company_id, secret_hash, created_at) VALUES ($1, $2, $3, $4)', [key.id, key.companyId, key.secretHash, key.createdAt]);
    });
  }

  async getCompany(companyId: string): Promise<CompanyRecord | undefined> {
    const { rows } = await this.pool.query<CompanyRow>('SELECT city, color, pix_key, doc FROM companies WHERE id = $1', [companyId]);
    const row = rows[0];
    return row && companyOfRow(row);
  }

  async findApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const { rows } = await this.pool.query<{ id: string; company_id: string; secret_hash: string; created_at: string }>(
      'SELECT id, company_id, secret_hash, created_at FROM api_keys WHERE id = $1',
      [keyId],
    );
    const row = rows[0];
    return row && { id: row.id, companyId: row.company_id, secretHash: row.secret_hash, createdAt: row.created_at };
  }

  async insertClient(client: ClientDoc): Promise<void> {
    await insertClient(this.pool, client);
  }

  async getClient(companyId: string, id: string): Promise<ClientDoc | undefined> {
    return this.getDoc('SELECT doc FROM clients WHERE company_id = $1 AND id = $2', [companyId, id]);
  }

  async listClientsJson(companyId: string): Promise<string> {
    const { rows } = await this.pool.query<{ doc: string }>('SELECT doc FROM clients WHERE company_id = $1 ORDER BY created_at, id', [companyId]);
    return `[${rows.map((row) => row.doc).join(',')}]`;
  }

  async insertProduct(product: ProductDoc): Promise<void> {
    await this.pool.query('INSERT INTO products (id, company_id, doc) VALUES ($1, $2, $3)', [product.id, product.companyId, JSON.stringify(product)]);
  }

  async getProducts(companyId: string, ids: readonly string[]): Promise<Map<string, ProductDoc>> {
    const unique = [...new Set(ids)];
    const result = new Map<string, ProductDoc>();
    if (unique.length === 0) return result;
    const { rows } = await this.pool.query<{ id: string; doc: string }>('SELECT id, doc FROM products WHERE company_id = $1 AND id = ANY($2::text[])', [companyId, unique]);
    const found = new Map(rows.map((row) => [row.id, row.doc]));
    // In the order asked, as SQLite does.
    for (const id of unique) {
      const doc = found.get(id);
      if (doc !== undefined) result.set(id, JSON.parse(doc) as ProductDoc);
    }
    return result;
  }

  async insertSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void> {
    await this.pool.query('INSERT INTO subscriptions (id, company_id, doc) VALUES ($1, $2, $3)', [subscription.id, companyId, JSON.stringify(subscription)]);
  }

  async getSubscription(companyId: string, id: string): Promise<SubscriptionDoc | undefined> {
    return this.getDoc('SELECT doc FROM subscriptions WHERE company_id = $1 AND id = $2', [companyId, id]);
  }

  async replaceSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void> {
    await this.pool.query('UPDATE subscriptions SET doc = $1 WHERE company_id = $2 AND id = $3', [JSON.stringify(subscription), companyId, subscription.id]);
  }

  async insertOrder(companyId: string, build: (orderNumber: number) => OrderDoc): Promise<OrderDoc> {
    return this.transaction(async (db) => {
      // Orders of one company are numbered one at a time, whichever instance stores them.
      await lockCompany(db, companyId);
      const { rows } = await db.query<{ n: number }>('SELECT COALESCE(MAX(order_number), 0) + 1 AS n FROM orders WHERE company_id = $1', [companyId]);
      const orderNumber = rows[0]!.n;
      const order = build(orderNumber);
      await db.query('INSERT INTO orders (id, company_id, order_number, doc) VALUES ($1, $2, $3, $4)', [order.id, companyId, orderNumber, JSON.stringify(order)]);
      return order;
    });
  }

  async insertCharge(charge: StoredCharge, companyId: string, extras: { newClient?: ClientDoc; response?: StoredResponse; events?: NewEvent[] }): Promise<void> {
    await this.transaction(async (db) => {
      if (extras.newClient) await insertClient(db, extras.newClient);
      await db.query('INSERT INTO charges (id, company_id, expires_at, doc) VALUES ($1, $2, $3, $4)', [charge.id, companyId, charge.expiresAt, JSON.stringify(charge)]);
      await addEvents(db, companyId, extras.events ?? []);
      if (extras.response) {
        const r = extras.response;
        await db.query('UPDATE idempotency_keys SET status = $1, body = $2 WHERE company_id = $3 AND key = $4', [r.status, r.body, r.companyId, r.key]);
      }
    });
  }

  async getCharge(companyId: string, id: string): Promise<StoredCharge | undefined> {
    return this.getDoc('SELECT doc FROM charges WHERE company_id = $1 AND id = $2', [companyId, id]);
  }

  async getChargeJson(companyId: string, id: string): Promise<string | undefined> {
    const { rows } = await this.pool.query<{ doc: string }>('SELECT doc FROM charges WHERE company_id = $1 AND id = $2', [companyId, id]);
    return rows[0]?.doc;
  }

  async setChargeImage(companyId: string, id: string, brCodeBase64: string): Promise<void> {
    // The member is appended to the text as written (as SQLite's json_set does), rather than going
    // through jsonb, which would reorder the keys and respace the document. The condition is
    // checked again on the row's latest version by a concurrent update, so the first image stays.
    await this.pool.query(
      `UPDATE charges
       SET doc = left(doc, length(doc) - 1) || CASE WHEN doc::jsonb = '{}'::jsonb THEN '' ELSE ',' END || '"brCodeBase64":' || $1 || '}'
       WHERE company_id = $2 AND id = $3 AND NOT (doc::jsonb ? 'brCodeBase64')`,
      [JSON.stringify(brCodeBase64), companyId, id],
    );
  }

  async findCharge(id: string): Promise<{ companyId: string; charge: StoredCharge } | undefined> {
    const { rows } = await this.pool.query<{ company_id: string; doc: string }>('SELECT company_id, doc FROM charges WHERE id = $1', [id]);
    const row = rows[0];
    return row && { companyId: row.company_id, charge: JSON.parse(row.doc) as StoredCharge };
  }

  async transitionCharge(companyId: string, id: string, apply: (charge: StoredCharge) => { charge: StoredCharge; events: NewEvent[] }): Promise<StoredCharge | undefined> {
    return this.transaction(async (db): Promise<StoredCharge | undefined> => {
      // Locked until commit: a concurrent move of the same charge waits and then applies to this one's result.
      const { rows } = await db.query<{ doc: string }>('SELECT doc FROM charges WHERE company_id = $1 AND id = $2 FOR UPDATE', [companyId, id]);
      const row = rows[0];
      if (!row) return undefined;
      const { charge, events } = apply(JSON.parse(row.doc) as StoredCharge);
      await db.query('UPDATE charges SET doc = $1, open = $2 WHERE company_id = $3 AND id = $4', [JSON.stringify(charge), charge.status === 'OPEN' ? 1 : 0, companyId, id]);
      await addEvents(db, companyId, events);
      return charge;
    });
  }

  async openChargesDue(now: string, limit: number): Promise<Array<{ companyId: string; id: string }>> {
    const { rows } = await this.pool.query<{ company_id: string; id: string }>(
      'SELECT company_id, id FROM charges WHERE open = 1 AND expires_at <= $1 ORDER BY expires_at LIMIT $2',
      [now, limit],
    );
    return rows.map((row) => ({ companyId: row.company_id, id: row.id }));
  }

  async insertWebhook(webhook: WebhookDoc, secret: string): Promise<void> {
    await this.pool.query('INSERT INTO webhooks (id, company_id, secret, doc, status, created_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      webhook.id,
      webhook.companyId,
      secret,
      JSON.stringify(webhook),
      webhook.status,
      webhook.createdAt,
    ]);
  }

  async getWebhook(companyId: string, id: string): Promise<WebhookDoc | undefined> {
    return this.getDoc('SELECT doc FROM webhooks WHERE company_id = $1 AND id = $2', [companyId, id]);
  }

  async listWebhooks(companyId: string): Promise<WebhookDoc[]> {
    const { rows } = await this.pool.query<{ doc: string }>('SELECT doc FROM webhooks WHERE company_id = $1 ORDER BY created_at, id', [companyId]);
    return rows.map((row) => JSON.parse(row.doc) as WebhookDoc);
  }

  async replaceWebhook(companyId: string, webhook: WebhookDoc): Promise<void> {
    await this.pool.query('UPDATE webhooks SET doc = $1, status = $2 WHERE company_id = $3 AND id = $4', [JSON.stringify(webhook), webhook.status, companyId, webhook.id]);
  }

  async deleteWebhook(companyId: string, id: string): Promise<boolean> {
    return this.transaction(async (db) => {
      const deleted = await db.query('DELETE FROM webhooks WHERE company_id = $1 AND id = $2', [companyId, id]);
      if (deleted.rowCount === 0) return false;
      await db.query('DELETE FROM webhook_deliveries WHERE webhook_id = $1', [id]);
      await db.query('DELETE FROM webhook_attempts WHERE webhook_id = $1', [id]);
      return true;
    });
  }

  async listDeliveryAttempts(companyId: string, webhookId: string): Promise<WebhookDeliveryDoc[]> {
    // SQLite breaks ties of requested_at by insertion (rowid); PostgreSQL has no such order, so by
    // attempt number (the later attempt of one event is the newer), then id.
    const { rows } = await this.pool.query<{ doc: string }>(
      `SELECT doc FROM webhook_attempts WHERE company_id = $1 AND webhook_id = $2
       ORDER BY requested_at DESC, ((doc::jsonb)->>'attempt')::int DESC, id DESC`,
      [companyId, webhookId],
    );
    return rows.map((row) => JSON.parse(row.doc) as WebhookDeliveryDoc);
  }

  async claimDueDeliveries(now: string, leaseUntil: string, limit: number): Promise<DueDelivery[]> {
    return this.transaction(async (db) => {
      // SKIP LOCKED: a delivery another worker is claiming right now is left to it. One it claimed and
      // committed is re-read at its new next_attempt_at (the lease) and is not due.
      const { rows } = await db.query<DueDeliveryRow>(
        `SELECT d.event_id, d.webhook_id, e.company_id, e.type, e.body, d.attempts, (w.doc::jsonb)->>'url' AS url, w.secret
         FROM webhook_deliveries d
         JOIN webhook_events e ON e.id = d.event_id
         JOIN webhooks w ON w.id = d.webhook_id AND w.status = 'ACTIVE'
         WHERE d.state = 'PENDING' AND d.next_attempt_at <= $1
           AND d.seq = (SELECT MIN(d2.seq) FROM webhook_deliveries d2 WHERE d2.webhook_id = d.webhook_id AND d2.state = 'PENDING')
         ORDER BY d.next_attempt_at
         LIMIT $2
         FOR UPDATE OF d SKIP LOCKED`,
        [now, limit],
      );
      for (const row of rows) {
        await db.query('UPDATE webhook_deliveries SET next_attempt_at = $1 WHERE event_id = $2 AND webhook_id = $3', [leaseUntil, row.event_id, row.webhook_id]);
      }
      return rows.map(dueDeliveryOf);
    });
  }

  async recordAttempt(outcome: AttemptOutcome): Promise<void> {
    const { attempt, companyId } = outcome;
    await this.transaction(async (db) => {
      // Locked so that a concurrent deleteWebhook waits (or has already taken the deliveries along),
      // and a concurrent change of the webhook is not overwritten by the INACTIVE below.
      const { rows } = await db.query<{ doc: string }>('SELECT doc FROM webhooks WHERE company_id = $1 AND id = $2 FOR NO KEY UPDATE', [companyId, attempt.webhookId]);
      const row = rows[0];
      // A webhook deleted while its attempt was in flight took its deliveries along: nothing to record.
      if (!row) return;
      const webhook = JSON.parse(row.doc) as WebhookDoc;
      await db.query('UPDATE webhook_deliveries SET state = $1, attempts = $2, next_attempt_at = $3 WHERE event_id = $4 AND webhook_id = $5', [
        outcome.state,
        attempt.attempt,
        attempt.nextAttemptAt ?? attempt.requestedAt,
        attempt.eventId,
        attempt.webhookId,
      ]);
      await db.query('INSERT INTO webhook_attempts (id, company_id, webhook_id, event_id, requested_at, doc) VALUES ($1, $2, $3, $4, $5, $6)', [
        attempt.id,
        companyId,
        attempt.webhookId,
        attempt.eventId,
        attempt.requestedAt,
        JSON.stringify(attempt),
      ]);
      if (outcome.disableWebhook) {
        await db.query('UPDATE webhooks SET doc = $1, status = $2 WHERE company_id = $3 AND id = $4', [
          JSON.stringify({ ...webhook, status: 'INACTIVE', updatedAt: attempt.requestedAt }),
          'INACTIVE',
          companyId,
          webhook.id,
        ]);
      }
    });
  }

  async claimIdempotencyKey(input: IdempotencyClaimInput): Promise<IdempotencyClaim> {
    return this.transaction(async (db): Promise<IdempotencyClaim> => {
      // A row released between the INSERT and the SELECT below is claimed on the next round.
      for (;;) {
        // A concurrent insert of the same key makes this wait for its commit: one of them inserts.
        const inserted = await db.query(
          `INSERT INTO idempotency_keys (company_id, key, fingerprint, lease_until, expires_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (company_id, key) DO NOTHING`,
          [input.companyId, input.key, input.fingerprint, input.leaseUntil, input.expiresAt],
        );
        if (inserted.rowCount === 1) return { kind: 'claimed' };
        const { rows } = await db.query<{ fingerprint: string; lease_until: string; expires_at: string; status: number | null; body: string | null }>(
          'SELECT fingerprint, lease_until, expires_at, status, body FROM idempotency_keys WHERE company_id = $1 AND key = $2 FOR UPDATE',
          [input.companyId, input.key],
        );
        const row = rows[0];
        if (!row) continue;
        // A row past its retention, or an unfinished one whose lease ran out (its request died), is free.
        // Compared here, as strings, exactly as SQLite compares them (no collation in play).
        const usable = row.expires_at > input.now && (row.status !== null || row.lease_until > input.now);
        if (usable) {
          if (row.fingerprint !== input.fingerprint) return { kind: 'mismatch' };
          if (row.status === null) return { kind: 'in-flight' };
          return { kind: 'replay', status: row.status, body: row.body ?? '' };
        }
        // Taken over under the row lock: a concurrent claim waits for this commit and then sees the new claim.
        await db.query(
          `UPDATE idempotency_keys SET fingerprint = $3, lease_until = $4, expires_at = $5, status = NULL, body = NULL
           WHERE company_id = $1 AND key = $2`,
          [input.companyId, input.key, input.fingerprint, input.leaseUntil, input.expiresAt],
        );
        return { kind: 'claimed' };
      }
    });
  }

  async releaseIdempotencyKey(companyId: string, key: string): Promise<void> {
    await this.pool.query('DELETE FROM idempotency_keys WHERE company_id = $1 AND key = $2 AND status IS NULL', [companyId, key]);
  }

  async countRequest(keyId: string, windowStart: number): Promise<number> {
    const { rows } = await this.pool.query<{ count: number }>(
      `INSERT INTO rate_limit_windows (key_id, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (key_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
       RETURNING count`,
      [keyId, windowStart],
    );
    const count = rows[0]!.count;
    // The first request of a window clears the key's old windows, so the table holds about an hour per key.
    if (count === 1) await this.pool.query('DELETE FROM rate_limit_windows WHERE key_id = $1 AND window_start < $2', [keyId, windowStart - RATE_WINDOW_RETENTION_MS]);
    return count;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  private async getDoc<T>(sql: string, params: unknown[]): Promise<T | undefined> {
    const { rows } = await this.pool.query<{ doc: string }>(sql, params);
    const row = rows[0];
    return row ? (JSON.parse(row.doc) as T) : undefined;
  }

  /** Runs `step` in a transaction on one connection: committed if it resolves, rolled back if it throws. */
  private async transaction<T>(step: (db: pg.PoolClient) => Promise<T>): Promise<T> {
    const db = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await db.query('BEGIN');
      const result = await step(db);
      await db.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await db.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection is unusable (lost, or in a state ROLLBACK cannot end): the pool discards it.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      throw error;
    } finally {
      db.release(broken);
    }
  }
}

/**
 * PostgreSQL text cannot hold U+0000, and a parameter with one fails the statement. Such a value
 * comes only from a request (an id in a path or a body) and can match nothing stored (documents
 * are JSON, where it is escaped; ids and keys are generated), so it is sent as U+FFFD instead:
 * the lookup finds nothing, as it does on SQLite, instead of failing with a 500.
 */
class TextSafeClient extends pg.Client {
  override query(...args: unknown[]): never {
    const values = args[1];
    if (Array.isArray(values)) args[1] = values.map((value: unknown) => (typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value));
    return (pg.Client.prototype.query as (...a: unknown[]) => never).apply(this, args);
  }
}

async function insertClient(db: Queryable, client: ClientDoc): Promise<void> {
  await db.query('INSERT INTO clients (id, company_id, created_at, doc) VALUES ($1, $2, $3, $4)', [client.id, client.companyId, client.createdAt, JSON.stringify(client)]);
}

/**
 * Locks the company's row until commit: what is numbered per company (orders, events) is numbered by
 * one transaction at a time. NO KEY UPDATE, not UPDATE: it does not conflict with the KEY SHARE
 * locks that inserts referencing the company take, so those neither wait nor deadlock with it.
 */
async function lockCompany(db: Queryable, companyId: string): Promise<void> {
  await db.query('SELECT 1 FROM companies WHERE id = $1 FOR NO KEY UPDATE', [companyId]);
}

/** Puts events in the outbox, numbered per company, with a delivery per subscribed ACTIVE webhook. */
async function addEvents(db: Queryable, companyId: string, events: readonly NewEvent[]): Promise<void> {
  if (events.length === 0) return;
  // KEY SHARE: a webhook being deleted is waited for (and then not a subscriber), and one read here
  // cannot be deleted before this commits, so no delivery is left without its webhook.
  const { rows } = await db.query<{ id: string; doc: string }>(`SELECT id, doc FROM webhooks WHERE company_id = $1 AND status = 'ACTIVE' ORDER BY id FOR KEY SHARE`, [companyId]);
  const subscribers = rows.map((row) => ({ id: row.id, events: (JSON.parse(row.doc) as WebhookDoc).events }));
  // An event no webhook subscribes to would never be sent: it is not written.
  const wanted = events.filter((event) => subscribers.some((webhook) => webhook.events.includes(event.type)));
  if (wanted.length === 0) return;
  await lockCompany(db, companyId);
  const next = await db.query<{ n: number }>('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM webhook_events WHERE company_id = $1', [companyId]);
  let seq = next.rows[0]!.n;
  for (const event of wanted) {
    await db.query('INSERT INTO webhook_events (id, company_id, seq, type, created_at, body) VALUES ($1, $2, $3, $4, $5, $6)', [event.id, companyId, seq, event.type, event.createdAt, event.body]);
    for (const webhook of subscribers) {
      if (webhook.events.includes(event.type)) {
        await db.query(`INSERT INTO webhook_deliveries (event_id, webhook_id, seq, state, attempts, next_attempt_at) VALUES ($1, $2, $3, 'PENDING', 0, $4)`, [event.id, webhook.id, seq, event.createdAt]);
      }
    }
    seq += 1;
  }
}

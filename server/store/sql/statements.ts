import type { PagedTable } from '../types.js';
import type { DueDeliveryRow, CompanyRow, ApiKeyRow, ListPageRow, ListPositionRow, DocRow, IdempotencyRow } from './rows.js';
import type { Param, Statement } from './step.js';

/** The row locks PostgreSQL takes; see where each is used. */
export type RowLock = 'FOR UPDATE' | 'FOR NO KEY UPDATE' | 'FOR KEY SHARE' | 'FOR UPDATE OF d SKIP LOCKED';

/**
 * What the two engines spell differently; everything else in a statement is the SQL both share.
 * The engine of each dialect lives beside its store.
 */
export interface Dialect {
  /** The engine, for the few migrations only it has (`Migration.only`). */
  engine: 'sqlite' | 'postgres';
  /** The statement in the engine's parameter syntax: shared text writes `?` for each parameter, in order. */
  parameters(sql: string): string;
  /** The member `name` of the JSON document in `column`, as SQL NULL where it is missing. */
  jsonMember(column: string, name: string): string;
  /** `column` is one of the strings of the JSON array bound to `parameter`, looked up by index. */
  inJsonArray(column: string, parameter: string): string;
  /** The clause on PostgreSQL; nothing on SQLite, whose write steps hold the whole database. */
  rowLock(clause: RowLock): string;
  /**
   * The JSON array of the JSON texts in `column`, in `order`, as UTF-8 bytes: made by the engine
   * in one value, not one string per row joined here, and sent as it comes (D48's long lists).
   */
  jsonArrayBytes(column: string, order: string): string;
  /**
   * Whether lists (D48's pages and parts) are made one JSON array by the engine
   * (`jsonArrayBytes`), or read as rows in the list's order and joined by the store. PostgreSQL
   * makes them: a row through its wire protocol costs more than the whole value. SQLite's rows
   * are joined: its ordered aggregate sorts the rows again in a temporary b-tree although they
   * arrive in order, and that sort was half of a page's time.
   */
  listsInSql: boolean;
}

/**
 * The statements of one paged list (D48), made from its table's name (one of `pagedTables`, never
 * input): every list is read the same way, by the index `(company_id, created_at, id)`.
 */
export function listStatements(d: Dialect, table: PagedTable) {
  const q = <P extends readonly Param[], R = never>(sql: string): Statement<P, R> => ({ sql: d.parameters(sql) });
  return {
    /** A page of the list's order, from the start, as one JSON array (engines that make lists, `Dialect.listsInSql`). */
    first: q<[companyId: string, limit: number], ListPageRow>(
      `SELECT ${d.jsonArrayBytes('doc', 'created_at, id')} AS json, CAST(COUNT(*) AS INTEGER) AS n FROM (
        SELECT created_at, id, doc FROM ${table} WHERE company_id = ? ORDER BY created_at, id LIMIT ?) AS page`,
    ),
    /** A keyset page, read from the index of the list's order where the cursor left off. */
    after: q<[companyId: string, createdAt: string, id: string, limit: number], ListPageRow>(
      `SELECT ${d.jsonArrayBytes('doc', 'created_at, id')} AS json, CAST(COUNT(*) AS INTEGER) AS n FROM (
        SELECT created_at, id, doc FROM ${table} WHERE company_id = ? AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?) AS page`,
    ),
    /** The documents of a page in the list's order, from the start (engines whose lists the store joins). */
    firstDocs: q<[companyId: string, limit: number], DocRow>(`SELECT doc FROM ${table} WHERE company_id = ? ORDER BY created_at, id LIMIT ?`),
    /** The documents of a keyset page. */
    docsAfter: q<[companyId: string, createdAt: string, id: string, limit: number], DocRow>(
      `SELECT doc FROM ${table} WHERE company_id = ? AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT ?`,
    ),
    /**
     * D49: the record at a position of the list (an offset from the start) and the one after it,
     * if any (two rows at most), read from the index: where a page that ends there leaves off, and
     * whether a next page exists.
     */
    at: q<[companyId: string, offset: number], ListPositionRow>(
      `SELECT created_at, id FROM ${table} WHERE company_id = ? ORDER BY created_at, id LIMIT 2 OFFSET ?`,
    ),
    /** The same from a cursor: the record `offset` places after it and the one after that. */
    atAfter: q<[companyId: string, createdAt: string, id: string, offset: number], ListPositionRow>(
      `SELECT created_at, id FROM ${table} WHERE company_id = ? AND (created_at, id) > (?, ?) ORDER BY created_at, id LIMIT 2 OFFSET ?`,
    ),
  };
}

export type ListStatements = ReturnType<typeof listStatements>;

/** Every statement of the store, rendered for one engine (once, when the store is created). */
export function sharedStatements(d: Dialect) {
  const q = <P extends readonly Param[], R = never>(sql: string): Statement<P, R> => ({ sql: d.parameters(sql) });
  return {
    // CAST: PostgreSQL's COUNT is a bigint, which its driver returns as a string.
    countCompanies: q<[], { n: number }>('SELECT CAST(COUNT(*) AS INTEGER) AS n FROM companies'),
    getDeploymentMode: q<[], { mode: string }>('SELECT mode FROM deployment_mode WHERE singleton = 1'),
    insertDeploymentMode: q<[mode: string, recordedAt: string]>(
      'INSERT INTO deployment_mode (singleton, mode, recorded_at) VALUES (1, ?, ?) ON CONFLICT (singleton) DO NOTHING',
    ),
    changeDeploymentMode: q<[mode: string, recordedAt: string]>('UPDATE deployment_mode SET mode = ?, recorded_at = ? WHERE singleton = 1'),
    insertCompany: q<[id: string, city: string, color: string, pixKey: string | null, createdAt: string, doc: string]>(
      'INSERT INTO companies (id, city, color, pix_key, created_at, doc) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    getCompany: q<[id: string], CompanyRow>('SELECT city, color, pix_key, doc FROM companies WHERE id = ?'),
    /**
     * Locks the company's row until commit: what is numbered per company (orders, events) is numbered by
     * one transaction at a time. NO KEY UPDATE, not UPDATE: it does not conflict with the KEY SHARE
     * locks that inserts referencing the company take, so those neither wait nor deadlock with it.
     */
    lockCompany: q<[id: string], unknown>(`SELECT 1 FROM companies WHERE id = ? ${d.rowLock('FOR NO KEY UPDATE')}`),
    insertApiKey: q<[id: string, companyId: string, secretHash: string, createdAt: string]>(
      'INSERT INTO api_keys (id, company_id, secret_hash, created_at) VALUES (?, ?, ?, ?)',
    ),
    findApiKey: q<[id: string], ApiKeyRow>('SELECT id, company_id, secret_hash, created_at FROM api_keys WHERE id = ?'),
    /** The keys command's list: every company, oldest first, and each one's keys. */
    listCompanies: q<[], CompanyRow & { id: string }>('SELECT id, city, color, pix_key, doc FROM companies ORDER BY created_at, id'),
    listApiKeys: q<[companyId: string], ApiKeyRow>('SELECT id, company_id, secret_hash, created_at FROM api_keys WHERE company_id = ? ORDER BY created_at, id'),
    deleteApiKey: q<[id: string]>('DELETE FROM api_keys WHERE id = ?'),

    // A sandbox reset (D51): every record of one company, its webhook outbox included, in the order
    // the foreign keys and the delivery worker's locks ask for (a registration before its deliveries,
    // as `recordAttempt` locks them; deliveries before their events).
    companyWebhookIds: q<[companyId: string], { id: string }>('SELECT id FROM webhooks WHERE company_id = ? ORDER BY id'),
    deleteCompanyWebhooks: q<[companyId: string]>('DELETE FROM webhooks WHERE company_id = ?'),
    deleteCompanyDeliveries: q<[companyId: string]>('DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM webhook_events WHERE company_id = ?)'),
    deleteAttemptsOf: q<[webhookIdsJson: string]>(`DELETE FROM webhook_attempts WHERE ${d.inJsonArray('webhook_id', '?')}`),
    deleteCompanyEvents: q<[companyId: string]>('DELETE FROM webhook_events WHERE company_id = ?'),
    deleteCompanyIdempotencyKeys: q<[companyId: string]>('DELETE FROM idempotency_keys WHERE company_id = ?'),
    deleteCompanyCharges: q<[companyId: string]>('DELETE FROM charges WHERE company_id = ?'),
    deleteCompanyOrders: q<[companyId: string]>('DELETE FROM orders WHERE company_id = ?'),
    deleteCompanySubscriptions: q<[companyId: string]>('DELETE FROM subscriptions WHERE company_id = ?'),
    deleteCompanyProducts: q<[companyId: string]>('DELETE FROM products WHERE company_id = ?'),
    deleteCompanyClients: q<[companyId: string]>('DELETE FROM clients WHERE company_id = ?'),

    insertClient: q<[id: string, companyId: string, taxId: string, createdAt: string, doc: string]>(
      'INSERT INTO clients (id, company_id, tax_id, created_at, doc) VALUES (?, ?, ?, ?, ?)',
    ),
    getClient: q<[companyId: string, id: string], DocRow>('SELECT doc FROM clients WHERE company_id = ? AND id = ?'),
    /** D48: the client a payment link's customer reuses, the oldest ACTIVE one with the tax number. */
    reusableClient: q<[companyId: string, taxId: string], { id: string }>(
      `SELECT id FROM clients WHERE company_id = ? AND tax_id = ? AND ${d.jsonMember('doc', 'status')} = 'ACTIVE' ORDER BY created_at, id LIMIT 1`,
    ),

    insertProduct: q<[id: string, companyId: string, doc: string]>('INSERT INTO products (id, company_id, doc) VALUES (?, ?, ?)'),
    productsAmong: q<[companyId: string, idsJson: string], DocRow & { id: string }>(
      `SELECT id, doc FROM products WHERE company_id = ? AND ${d.inJsonArray('id', '?')}`,
    ),

    insertSubscription: q<[id: string, companyId: string, doc: string]>('INSERT INTO subscriptions (id, company_id, doc) VALUES (?, ?, ?)'),
    getSubscription: q<[companyId: string, id: string], DocRow>('SELECT doc FROM subscriptions WHERE company_id = ? AND id = ?'),
    replaceSubscription: q<[doc: string, companyId: string, id: string]>('UPDATE subscriptions SET doc = ? WHERE company_id = ? AND id = ?'),

    nextOrderNumber: q<[companyId: string], { n: number }>('SELECT COALESCE(MAX(order_number), 0) + 1 AS n FROM orders WHERE company_id = ?'),
    insertOrder: q<[id: string, companyId: string, orderNumber: number, doc: string]>(
      'INSERT INTO orders (id, company_id, order_number, doc) VALUES (?, ?, ?, ?)',
    ),
    getOrder: q<[companyId: string, id: string], DocRow>('SELECT doc FROM orders WHERE company_id = ? AND id = ?'),

    insertCharge: q<[id: string, companyId: string, expiresAt: string, doc: string]>(
      'INSERT INTO charges (id, company_id, expires_at, doc) VALUES (?, ?, ?, ?)',
    ),
    getCharge: q<[companyId: string, id: string], DocRow>('SELECT doc FROM charges WHERE company_id = ? AND id = ?'),
    /** Locked until commit: a concurrent move of the same charge waits and then applies to this one's result. */
    getChargeToMove: q<[companyId: string, id: string], DocRow>(`SELECT doc FROM charges WHERE company_id = ? AND id = ? ${d.rowLock('FOR UPDATE')}`),
    findCharge: q<[id: string], DocRow & { company_id: string }>('SELECT company_id, doc FROM charges WHERE id = ?'),
    replaceCharge: q<[doc: string, open: number, companyId: string, id: string]>('UPDATE charges SET doc = ?, open = ? WHERE company_id = ? AND id = ?'),
    /**
     * The member is appended to the text as written, rather than the document re-serialised (which
     * PostgreSQL's jsonb would reorder and respace). The condition is checked again on the row's
     * latest version by a concurrent update, so the first image stays. Documents are compact JSON.
     */
    setChargeImage: q<[imageJson: string, companyId: string, id: string]>(
      `UPDATE charges
       SET doc = substr(doc, 1, length(doc) - 1) || CASE WHEN doc = '{}' THEN '' ELSE ',' END || '"brCodeBase64":' || ? || '}'
       WHERE company_id = ? AND id = ? AND ${d.jsonMember('doc', 'brCodeBase64')} IS NULL`,
    ),
    openChargesDue: q<[now: string, limit: number], { company_id: string; id: string }>(
      'SELECT company_id, id FROM charges WHERE open = 1 AND expires_at <= ? ORDER BY expires_at LIMIT ?',
    ),

    insertWebhook: q<[id: string, companyId: string, secret: string, doc: string, status: string, createdAt: string]>(
      'INSERT INTO webhooks (id, company_id, secret, doc, status, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    getWebhook: q<[companyId: string, id: string], DocRow>('SELECT doc FROM webhooks WHERE company_id = ? AND id = ?'),
    countWebhooks: q<[companyId: string], { n: number }>('SELECT CAST(COUNT(*) AS INTEGER) AS n FROM webhooks WHERE company_id = ?'),
    /**
     * Locked so that a concurrent deleteWebhook waits (or has already taken the deliveries along), and
     * a concurrent change of the webhook is not overwritten by an attempt that disables it.
     */
    getWebhookToRecord: q<[companyId: string, id: string], DocRow>(
      `SELECT doc FROM webhooks WHERE company_id = ? AND id = ? ${d.rowLock('FOR NO KEY UPDATE')}`,
    ),
    listWebhooks: q<[companyId: string], DocRow>('SELECT doc FROM webhooks WHERE company_id = ? ORDER BY created_at, id'),
    replaceWebhook: q<[doc: string, status: string, companyId: string, id: string]>('UPDATE webhooks SET doc = ?, status = ? WHERE company_id = ? AND id = ?'),
    deleteWebhook: q<[companyId: string, id: string]>('DELETE FROM webhooks WHERE company_id = ? AND id = ?'),
    deleteWebhookDeliveries: q<[webhookId: string]>('DELETE FROM webhook_deliveries WHERE webhook_id = ?'),
    deleteWebhookAttempts: q<[webhookId: string]>('DELETE FROM webhook_attempts WHERE webhook_id = ?'),
    /**
     * KEY SHARE: a webhook being deleted is waited for (and then not a subscriber), and one read here
     * cannot be deleted before this commits, so no delivery is left without its webhook. By id, so
     * that concurrent fan-outs take these locks in one order.
     */
    subscribers: q<[companyId: string], DocRow & { id: string }>(
      `SELECT id, doc FROM webhooks WHERE company_id = ? AND status = 'ACTIVE' ORDER BY id ${d.rowLock('FOR KEY SHARE')}`,
    ),

    nextEventSeq: q<[companyId: string], { n: number }>('SELECT COALESCE(MAX(seq), 0) + 1 AS n FROM webhook_events WHERE company_id = ?'),
    insertEvent: q<[id: string, companyId: string, seq: number, type: string, createdAt: string, body: string]>(
      'INSERT INTO webhook_events (id, company_id, seq, type, created_at, body) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    insertDelivery: q<[eventId: string, webhookId: string, seq: number, nextAttemptAt: string]>(
      `INSERT INTO webhook_deliveries (event_id, webhook_id, seq, state, attempts, next_attempt_at) VALUES (?, ?, ?, 'PENDING', 0, ?)`,
    ),
    /**
     * D14's fair share: each webhook's oldest PENDING event that is due, taken in turns over the
     * companies (each company's first, then each one's second, …), at most `turns` of a company and
     * none of the companies in `fullJson` (a JSON array: those whose slots are all in use). The window
     * is computed in a subquery because PostgreSQL locks no row of a query level with a window function.
     * SKIP LOCKED: a delivery another worker is claiming right now is left to it. One it claimed and
     * committed is re-read at its new next_attempt_at (the lease) and is not due.
     */
    // Whether any delivery may be due at all: the worker's poll reads this first and opens a write
    // transaction (a commit and an fsync on SQLite) only when it finds one.
    anyDueDelivery: q<[now: string], { due: number }>(
      `SELECT 1 AS due FROM webhook_deliveries p
       JOIN webhooks h ON h.id = p.webhook_id AND h.status = 'ACTIVE'
       WHERE p.state = 'PENDING' AND p.next_attempt_at <= ?
       LIMIT 1`,
    ),
    dueDeliveries: q<[now: string, fullJson: string, turns: number, now: string, limit: number], DueDeliveryRow>(
      `SELECT d.event_id, d.webhook_id, e.company_id, e.type, e.body, d.attempts, ${d.jsonMember('w.doc', 'url')} AS url, w.secret
       FROM (
         SELECT p.event_id, p.webhook_id, p.next_attempt_at,
           ROW_NUMBER() OVER (PARTITION BY h.company_id ORDER BY p.next_attempt_at, p.seq, p.webhook_id) AS turn
         FROM webhook_deliveries p
         JOIN webhooks h ON h.id = p.webhook_id AND h.status = 'ACTIVE'
         WHERE p.state = 'PENDING' AND p.next_attempt_at <= ?
           AND p.seq = (SELECT MIN(p2.seq) FROM webhook_deliveries p2 WHERE p2.webhook_id = p.webhook_id AND p2.state = 'PENDING')
           AND NOT ${d.inJsonArray('h.company_id', '?')}
       ) due
       JOIN webhook_deliveries d ON d.event_id = due.event_id AND d.webhook_id = due.webhook_id
       JOIN webhook_events e ON e.id = d.event_id
       JOIN webhooks w ON w.id = d.webhook_id AND w.status = 'ACTIVE'
       WHERE due.turn <= ? AND d.state = 'PENDING' AND d.next_attempt_at <= ?
       ORDER BY due.turn, due.next_attempt_at, d.webhook_id
       LIMIT ?
       ${d.rowLock('FOR UPDATE OF d SKIP LOCKED')}`,
    ),
    leaseDelivery: q<[leaseUntil: string, eventId: string, webhookId: string]>(
      'UPDATE webhook_deliveries SET next_attempt_at = ? WHERE event_id = ? AND webhook_id = ?',
    ),
    updateDelivery: q<[state: string, attempts: number, nextAttemptAt: string, eventId: string, webhookId: string]>(
      'UPDATE webhook_deliveries SET state = ?, attempts = ?, next_attempt_at = ? WHERE event_id = ? AND webhook_id = ?',
    ),
    insertAttempt: q<[id: string, companyId: string, webhookId: string, eventId: string, requestedAt: string, doc: string]>(
      'INSERT INTO webhook_attempts (id, company_id, webhook_id, event_id, requested_at, doc) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    /** Ties of requested_at broken by attempt number (the later attempt of one event is the newer), then id. */
    listAttempts: q<[companyId: string, webhookId: string, limit: number], DocRow>(
      `SELECT doc FROM webhook_attempts WHERE company_id = ? AND webhook_id = ?
       ORDER BY requested_at DESC, CAST(${d.jsonMember('doc', 'attempt')} AS INTEGER) DESC, id DESC LIMIT ?`,
    ),

    /** A concurrent insert of the same key makes this wait for its commit: one of them inserts. */
    insertIdempotency: q<[companyId: string, key: string, fingerprint: string, leaseUntil: string, expiresAt: string]>(
      `INSERT INTO idempotency_keys (company_id, key, fingerprint, lease_until, expires_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (company_id, key) DO NOTHING`,
    ),
    getIdempotency: q<[companyId: string, key: string], IdempotencyRow>(
      `SELECT fingerprint, lease_until, expires_at, status, body FROM idempotency_keys WHERE company_id = ? AND key = ? ${d.rowLock('FOR UPDATE')}`,
    ),
    takeOverIdempotency: q<[fingerprint: string, leaseUntil: string, expiresAt: string, companyId: string, key: string]>(
      `UPDATE idempotency_keys SET fingerprint = ?, lease_until = ?, expires_at = ?, status = NULL, body = NULL
       WHERE company_id = ? AND key = ?`,
    ),
    /**
     * The answer a key is replayed with, written with the record it made. An upsert: the claim's
     * row is there where claims are written (PostgreSQL), and is written now where a claim is
     * held in memory (SQLite), over a row whose retention ended if there is one.
     */
    completeIdempotency: q<[companyId: string, key: string, fingerprint: string, leaseUntil: string, expiresAt: string, status: number, body: string]>(
      `INSERT INTO idempotency_keys (company_id, key, fingerprint, lease_until, expires_at, status, body) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (company_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, lease_until = excluded.lease_until,
         expires_at = excluded.expires_at, status = excluded.status, body = excluded.body`,
    ),
    releaseIdempotency: q<[companyId: string, key: string]>('DELETE FROM idempotency_keys WHERE company_id = ? AND key = ? AND status IS NULL'),
  };
}

export type SharedStatements = ReturnType<typeof sharedStatements>;

/**
 * Versioned schema migrations, applied in order at start-up and recorded in
 * `schema_migrations`. Written in the SQL that SQLite and PostgreSQL share (TEXT,
 * INTEGER, BIGINT, primary and unique keys), so both engines read them from here; what
 * they spell differently (reading a JSON member) comes from the engine's dialect.
 * Records are stored as their API documents (`doc`, JSON text) next to the columns
 * that queries need: reads return the document as it was written.
 */
import type { Dialect } from './sql/statements.js';

/** A statement of a migration: shared SQL, or shared SQL around what the engines spell differently. */
export type MigrationStatement = string | ((d: Pick<Dialect, 'jsonMember'>) => string);

export interface Migration {
  version: number;
  name: string;
  /**
   * The one engine whose schema it changes, for what only that engine has (a SQLite table
   * without rowid); the other records it as applied and changes nothing, so both list the same
   * versions.
   */
  only?: Dialect['engine'];
  statements: MigrationStatement[];
}

/** The statements of a migration in one engine's SQL (none where it is another engine's). */
export function statementsOf(migration: Migration, d: Pick<Dialect, 'jsonMember' | 'engine'>): string[] {
  if (migration.only !== undefined && migration.only !== d.engine) return [];
  return migration.statements.map((statement) => (typeof statement === 'string' ? statement : statement(d)));
}

/** Where each engine records the migrations it has applied. */
export const createMigrationsTable = 'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)';

/** The columns of the Idempotency-Key table (D10), as migration 1 made them and migration 9 keeps them. */
const idempotencyKeyColumns = `
        company_id TEXT NOT NULL REFERENCES companies(id),
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        lease_until TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        status INTEGER,
        body TEXT,
        PRIMARY KEY (company_id, key)
      `;

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'initial',
    statements: [
      `CREATE TABLE companies (
        id TEXT PRIMARY KEY,
        city TEXT NOT NULL,
        color TEXT NOT NULL,
        created_at TEXT NOT NULL,
        doc TEXT NOT NULL
      )`,
      `CREATE TABLE api_keys (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id),
        secret_hash TEXT NOT NULL,
        created_at TEXT NOT NULL
      )`,
      `CREATE TABLE clients (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id),
        created_at TEXT NOT NULL,
        doc TEXT NOT NULL
      )`,
      `CREATE INDEX clients_by_company ON clients (company_id, created_at, id)`,
      `CREATE TABLE products (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id),
        doc TEXT NOT NULL
      )`,
      `CREATE INDEX products_by_company ON products (company_id, id)`,
      `CREATE TABLE subscriptions (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id),
        doc TEXT NOT NULL
      )`,
      `CREATE TABLE charges (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id),
        expires_at TEXT NOT NULL,
        doc TEXT NOT NULL
      )`,
      `CREATE TABLE orders (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id),
        order_number INTEGER NOT NULL,
        doc TEXT NOT NULL,
        UNIQUE (company_id, order_number)
      )`,
      `CREATE TABLE webhooks (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id),
        secret TEXT NOT NULL,
        doc TEXT NOT NULL
      )`,
      `CREATE TABLE idempotency_keys (${idempotencyKeyColumns})`,
    ],
  },
  {
    version: 2,
    name: 'charge lifecycle and webhook delivery',
    statements: [
      // Whether a charge can still move (OPEN); the expiry sweep reads only these.
      `ALTER TABLE charges ADD COLUMN open INTEGER NOT NULL DEFAULT 1`,
      `CREATE INDEX charges_open_by_expiry ON charges (open, expires_at)`,
      `ALTER TABLE webhooks ADD COLUMN status TEXT NOT NULL DEFAULT 'ACTIVE'`,
      `ALTER TABLE webhooks ADD COLUMN created_at TEXT NOT NULL DEFAULT ''`,
      `CREATE INDEX webhooks_by_company ON webhooks (company_id, created_at, id)`,
      // The outbox: written in the transaction of the state change it reports (D14).
      `CREATE TABLE webhook_events (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL REFERENCES companies(id),
        seq INTEGER NOT NULL,
        type TEXT NOT NULL,
        created_at TEXT NOT NULL,
        body TEXT NOT NULL,
        UNIQUE (company_id, seq)
      )`,
      // One row per event and subscribed webhook: what remains to deliver.
      `CREATE TABLE webhook_deliveries (
        event_id TEXT NOT NULL REFERENCES webhook_events(id),
        webhook_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        state TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TEXT NOT NULL,
        PRIMARY KEY (event_id, webhook_id)
      )`,
      `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at)`,
      `CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, state, seq)`,
      // Every attempt, for GET /webhook/{id}/deliveries (D41).
      `CREATE TABLE webhook_attempts (
        id TEXT PRIMARY KEY,
        company_id TEXT NOT NULL,
        webhook_id TEXT NOT NULL,
        event_id TEXT NOT NULL,
        requested_at TEXT NOT NULL,
        doc TEXT NOT NULL
      )`,
      `CREATE INDEX webhook_attempts_by_webhook ON webhook_attempts (webhook_id, requested_at)`,
    ],
  },
  {
    version: 3,
    name: 'shared rate-limit windows',
    statements: [
      // Requests per API key and fixed window (D11), shared by every instance on one PostgreSQL
      // database. SQLite (one instance per file) counts in memory and leaves this table empty.
      // BIGINT: the window start is in milliseconds, beyond PostgreSQL's 32-bit INTEGER.
      `CREATE TABLE rate_limit_windows (
        key_id TEXT NOT NULL,
        window_start BIGINT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (key_id, window_start)
      )`,
    ],
  },
  {
    version: 4,
    name: 'company pix key',
    statements: [
      // NULL: the company has no key of its own, and its charges carry the unpayable one (D43).
      `ALTER TABLE companies ADD COLUMN pix_key TEXT`,
    ],
  },
  {
    version: 5,
    name: 'client tax numbers',
    statements: [
      // D48: a payment link's customer reuses the company's client with its tax number, found by index.
      `ALTER TABLE clients ADD COLUMN tax_id TEXT NOT NULL DEFAULT ''`,
      (d) => `UPDATE clients SET tax_id = ${d.jsonMember('doc', 'taxId')}`,
      `CREATE INDEX clients_by_tax_id ON clients (company_id, tax_id, created_at, id)`,
    ],
  },
  {
    version: 6,
    name: 'rate-limit windows by start',
    statements: [
      // D11: client addresses are counted too, and an address may never come back; old windows of
      // every counter are deleted by their start, found by this index.
      `CREATE INDEX rate_limit_windows_by_start ON rate_limit_windows (window_start)`,
    ],
  },
  {
    version: 7,
    name: 'clients kept in the order of their list',
    only: 'sqlite',
    statements: [
      // D48: a company's clients are listed by (created_at, id), a page at a time. Kept in that
      // order (a table without rowid, keyed by it), a page is one contiguous run of rows instead of
      // a run of the index and a row looked up for each entry, wherever the company's clients lie
      // among other companies' in the file. Rebuilt in the migration's one transaction: a copy, then
      // the old table dropped and the copy renamed, so a failure leaves the old table as it was.
      // PostgreSQL keeps its table: its pages are read by the same index.
      `CREATE TABLE clients_in_list_order (
        company_id TEXT NOT NULL REFERENCES companies(id),
        created_at TEXT NOT NULL,
        id TEXT NOT NULL,
        tax_id TEXT NOT NULL DEFAULT '',
        doc TEXT NOT NULL,
        PRIMARY KEY (company_id, created_at, id)
      ) WITHOUT ROWID`,
      'INSERT INTO clients_in_list_order (company_id, created_at, id, tax_id, doc) SELECT company_id, created_at, id, tax_id, doc FROM clients',
      'DROP TABLE clients',
      'ALTER TABLE clients_in_list_order RENAME TO clients',
      // A client's id stays unique (it was the primary key), and found by index.
      'CREATE UNIQUE INDEX clients_by_id ON clients (id)',
      'CREATE INDEX clients_by_tax_id ON clients (company_id, tax_id, created_at, id)',
      // The positions alone, in the list's order: counting to a place in a long list (D49's bound
      // of 100,000) reads these small entries, not the whole rows (18.7 ms a list → 3 ms).
      'CREATE INDEX clients_by_position ON clients (company_id, created_at, id)',
    ],
  },
  {
    version: 8,
    name: 'deployment mode',
    statements: [
      // D51: the deployment mode, recorded by the first server that starts on the database (one
      // row). A reset is refused where it says production, whatever the command's NODE_ENV; a
      // server whose NODE_ENV says otherwise refuses to start; only `npm run keys -- mode … --change`
      // changes it.
      `CREATE TABLE deployment_mode (
        singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
        mode TEXT NOT NULL CHECK (mode IN ('development', 'production')),
        recorded_at TEXT NOT NULL
      )`,
    ],
  },
  {
    version: 9,
    name: 'idempotency keys kept by their key',
    only: 'sqlite',
    statements: [
      // D10: a key's row is found, and written with the record it answers for, by (company, key)
      // only. A table without rowid keyed by them is one b-tree, where a rowid table was two (its
      // rows, and the index of its primary key): every create under a key inserts into one b-tree
      // fewer, and its commit writes fewer pages. Rebuilt in the migration's one transaction, as
      // migration 7 rebuilt the clients. PostgreSQL keeps its table.
      `CREATE TABLE idempotency_keys_by_key (${idempotencyKeyColumns}) WITHOUT ROWID`,
      'INSERT INTO idempotency_keys_by_key SELECT company_id, key, fingerprint, lease_until, expires_at, status, body FROM idempotency_keys',
      'DROP TABLE idempotency_keys',
      'ALTER TABLE idempotency_keys_by_key RENAME TO idempotency_keys',
    ],
  },
];

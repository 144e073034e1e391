/**
 * Versioned schema migrations, applied in order at start-up and recorded in
 * `schema_migrations`. Written in the SQL that SQLite and PostgreSQL share (TEXT,
 * INTEGER, primary and unique keys), so both engines read them from here.
 * Records are stored as their API documents (`doc`, JSON text) next to the columns
 * that queries need: reads return the document as it was written.
 */
export interface Migration {
  version: number;
  name: string;
  statements: string[];
}

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
      `CREATE TABLE idempotency_keys (
        company_id TEXT NOT NULL REFERENCES companies(id),
        key TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        lease_until TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        status INTEGER,
        body TEXT,
        PRIMARY KEY (company_id, key)
      )`,
    ],
  },
];

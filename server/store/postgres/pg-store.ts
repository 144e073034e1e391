import pg from 'pg';
import { createMigrationsTable, migrations, statementsOf } from '../migrations.js';
import { SqlStore, type WriteOptions } from '../sql/sql-store.js';
import type { Dialect } from '../sql/statements.js';
import type { Op, Step } from '../sql/step.js';

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

const pgDialect: Dialect = {
  engine: 'postgres',
  parameters: numberParameters,
  jsonMember: (column, name) => `(${column}::jsonb)->>'${name}'`,
  // = ANY(ARRAY(…)), not IN (SELECT …): the array is computed once and each id found by index,
  // where IN would hash-join a scan of every product of the company.
  inJsonArray: (column, parameter) => `${column} = ANY(ARRAY(SELECT jsonb_array_elements_text(CAST(${parameter} AS jsonb))))`,
  rowLock: (clause) => clause,
  jsonArrayBytes: (column, order) => `convert_to('[' || coalesce(string_agg(${column}, ',' ORDER BY ${order}), '') || ']', 'UTF8')`,
  listsInSql: true,
};

/**
 * The store for several server instances sharing one PostgreSQL database. Each method is one
 * transaction (or one statement), correct under concurrency across processes: row locks where a
 * read decides a write (`FOR UPDATE`), the company row locked while numbering orders and events,
 * `SKIP LOCKED` to hand each due delivery to one worker, `ON CONFLICT` for idempotency claims and
 * rate-limit counters. Documents are kept as JSON text, as in SQLite, and returned as stored.
 */
export class PgStore extends SqlStore {
  private closed = false;

  private constructor(private readonly pool: pg.Pool) {
    super(pgDialect);
  }

  /** Creates the pool, applies the migrations not yet applied, and returns the store. */
  static async open(options: PgStoreOptions): Promise<PgStore> {
    const { schema } = options;
    if (schema !== undefined && !SCHEMA_NAME.test(schema))
      throw new Error(`Invalid PostgreSQL schema name ${JSON.stringify(schema)}: use lower-case letters, digits and _.`);
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
        for (const statement of statementsOf(migration, pgDialect)) await db.query(statement);
        await db.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          migration.version,
          migration.name,
          new Date().toISOString(),
        ]);
      }
    });
  }

  async countRequest(keyId: string, windowStart: number): Promise<number> {
    const { rows } = await this.pool.query<{ count: number }>(
      `INSERT INTO rate_limit_windows (key_id, window_start, count) VALUES ($1, $2, 1)
       ON CONFLICT (key_id, window_start) DO UPDATE SET count = rate_limit_windows.count + 1
       RETURNING count`,
      [keyId, windowStart],
    );
    const count = rows[0]!.count;
    // The first request of a window clears the windows older than an hour, of every key and
    // address (by the window_start index): the table holds about an hour of counters, also of
    // addresses that never come back.
    if (count === 1) await this.pool.query('DELETE FROM rate_limit_windows WHERE window_start < $1', [windowStart - RATE_WINDOW_RETENTION_MS]);
    return count;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }

  /**
   * Each statement of the step on a connection of the pool: the reads need see no one moment.
   * What they see is committed, and so on disk, `beforeWrite` or not.
   */
  protected async read<T>(step: Step<T>): Promise<T> {
    return drive(this.pool, step);
  }

  protected async write<T>(step: Step<T>, options: WriteOptions<T> = {}): Promise<T> {
    if (options.single) return drive(this.pool, step);
    return this.transaction((db) => drive(db, step));
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
    if (Array.isArray(values))
      args[1] = values.map((value: unknown) => (typeof value === 'string' && value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value));
    return (pg.Client.prototype.query as (...a: unknown[]) => never).apply(this, args);
  }
}

async function drive<T>(db: Queryable, step: Step<T>): Promise<T> {
  let next = step.next();
  while (!next.done) next = step.next(await execute(db, next.value));
  return next.value;
}

async function execute(db: Queryable, op: Op): Promise<unknown> {
  const result = await db.query(op.statement.sql, [...op.params]);
  if (op.kind === 'get') return result.rows[0];
  if (op.kind === 'all') return result.rows;
  if (op.kind === 'column') return result.rows.map((row: Record<string, unknown>) => Object.values(row)[0]);
  return result.rowCount ?? 0;
}

/** `?` (outside quoted text) as PostgreSQL's `$1`, `$2`, … in order. */
function numberParameters(sql: string): string {
  let n = 0;
  return sql.replace(/'(?:[^']|'')*'|\?/g, (match) => (match === '?' ? `$${++n}` : match));
}

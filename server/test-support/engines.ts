/**
 * The storage engine the server tests run on. `npm test` runs the server tests twice: on SQLite
 * (the `sqlite` vitest project) and, when TEST_DATABASE_URL names a PostgreSQL database, on
 * PostgreSQL (the `postgres` project, which sets TEST_ENGINE=postgres). Each test store is its
 * own: an in-memory SQLite database, or a fresh PostgreSQL schema dropped when it is closed.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgStore } from '../store/postgres/pg-store.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/types.js';

export type Engine = 'sqlite' | 'postgres';

export const testEngine: Engine = process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** The PostgreSQL server of the tests, or undefined (its tests are then skipped with a notice). */
export const testDatabaseUrl: string | undefined = process.env.TEST_DATABASE_URL || undefined;

export interface TestStore {
  store: Store;
  /** Closes the store and drops what it was made of (its PostgreSQL schema). */
  close: () => Promise<void>;
}

/**
 * On PostgreSQL a fresh schema costs its migrations (a dozen CREATE TABLEs and their indexes,
 * about 0.2 s of the database server's time), and most server tests open a store per test. When a
 * test file asks for it (`reuseSchemas()`, the postgres project's setup file), a closed store's
 * schema is emptied instead of dropped (every row deleted, children before parents: a few
 * milliseconds) and the file's next store opens it again, migrated and as empty as a new one;
 * `dropIdleSchemas()` drops them when the file ends. Without it every store's schema is dropped
 * when the store is closed.
 */
const idleSchemas: string[] = [];
let reusing = false;
/** The tables of a migrated schema, children before the parents they reference, but schema_migrations. */
let deleteOrder: string[] | undefined;

export function reuseSchemas(): void {
  reusing = true;
}

/** Drops the schemas closed stores left for reuse. */
export async function dropIdleSchemas(): Promise<void> {
  const schemas = idleSchemas.splice(0);
  if (schemas.length > 0) await dropSchema(schemas.join(', '));
}

/** A fresh, empty store on the engine of this test run. */
export async function openTestStore(engine: Engine = testEngine): Promise<TestStore> {
  if (engine === 'sqlite') {
    const store = new SqliteStore(':memory:');
    return { store, close: () => store.close() };
  }
  if (!testDatabaseUrl) throw new Error('TEST_ENGINE=postgres needs TEST_DATABASE_URL');
  const schema = idleSchemas.pop() ?? `test_${randomBytes(8).toString('hex')}`;
  const store = await PgStore.open({ connectionString: testDatabaseUrl, schema, poolSize: 4 });
  return {
    store,
    close: async () => {
      await store.close();
      if (
        reusing &&
        (await emptySchema(schema).then(
          () => true,
          () => false,
        ))
      )
        idleSchemas.push(schema);
      else await dropSchema(schema);
    },
  };
}

/** Deletes every row of a migrated schema but its migrations' (a store's schema after close, for the next). */
async function emptySchema(schema: string): Promise<void> {
  await withClient(async (client) => {
    deleteOrder ??= await tablesChildrenFirst(client, schema);
    await client.query(['BEGIN', ...deleteOrder.map((table) => `DELETE FROM ${schema}.${table}`), 'COMMIT'].join('; '));
  });
}

async function tablesChildrenFirst(client: pg.PoolClient, schema: string): Promise<string[]> {
  const tables = (
    await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'",
      [schema],
    )
  ).rows.map((r) => r.name);
  const references = (
    await client.query<{ child: string; parent: string }>(
      `SELECT child.relname AS child, parent.relname AS parent FROM pg_constraint c
         JOIN pg_class child ON child.oid = c.conrelid JOIN pg_class parent ON parent.oid = c.confrelid
         JOIN pg_namespace n ON n.oid = c.connamespace
       WHERE c.contype = 'f' AND n.nspname = $1 AND child.relname <> parent.relname`,
      [schema],
    )
  ).rows;
  const order: string[] = [];
  let left = tables;
  while (left.length > 0) {
    // A table no table left references goes next.
    const free = left.filter((table) => !references.some((r) => r.parent === table && left.includes(r.child)));
    if (free.length === 0) throw new Error(`the tables of ${schema} reference each other in a circle: ${left.join(', ')}`);
    order.push(...free);
    left = left.filter((table) => !free.includes(table));
  }
  return order;
}

/**
 * The connection that empties and drops the test schemas, kept between uses: a new PostgreSQL
 * connection costs the database server a process and, for the dozen tables a schema is emptied
 * of, its catalog lookups anew (about 25 ms of its CPU; the server tests close hundreds of
 * stores). One connection at most; closed after a second unused, and it never holds the test
 * process open.
 */
let maintenance: pg.Pool | undefined;

async function withClient<T>(use: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  maintenance ??= new pg.Pool({ connectionString: testDatabaseUrl, max: 1, idleTimeoutMillis: 1_000, allowExitOnIdle: true });
  const client = await maintenance.connect();
  try {
    const result = await use(client);
    client.release();
    return result;
  } catch (error) {
    // A failed statement may leave its transaction open: the connection is not kept.
    client.release(true);
    throw error;
  }
}

/** Drops a schema (or several, separated by commas) and all it holds. */
export async function dropSchema(schema: string): Promise<void> {
  await withClient((client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
}

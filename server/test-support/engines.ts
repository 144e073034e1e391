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

/** A fresh, empty store on the engine of this test run. */
export async function openTestStore(engine: Engine = testEngine): Promise<TestStore> {
  if (engine === 'sqlite') {
    const store = new SqliteStore(':memory:');
    return { store, close: () => store.close() };
  }
  if (!testDatabaseUrl) throw new Error('TEST_ENGINE=postgres needs TEST_DATABASE_URL');
  const schema = `test_${randomBytes(8).toString('hex')}`;
  const store = await PgStore.open({ connectionString: testDatabaseUrl, schema, poolSize: 4 });
  return {
    store,
    close: async () => {
      await store.close();
      await dropSchema(schema);
    },
  };
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: testDatabaseUrl });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

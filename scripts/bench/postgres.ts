/**
 * The PostgreSQL row of the write scenarios: a schema of its own on the server the bench is given
 * (`--database-url`), made for one run and dropped once its row is measured, or by
 * `cleanUpEverything` when the run fails or is interrupted. The reference server and the keys CLI
 * reach it through DATABASE_URL, whose `options` set the schema as the search path, as the
 * server's process tests do (server/test-support/processes.ts).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { HarnessError } from './harness-error.js';
import { registerMadeElsewhere, repoRoot } from './targets.js';

export interface BenchSchema {
  name: string;
  /** The server's URL with the schema as its search path, for DATABASE_URL. */
  databaseUrl: string;
  /** Drops the schema and all it holds (once its servers are stopped). */
  drop(): void;
}

function runSchemaScript(serverUrl: string, action: 'create' | 'drop', schema: string): void {
  try {
    execFileSync(process.execPath, [join(repoRoot, 'scripts', 'bench', 'pg-schema.mjs'), action, schema], {
      cwd: repoRoot,
      env: { ...process.env, BENCH_PG_URL: serverUrl },
      stdio: ['ignore', 'pipe', 'pipe'],
      encoding: 'utf8',
      timeout: 30_000,
    });
  } catch (error) {
    const stderr = typeof error === 'object' && error !== null && 'stderr' in error && typeof error.stderr === 'string' ? error.stderr.trim() : '';
    const why = stderr || (error instanceof Error ? error.message : String(error));
    throw new HarnessError(
      action === 'create'
        ? `could not make a PostgreSQL schema for the bench on the server --database-url (or BENCH_DATABASE_URL) names: ${why}. ` +
            'Check that the server runs and that its user may CREATE SCHEMA in that database, or leave the option out to skip the PostgreSQL row.'
        : `could not drop the bench's PostgreSQL schema ${schema}: ${why}. Drop it by hand: DROP SCHEMA ${schema} CASCADE;`,
    );
  }
}

/** A new, empty schema on the server `serverUrl` names, registered to be dropped whatever happens. */
export function createBenchSchema(serverUrl: string): BenchSchema {
  const name = `bench_${randomBytes(6).toString('hex')}`;
  runSchemaScript(serverUrl, 'create', name);
  // Synchronous since the schema was made: no signal handler can run before it is registered.
  const forget = registerMadeElsewhere(`the PostgreSQL schema ${name}`, () => runSchemaScript(serverUrl, 'drop', name));
  const url = new URL(serverUrl);
  const options = url.searchParams.get('options');
  url.searchParams.set('options', `${options ? `${options} ` : ''}-c search_path=${name}`);
  return {
    name,
    databaseUrl: url.toString(),
    drop() {
      runSchemaScript(serverUrl, 'drop', name);
      forget();
    },
  };
}

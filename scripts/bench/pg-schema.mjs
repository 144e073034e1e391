// Makes or drops the PostgreSQL schema of one bench run: `node pg-schema.mjs create|drop <schema>`,
// on the server that BENCH_PG_URL names (an environment variable, not an argument: the URL may
// hold a password, and a command line is visible to every user of the machine). A child process
// of its own, so that the bench can drop its schema synchronously, from an exit handler too.
import pg from 'pg';

const [action, schema] = process.argv.slice(2);
if ((action !== 'create' && action !== 'drop') || !/^bench_[a-z0-9]+$/.test(schema ?? '') || !process.env.BENCH_PG_URL) {
  console.error('usage: BENCH_PG_URL=postgres://… node scripts/bench/pg-schema.mjs create|drop bench_<letters and digits>');
  process.exit(2);
}

// A Ctrl+C on the terminal reaches this child too: it finishes its one statement (the bench then
// drops what it made), rather than leave a schema made that the bench never learnt of.
process.on('SIGINT', () => {});

const client = new pg.Client({ connectionString: process.env.BENCH_PG_URL, connectionTimeoutMillis: 10_000 });
try {
  await client.connect();
  // A server killed a moment ago may hold a lock in the schema until PostgreSQL sees it gone.
  await client.query("SET lock_timeout = '15s'");
  await client.query(action === 'create' ? `CREATE SCHEMA ${schema}` : `DROP SCHEMA IF EXISTS ${schema} CASCADE`);
} catch (error) {
  console.error(`${error.code ? `${error.code}: ` : ''}${error.message}`);
  process.exitCode = 1;
} finally {
  await client.end().catch(() => {});
}

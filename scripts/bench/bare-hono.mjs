// The limits of the benchmark: the least a Hono app on @hono/node-server can do per request.
// - `GET /`: route, serialise a small JSON array, answer (informative: the cost of HTTP alone);
// - `/same/<n>`: answer the very bytes the reference server answered to scenario n (status,
//   content type, body), from memory, read from the file BENCH_ANSWERS names. A request body is
//   read as the reference server must read it. Each scenario's reference req/s is compared with
//   its own row here: sending 1.4 KB or 20 MB is not the same work as sending 60 bytes.
// - `/durable/<n>`, for the scenarios that write (their captured answer says `write: true`), when BENCH_DURABLE_DB names a
//   database file: the same answer, sent only once the request is on disk, as a create must be.
//   No server that keeps its creates can answer as fast as bytes from memory, so for writes this
//   is the reachable limit: read the body, insert it as one row into SQLite (WAL,
//   synchronous = NORMAL), fdatasync the WAL off the event loop, then answer. Creates are grouped
//   as the reference groups them: one transaction gathers the creates that arrive while the last
//   group's fdatasync runs (or in one event-loop turn when none runs), one commit and one
//   fdatasync serve them all.
import { randomUUID } from 'node:crypto';
import { closeSync, fdatasync, openSync, readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import Database from 'better-sqlite3';
import { Hono } from 'hono';

const items = [
  { id: 1, name: 'alpha', active: true },
  { id: 2, name: 'beta', active: false },
  { id: 3, name: 'gamma', active: true },
];

/** Inserts request bodies; `create` resolves once its row is committed and the WAL fdatasynced. */
function durableStore(path) {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec('CREATE TABLE IF NOT EXISTS created (id TEXT PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO created (id, body) VALUES (?, ?)');
  // The WAL exists once the table is: SQLite keeps it while this connection is open. Linux
  // flushes a file's pages whichever descriptor wrote them, so our own descriptor will do.
  const wal = openSync(`${path}-wal`, 'r+');

  /** Creates of the open transaction, to settle once it is on disk. */
  let group;
  /** Creates committed since the running fdatasync began: the next one covers them. */
  let committed = [];
  /** The running fdatasync, which the next group waits for before it commits. */
  let syncing;

  const sync = () => {
    const batch = committed;
    committed = [];
    syncing = new Promise((done) => {
      fdatasync(wal, (error) => {
        syncing = undefined;
        for (const create of batch) {
          if (error) create.reject(error);
          else create.resolve();
        }
        done();
        if (committed.length > 0) sync();
      });
    });
  };

  const commit = () => {
    const waiting = group;
    group = undefined;
    try {
      db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      for (const create of waiting) create.reject(error);
      return;
    }
    committed.push(...waiting);
    if (!syncing) sync();
  };

  return {
    create(body) {
      if (!group) {
        db.exec('BEGIN IMMEDIATE');
        group = [];
        const later = () => setImmediate(commit);
        if (syncing) syncing.then(later);
        else later();
      }
      insert.run(randomUUID(), body);
      const waiting = group;
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    // Called once the server has closed: every create has been answered, so none is pending.
    close() {
      db.close();
      closeSync(wal);
    },
  };
}

const app = new Hono();
app.get('/', (c) => c.json(items));

const answers = process.env.BENCH_ANSWERS ? JSON.parse(readFileSync(process.env.BENCH_ANSWERS, 'utf8')) : [];
const durable = process.env.BENCH_DURABLE_DB ? durableStore(process.env.BENCH_DURABLE_DB) : undefined;
answers.forEach((answer, index) => {
  const body = Buffer.from(answer.bodyBase64, 'base64');
  const send = (c) => c.body(body, answer.status, { 'Content-Type': answer.contentType });
  app.on(answer.method, `/same/${index}`, async (c) => {
    if (answer.write) await c.req.arrayBuffer();
    return send(c);
  });
  if (durable && answer.write) {
    app.on(answer.method, `/durable/${index}`, async (c) => {
      await durable.create(await c.req.text());
      return send(c);
    });
  }
});

const port = Number(process.env.PORT ?? 3100);
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () =>
    server.close(() => {
      durable?.close();
      process.exit(0);
    }),
  );
}

import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { createMigrationsTable, migrations, statementsOf } from '../migrations.js';
import { SqlStore, type ReadOptions, type WriteOptions } from '../sql/sql-store.js';
import type { Dialect } from '../sql/statements.js';
import { claimOfStoredKey } from '../sql/rows.js';
import { get, type AnyStatement, type Op, type Step } from '../sql/step.js';
import type { ListPage, ListPosition, IdempotencyClaim, IdempotencyClaimInput, PagedTable } from '../types.js';
import { RateWindows } from './rate-windows.js';
import { ReadCache, tableWritten } from './read-cache.js';
import { WalFlusher } from './wal-flush.js';

const sqliteDialect: Dialect = {
  engine: 'sqlite',
  parameters: (sql) => sql,
  jsonMember: (column, name) => `json_extract(${column}, '$.${name}')`,
  inJsonArray: (column, parameter) => `${column} IN (SELECT value FROM json_each(${parameter}))`,
  rowLock: () => '',
  jsonArrayBytes: (column, order) => `CAST('[' || coalesce(group_concat(${column}, ',' ORDER BY ${order}), '') || ']' AS BLOB)`,
  listsInSql: false,
};

/** Pages of at most this many records are kept (the contracts' largest page, D48); larger reads are not. */
const KEPT_PAGE_RECORDS = 1_000;

/**
 * The embedded default store: one SQLite file in WAL mode. better-sqlite3 is synchronous, so
 * every step runs to completion without interleaving with other requests: a write step holds the
 * whole database, and needs none of PostgreSQL's row locks.
 *
 * Writes are group-committed: the write steps that arrive while the last group's WAL is being
 * fsynced (or, with none under way, in one event-loop turn) run in one transaction, each step in
 * its own savepoint (a step that fails is undone alone), and each resolves only once that
 * transaction is committed and its WAL frames fsynced (`WalFlusher`, off the event loop), so
 * nothing is acknowledged before it is on disk. One commit and one fsync serve them all. Reads
 * see the steps of the open group, as a transaction sees its own writes, and answer once those
 * are on disk.
 */
export class SqliteStore extends SqlStore {
  private readonly db: Database.Database;
  /** Each statement prepared once, when the store opens, with the table it writes if it does. */
  private readonly prepared = new Map<AnyStatement, { statement: Database.Statement<unknown[], unknown>; writes: string | undefined }>();
  /**
   * Charges as last read, and the reads of every create: its products and the company's webhook
   * subscribers (none, for most companies), each kept until a write of its table (this process
   * is the file's one writer).
   */
  private readonly cache = new ReadCache([this.sql.getCharge, this.sql.productsAmong, this.sql.subscribers]);
  /** Steps of the open group transaction, waiting for its commit. */
  private group: Array<{ resolve: () => void; reject: (error: unknown) => void }> | undefined;
  /**
   * Rate-limit windows (D11), one per company or client address: its current window and the
   * requests counted in it. In memory: one instance serves a SQLite file, so nothing needs sharing,
   * and a restart forgets them. Bounded: past 100,000 the least recently used goes, never all.
   */
  private readonly rateWindows: RateWindows;
  /**
   * Idempotency keys claimed by requests still running (D10), by company and key. This process
   * is its file's one writer, so a claim needs no row of its own: it is held here until the
   * request's answer is written with its record (`answered`) or the request fails
   * (`releaseIdempotencyKey`). A crash forgets it, as the end of its lease would. Only answers
   * are written, one row per key, in the transaction of the record they answer for.
   */
  private readonly claims = new Map<string, { fingerprint: string; leaseUntil: string }>();
  private readonly flusher: WalFlusher | undefined;
  /** A step in a savepoint of the open transaction: made once, not per write. */
  private readonly inSavepoint: (step: Step<unknown>) => unknown;

  /** `rateWindowsCap`: how many rate-limit counters are kept in memory (a test sets a small one). */
  constructor(path: string, options: { rateWindowsCap?: number } = {}) {
    super(sqliteDialect);
    this.rateWindows = new RateWindows(options.rateWindowsCap);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    // A commit is on disk before the response that acknowledges it is sent (see `write`): on a
    // file, by the WAL flusher, off the event loop; in memory there is no disk to wait for.
    this.flusher = path === ':memory:' ? undefined : new WalFlusher(`${path}-wal`);
    this.db.pragma(this.flusher ? 'synchronous = NORMAL' : 'synchronous = FULL');
    this.db.pragma('foreign_keys = ON');
    this.db.pragma('busy_timeout = 5000');
    // 8 MiB of page cache (the default is 2 MiB), so that the indexes a write touches stay in
    // memory (16 MiB made no create faster here, and cost the server 12 MB of its memory); and a
    // checkpoint every 16 MiB of WAL rather than 4, so that pages written over and over (index
    // roots) are copied to the database once per checkpoint, not four times.
    this.db.pragma('cache_size = -8192');
    this.db.pragma('wal_autocheckpoint = 4000');
    migrate(this.db);
    this.inSavepoint = this.db.transaction((step: Step<unknown>) => this.run(step));
    for (const statement of this.statements()) this.prepared.set(statement, { statement: this.db.prepare(statement.sql), writes: tableWritten(statement.sql) });
  }

  async countRequest(keyId: string, windowStart: number): Promise<number> {
    return this.rateWindows.count(keyId, windowStart);
  }

  override async claimIdempotencyKey(input: IdempotencyClaimInput): Promise<IdempotencyClaim> {
    const id = `${input.companyId}\u0000${input.key}`;
    // Decided without a pause, so two requests with one key cannot both claim it.
    const held = this.claims.get(id);
    if (held && held.leaseUntil > input.now) return held.fingerprint === input.fingerprint ? { kind: 'in-flight' } : { kind: 'mismatch' };
    const row = this.run(get(this.sql.getIdempotency, input.companyId, input.key));
    const stored = row && claimOfStoredKey(row, input.now, input.fingerprint);
    if (stored === undefined) {
      this.claims.set(id, { fingerprint: input.fingerprint, leaseUntil: input.leaseUntil });
      return { kind: 'claimed' };
    }
    // A replayed answer is on disk before it is sent again.
    if (stored.kind === 'replay') await this.untilDurable();
    return stored;
  }

  override async releaseIdempotencyKey(companyId: string, key: string): Promise<void> {
    this.claims.delete(`${companyId}\u0000${key}`);
  }

  protected override answered(companyId: string, key: string): void {
    this.claims.delete(`${companyId}\u0000${key}`);
  }

  async close(): Promise<void> {
    if (this.group) this.commitGroup();
    await this.flusher?.close();
    this.db.close();
  }

  /**
   * A read answers only with what is on disk: when commits still wait for their fsync, it waits
   * for it too, so an answer (a replayed idempotent answer, a charge read back, a webhook
   * event sent) is never ahead of the disk. A read `beforeWrite` does not wait: the write it
   * leads to waits, and is committed with or after everything the read saw.
   */
  protected read<T>(step: Step<T>, options: ReadOptions = {}): Promise<T> {
    let result: T;
    try {
      result = this.run(step);
    } catch (error) {
      return Promise.reject(error);
    }
    // Not an async function: a read with nothing to wait for (most) settles without extra turns.
    const durable = options.beforeWrite ? undefined : this.untilDurable();
    return durable === undefined ? Promise.resolve(result) : durable.then(() => result);
  }

  /**
   * Resolves once every write made so far, the open group's included, is on disk; undefined when
   * nothing waits for the disk.
   */
  private untilDurable(): Promise<void> | undefined {
    const group = this.group;
    if (group) return new Promise<void>((resolve) => group.push({ resolve, reject: () => resolve() }));
    return this.flusher?.pending?.catch(() => undefined);
  }

  /**
   * The pages of every paged list (D48), the first part of a whole list and the parts it streams
   * in included, are kept as the JSON they were sent as until their table is written (any write
   * of it: this process is the file's one writer): reading the rows was most of the time of the
   * answer. Kept within the cache's one budget and shared by every reader, so a reader holds no
   * copy of its own. A new list's pages are kept with nothing added: the key is its table.
   */
  override async listPageJson(table: PagedTable, companyId: string, limit: number, after?: ListPosition): Promise<ListPage> {
    if (limit > KEPT_PAGE_RECORDS) return super.listPageJson(table, companyId, limit, after);
    const key = `page ${limit} ${after ? `${after.createdAt} ${after.id}` : ''} ${companyId}`;
    const kept = this.cache.lookupDerived(table, key);
    if (kept !== undefined) {
      await this.untilDurable();
      return kept;
    }
    const version = this.cache.version(table);
    const made = await super.listPageJson(table, companyId, limit, after);
    this.cache.keepDerived(table, key, made, version);
    return made;
  }

  /**
   * Runs a write step in the open group transaction (opening one if needed, committed once this
   * turn of the event loop has run), in a savepoint of its own; resolves with its result once
   * the transaction is committed, rejects at once if the step fails, or with the commit's error.
   * A step whose result needs no durability (`waitForCommit` false) resolves at once.
   */
  protected write<T>(step: Step<T>, options: WriteOptions<T> = {}): Promise<T> {
    try {
      if (!this.group) {
        this.db.exec('BEGIN IMMEDIATE');
        this.group = [];
        // While the last group's WAL is being flushed, this group keeps gathering the writes
        // that arrive, and commits when that flush is done: one commit and one fsync per
        // flush time, however many requests come in it (each commit rewrites the index pages
        // its writes share, so fewer, larger commits cost less per write).
        const commit = () => setImmediate(() => this.commitGroup());
        const flushing = this.flusher?.pending;
        if (flushing) flushing.then(commit, commit);
        else commit();
      }
      let result: T;
      try {
        result = this.inSavepoint(step) as T;
      } catch (error) {
        // Reads during the step may have been kept from writes its savepoint has undone.
        this.cache.clear();
        throw error;
      }
      const group = this.group;
      if (options.waitForCommit && !options.waitForCommit(result)) return Promise.resolve(result);
      return new Promise<T>((resolve, reject) => group.push({ resolve: () => resolve(result), reject }));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Runs a step's statements in order, answering the ones the read cache keeps from it. */
  private run<T>(step: Step<T>): T {
    let next = step.next();
    while (!next.done) {
      const op = next.value;
      const kept = this.cache.lookup(op);
      if (kept) next = step.next(kept.row);
      else {
        const row = this.execute(op);
        this.cache.keep(op, row);
        next = step.next(row);
      }
    }
    return next.value;
  }

  private execute(op: Op): unknown {
    if (op.kind === 'lock') return undefined;
    const prepared = this.prepared.get(op.statement);
    if (!prepared) throw new Error("A statement that is not one of this store's was run.");
    const { statement } = prepared;
    this.cache.written(prepared.writes);
    if (op.kind === 'get') return statement.get(...op.params);
    if (op.kind === 'all') return statement.all(...op.params);
    // A statement read by column is read only so: plucking is its prepared state from now on.
    if (op.kind === 'column') return statement.pluck(true).all(...op.params);
    return statement.run(...op.params).changes;
  }

  private commitGroup(): void {
    const waiting = this.group ?? [];
    this.group = undefined;
    if (!this.db.open)
      return void waiting.forEach((step) => {
        step.reject(new Error('The store was closed before the write was committed.'));
      });
    try {
      this.db.exec('COMMIT');
    } catch (error) {
      this.cache.clear();
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const step of waiting) step.reject(error);
      return;
    }
    const resolveAll = () => {
      for (const step of waiting) step.resolve();
    };
    if (!this.flusher) {
      resolveAll();
      return;
    }
    this.flusher.flush().then(resolveAll, (error: unknown) => {
      for (const step of waiting) step.reject(error);
    });
  }
}

function migrate(db: Database.Database): void {
  db.exec(createMigrationsTable);
  const applied = new Set(
    db
      .prepare<[], { version: number }>('SELECT version FROM schema_migrations')
      .all()
      .map((r) => r.version),
  );
  for (const migration of migrations) {
    if (applied.has(migration.version)) continue;
    db.transaction(() => {
      for (const statement of statementsOf(migration, sqliteDialect)) db.exec(statement);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(migration.version, migration.name, new Date().toISOString());
    })();
  }
}

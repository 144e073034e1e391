import type { AnyStatement, Op } from '../sql/step.js';
import type { ListPage } from '../types.js';

/** The table a statement writes (`INSERT INTO t`, `UPDATE t`, `DELETE FROM t`), if it writes one. */
export function tableWritten(sql: string): string | undefined {
  return /^\s*(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM)\s+(\w+)/i.exec(sql)?.[1]?.toLowerCase();
}

/** The table a single-table read selects from. */
function tableRead(sql: string): string {
  const table = /\bFROM\s+(\w+)/i.exec(sql)?.[1];
  if (!table || /\bJOIN\b/i.test(sql)) throw new Error(`not a read of one table: ${sql}`);
  return table.toLowerCase();
}

/** Reads are kept; writes and locks never are. */
const kept = (op: Op) => op.kind === 'get' || op.kind === 'all';
/** An answer is kept by its kind and its parameters (joined by hand: most reads have one or two). */
function keyOf(op: Op): string {
  const { params } = op;
  let key = op.kind;
  for (let i = 0; i < params.length; i++) key += `\u0000${params[i] ?? ''}`;
  return key;
}

/** What is kept for a read that found no row (a kept `undefined` is told from nothing kept by one lookup). */
const NO_ROW = Symbol('no row');

/** Most rows kept per table; past it the table's rows start over (unknown ids cannot fill the memory). */
const MAX_ROWS = 10_000;
/** Most bytes of derived values (whole lists, pages) kept in all; a larger one is read every time. */
const MAX_DERIVED_BYTES = 64 * 1024 * 1024;

/**
 * The rows of some reads (one row, or all of them), kept in memory until their table is written. Only for a store
 * that is its database's one writer (the SQLite file has one server process): every write of
 * the table goes through `written`, and a failed step or commit clears everything, since its
 * reads may have seen writes that were undone. Reading a charge was the largest part of
 * answering `GET /charge/{id}` that was ours rather than HTTP's.
 */
export class ReadCache {
  private readonly tables = new Map<AnyStatement, string>();
  private readonly rows = new Map<string, Map<string, unknown>>();
  /** Values made from many rows of a table (a company's whole client list, a page of it: JSON bytes and where the list goes on), by table. */
  private readonly derived = new Map<string, Map<string, ListPage>>();
  private derivedBytes = 0;
  /** Writes of each table so far: a value made before a write must not be kept after it. */
  private readonly versions = new Map<string, number>();

  constructor(cached: Iterable<AnyStatement>) {
    for (const statement of cached) this.tables.set(statement, tableRead(statement.sql));
  }

  /** Whether the op's answer is kept, and the answer (its row, undefined for "no such row", or its rows). */
  lookup(op: Op): { row: unknown } | undefined {
    const table = this.tables.get(op.statement);
    if (table === undefined || !kept(op)) return undefined;
    const row = this.rows.get(table)?.get(keyOf(op));
    return row === undefined ? undefined : { row: row === NO_ROW ? undefined : row };
  }

  keep(op: Op, row: unknown): void {
    const table = this.tables.get(op.statement);
    if (table === undefined || !kept(op)) return;
    let rows = this.rows.get(table);
    if (!rows || rows.size >= MAX_ROWS) {
      rows = new Map();
      this.rows.set(table, rows);
    }
    rows.set(keyOf(op), row === undefined ? NO_ROW : row);
  }

  /** A write of `table` ran: its rows are read again. */
  written(table: string | undefined): void {
    if (table === undefined) return;
    this.rows.delete(table);
    this.versions.set(table, this.version(table) + 1);
    const values = this.derived.get(table);
    if (values) for (const value of values.values()) this.derivedBytes -= value.json.length;
    this.derived.delete(table);
  }

  /** How many writes of `table` ran so far (to tell whether a value made meanwhile is still true). */
  version(table: string): number {
    return this.versions.get(table) ?? 0;
  }

  /** A value made from `table`'s rows, if kept. */
  lookupDerived(table: string, key: string): ListPage | undefined {
    return this.derived.get(table)?.get(key);
  }

  /** Keeps a value made from `table`'s rows when no write of the table ran since `version`. */
  keepDerived(table: string, key: string, value: ListPage, version: number): void {
    if (version !== this.version(table) || value.json.length + this.derivedBytes > MAX_DERIVED_BYTES) return;
    let values = this.derived.get(table);
    if (!values) {
      values = new Map();
      this.derived.set(table, values);
    }
    this.derivedBytes += value.json.length - (values.get(key)?.json.length ?? 0);
    values.set(key, value);
  }

  clear(): void {
    this.rows.clear();
    for (const table of this.derived.keys()) this.versions.set(table, this.version(table) + 1);
    this.derived.clear();
    this.derivedBytes = 0;
  }
}

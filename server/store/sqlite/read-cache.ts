import type { AnyStatement, Op } from '../sql/step.js';

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

/** Most rows kept per table; past it the table's rows start over (unknown ids cannot fill the memory). */
const MAX_ROWS = 10_000;

/**
 * The rows of some point reads, kept in memory until their table is written. Only for a store
 * that is its database's one writer (the SQLite file has one server process): every write of
 * the table goes through `written`, and a failed step or commit clears everything, since its
 * reads may have seen writes that were undone. Reading a charge was the largest part of
 * answering `GET /charge/{id}` that was ours rather than HTTP's.
 */
export class ReadCache {
  private readonly tables = new Map<AnyStatement, string>();
  private readonly rows = new Map<string, Map<string, unknown>>();

  constructor(cached: Iterable<AnyStatement>) {
    for (const statement of cached) this.tables.set(statement, tableRead(statement.sql));
  }

  /** Whether the op's row is kept, and the row (undefined for "no such row"). */
  lookup(op: Op): { row: unknown } | undefined {
    const table = this.tables.get(op.statement);
    if (op.kind !== 'get' || table === undefined) return undefined;
    const rows = this.rows.get(table);
    const key = op.params.join('\u0000');
    return rows?.has(key) ? { row: rows.get(key) } : undefined;
  }

  keep(op: Op, row: unknown): void {
    const table = this.tables.get(op.statement);
    if (op.kind !== 'get' || table === undefined) return;
    let rows = this.rows.get(table);
    if (!rows || rows.size >= MAX_ROWS) {
      rows = new Map();
      this.rows.set(table, rows);
    }
    rows.set(op.params.join('\u0000'), row);
  }

  /** A write of `table` ran: its rows are read again. */
  written(table: string | undefined): void {
    if (table !== undefined) this.rows.delete(table);
  }

  clear(): void {
    this.rows.clear();
  }
}

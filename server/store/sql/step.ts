/**
 * A store step written once for both engines: a generator that yields the statements to run and
 * receives their results. Each engine drives it its own way: SQLite synchronously, inside its
 * group transaction (better-sqlite3 cannot await, and a savepoint must not span other requests'
 * steps); PostgreSQL awaiting each statement on a connection or in a transaction.
 */

/** A value bound to a parameter: both drivers take these as they are. */
export type Param = string | number | null;

/**
 * A statement in its engine's syntax, typed by its parameters `P` and the rows `R` it returns.
 * `R` is never for statements that return no rows.
 */
export interface Statement<P extends readonly Param[], R> {
  readonly sql: string;
  /** Carries the types only; never set. */
  readonly types?: { params: P; row: R };
}

export type AnyStatement = Statement<readonly Param[], unknown>;

/**
 * What a step asks of its engine: one row (or undefined), every row, the first column of every
 * row, the number of rows a write changed, or a row lock that only an engine with row locks takes
 * (SQLite's write steps already hold the whole database).
 */
export interface Op {
  kind: 'get' | 'all' | 'column' | 'run' | 'lock';
  statement: AnyStatement;
  params: readonly Param[];
}

export type Step<T> = Generator<Op, T, unknown>;

// The engines answer each op with what its kind says, for the rows the statement is typed with:
// these helpers are the one place that trusts it.

export function* get<P extends readonly Param[], R>(statement: Statement<P, R>, ...params: P): Step<R | undefined> {
  return (yield { kind: 'get', statement, params }) as R | undefined;
}

export function* all<P extends readonly Param[], R>(statement: Statement<P, R>, ...params: P): Step<R[]> {
  return (yield { kind: 'all', statement, params }) as R[];
}

/** The first column of every row (of a statement that selects one). */
export function* column<P extends readonly Param[], R>(statement: Statement<P, R>, ...params: P): Step<Array<R[keyof R]>> {
  return (yield { kind: 'column', statement, params }) as Array<R[keyof R]>;
}

/** Runs a write; returns how many rows it changed. */
export function* run<P extends readonly Param[]>(statement: Statement<P, never>, ...params: P): Step<number> {
  return (yield { kind: 'run', statement, params }) as number;
}

export function* lock<P extends readonly Param[]>(statement: Statement<P, unknown>, ...params: P): Step<void> {
  yield { kind: 'lock', statement, params };
}

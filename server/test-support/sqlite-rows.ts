import type Database from 'better-sqlite3';

/**
 * Every row of every table of a SQLite file, by table, each with `_key`: its rowid, or in a table
 * without one (the clients, migration 7) its primary key's columns joined by spaces. Tables and
 * rows in a fixed order (by name, by key).
 */
export function everyRow(db: Database.Database): Array<{ table: string; rows: Array<Record<string, unknown> & { _key: string }> }> {
  const tables = db
    .prepare<[], { name: string; sql: string }>(`SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`)
    .all();
  return tables.map(({ name, sql }) => {
    const key = /WITHOUT ROWID\s*$/i.test(sql)
      ? db
          .prepare<[string], { name: string }>('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk')
          .all(name)
          .map((column) => `"${column.name}"`)
          .join(" || ' ' || ")
      : 'rowid';
    const rows = db.prepare(`SELECT CAST(${key} AS TEXT) AS _key, * FROM "${name}" ORDER BY ${key}`).all() as Array<Record<string, unknown> & { _key: string }>;
    return { table: name, rows };
  });
}

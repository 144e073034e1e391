import { mkdirSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * The database file's own name: every symbolic link on the way resolved (of its folder, when the
 * file does not exist yet), so that one file has one lock, however its path is spelled. SQLite
 * names the WAL beside the file it resolved to, as this does.
 */
export function canonicalDatabasePath(databasePath: string): string {
  try {
    return realpathSync(databasePath);
  } catch {
    try {
      return join(realpathSync(dirname(databasePath)), basename(databasePath));
    } catch {
      return databasePath;
    }
  }
}

/** The file beside a SQLite database (its canonical name) whose lock says which process writes the database. */
export function writerLockPath(databasePath: string): string {
  return `${canonicalDatabasePath(databasePath)}-lock`;
}

/**
 * How many names (hard links) the database file has; 1 for a file not made yet. A second name
 * is a second database to SQLite: it keeps the WAL and the lock by name, so a server on the
 * other name reads the file without the first one's WAL (an empty database, to it).
 */
export function databaseLinks(databasePath: string): number {
  try {
    return statSync(databasePath).nlink;
  } catch {
    return 1;
  }
}

/** Why no server may write a database file with more than one name, or undefined when it has one. */
export function hardLinkRefusal(databasePath: string): string | undefined {
  const links = databaseLinks(databasePath);
  if (links <= 1) return undefined;
  return (
    `The SQLite file ${databasePath} has ${links} names (hard links). SQLite keeps its WAL and its lock by name, so a server on ` +
    'one name would not see what was written through another and the file would be damaged: remove the other names ' +
    '(or copy the file: cp --no-preserve=links) and give DATABASE_PATH the one that is left.'
  );
}

export interface WriterLock {
  readonly path: string;
  release(): void;
}

/**
 * Takes the writer lock of a SQLite file: an exclusive lock on a small SQLite database beside it
 * (`<file>-lock`, beside the file its path resolves to), opened in `locking_mode = EXCLUSIVE` and written once, so that SQLite holds the
 * operating system's lock on it until the connection closes or the process ends in any way (a
 * crash, `SIGKILL`): the lock is the OS's, not the file's existence, so a dead server leaves none
 * behind. Undefined when another process holds it (at once: no waiting), or when the file has
 * more than one name.
 *
 * The server holds it for its life: it keeps what it reads in memory (`ReadCache`), which is only
 * true while it is the file's one writer. The keys command takes it only to reset a company.
 */
export function takeWriterLock(databasePath: string): WriterLock | undefined {
  // By the file's identity, not its spelling: a symbolic link leads to the same lock, and a file
  // with a second name (a hard link) is never written at all (`hardLinkRefusal`).
  if (hardLinkRefusal(databasePath) !== undefined) return undefined;
  const path = writerLockPath(databasePath);
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS writer (pid INTEGER NOT NULL, since TEXT NOT NULL)');
    db.exec('DELETE FROM writer');
    db.prepare('INSERT INTO writer (pid, since) VALUES (?, ?)').run(process.pid, new Date().toISOString());
    db.exec('COMMIT');
  } catch (error) {
    db.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return undefined;
    throw error;
  }
  return {
    path,
    release: () => {
      if (db.open) db.close();
    },
  };
}

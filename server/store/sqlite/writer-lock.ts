import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** The file beside a SQLite database whose lock says which process writes the database. */
export function writerLockPath(databasePath: string): string {
  return `${databasePath}-lock`;
}

export interface WriterLock {
  readonly path: string;
  release(): void;
}

/**
 * Takes the writer lock of a SQLite file: an exclusive lock on a small SQLite database beside it
 * (`<file>-lock`), opened in `locking_mode = EXCLUSIVE` and written once, so that SQLite holds the
 * operating system's lock on it until the connection closes or the process ends in any way (a
 * crash, `SIGKILL`): the lock is the OS's, not the file's existence, so a dead server leaves none
 * behind. Undefined when another process holds it (at once: no waiting).
 *
 * The server holds it for its life: it keeps what it reads in memory (`ReadCache`), which is only
 * true while it is the file's one writer. The keys command takes it only to reset a company.
 */
export function takeWriterLock(databasePath: string): WriterLock | undefined {
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

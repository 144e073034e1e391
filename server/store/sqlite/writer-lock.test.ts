/**
 * The writer lock goes by the file, not by how its path is spelled (issue 34): a symbolic link
 * to the file (or to its folder) finds the lock held; a file with a second name (a hard link) is
 * not written by anyone, since SQLite keeps its WAL by name.
 */
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { canonicalDatabasePath, hardLinkRefusal, takeWriterLock, writerLockPath, type WriterLock } from './writer-lock.js';

let folder: string;
const held: WriterLock[] = [];

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'pix-writer-lock-'));
});

afterEach(() => {
  for (const lock of held.splice(0)) lock.release();
  rmSync(folder, { recursive: true, force: true });
});

function take(path: string): WriterLock | undefined {
  const lock = takeWriterLock(path);
  if (lock) held.push(lock);
  return lock;
}

describe('the writer lock of a SQLite file', () => {
  test('a second taker on the same path finds it held; released, it can be taken again', () => {
    const path = join(folder, 'payments.db');
    const first = take(path);
    expect(first).toBeDefined();
    expect(take(path)).toBeUndefined();
    first?.release();
    expect(take(path)).toBeDefined();
  });

  test('a symbolic link to the file finds the lock of the file', () => {
    const path = join(folder, 'payments.db');
    writeFileSync(path, '');
    const link = join(folder, 'other-name.db');
    symlinkSync(path, link);
    expect(take(path)).toBeDefined();
    expect(take(link)).toBeUndefined();
    expect(writerLockPath(link)).toBe(writerLockPath(path));
  });

  test('a symbolic link to the folder, before the file exists, finds the same lock', () => {
    const real = join(folder, 'data');
    mkdirSync(real);
    const linkedFolder = join(folder, 'linked');
    symlinkSync(real, linkedFolder);
    expect(take(join(real, 'payments.db'))).toBeDefined();
    expect(take(join(linkedFolder, 'payments.db'))).toBeUndefined();
    expect(canonicalDatabasePath(join(linkedFolder, 'payments.db'))).toBe(canonicalDatabasePath(join(real, 'payments.db')));
  });

  test('a file with a hard link is refused under both names, saying why', () => {
    const path = join(folder, 'payments.db');
    writeFileSync(path, '');
    expect(hardLinkRefusal(path)).toBeUndefined();
    const link = join(folder, 'hard.db');
    linkSync(path, link);
    expect(take(link)).toBeUndefined();
    expect(take(path)).toBeUndefined();
    expect(hardLinkRefusal(link)).toMatch(/^The SQLite file .*hard\.db has 2 names \(hard links\)\. .*remove the other names/);
    rmSync(link);
    expect(take(path)).toBeDefined();
  });
});

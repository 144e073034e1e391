import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { WalFlusher } from './wal-flush.js';

const folder = mkdtempSync(join(tmpdir(), 'wal-flush-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

test('flushes settle in order, one fsync at a time, and nothing is pending after them', async () => {
  const path = join(folder, 'a.db-wal');
  writeFileSync(path, 'frames');
  const flusher = new WalFlusher(path);
  const settled: number[] = [];
  const flushes = [0, 1, 2, 3].map((n) => flusher.flush().then(() => settled.push(n)));
  expect(flusher.pending).toBeDefined();
  await Promise.all(flushes);
  // The first runs alone; the three made while it ran share the next one.
  expect(settled).toEqual([0, 1, 2, 3]);
  expect(flusher.pending).toBeUndefined();
  await flusher.close();
});

test('a WAL file that cannot be opened fails the commits that wait for it', async () => {
  const flusher = new WalFlusher(join(folder, 'missing', 'b.db-wal'));
  await expect(flusher.flush()).rejects.toThrow(/ENOENT/);
  expect(flusher.pending).toBeUndefined();
  await flusher.close();
});

/**
 * The server's log destination (server/log-destination.ts): lines arrive in order, in bursts; a
 * destination whose reader is gone (a broken pipe) is given up, never retried or waited on, so
 * that a stop is never held up by its log (issue 39).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { LogDestination } from './log-destination.js';

const folder = mkdtempSync(join(tmpdir(), 'pix-log-destination-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Named pipes (FIFOs) stand for a log reader that went away. */
const haveMkfifo = spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).status === 0;

const line = (n: number) => `{"n":${n},"msg":"${'x'.repeat(100)}"}\n`;

describe('the log destination', () => {
  test('writes every line, in order, once drained (and at once with flushSync)', async () => {
    const file = join(folder, 'lines.log');
    const fd = openSync(file, 'w');
    try {
      const destination = new LogDestination({ fd, minLength: 4_096, flushMs: 60_000 });
      for (let n = 0; n < 100; n++) destination.write(line(n));
      await destination.drained();
      destination.write(line(100));
      destination.flushSync();
      expect(readFileSync(file, 'utf8')).toBe(Array.from({ length: 101 }, (_, n) => line(n)).join(''));
      expect(destination.broken).toBe(false);
    } finally {
      closeSync(fd);
    }
  });

  test.skipIf(!haveMkfifo)('gives a broken pipe up: later lines are dropped, nothing is waited on', async () => {
    const fifo = join(folder, 'pipe');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    closeSync(reader);
    try {
      const destination = new LogDestination({ fd: writer, minLength: 4_096, flushMs: 60_000 });
      for (let n = 0; n < 50; n++) destination.write(line(n));
      await destination.drained();
      expect(destination.broken).toBe(true);
      // What comes after is dropped, and the flush at exit returns at once.
      destination.write(line(50));
      destination.flushSync();
      await destination.drained();
      const flushed = new Promise<void>((resolve) => destination.flush(resolve));
      await flushed;
      expect(destination.broken).toBe(true);
    } finally {
      closeSync(writer);
    }
  });

  test.skipIf(!haveMkfifo)('flushSync gives a broken pipe up instead of retrying it', () => {
    const fifo = join(folder, 'pipe-sync');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
    closeSync(reader);
    try {
      const destination = new LogDestination({ fd: writer, minLength: 4_096, flushMs: 60_000 });
      destination.write(line(0));
      destination.flushSync();
      expect(destination.broken).toBe(true);
    } finally {
      closeSync(writer);
    }
  });
});

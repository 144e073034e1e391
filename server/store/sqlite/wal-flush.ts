import { close, fdatasync, open } from 'node:fs';
import { promisify } from 'node:util';

const openFile = promisify(open);
const syncData = promisify(fdatasync);
const closeFile = promisify(close);

/**
 * Puts a SQLite file's committed WAL frames on disk, off the event loop. With
 * `synchronous = NORMAL` a WAL commit writes its frames without an fsync; the store then
 * acknowledges the commit only once `flush()` has fsynced the WAL file (through libuv's thread
 * pool, on a descriptor of its own: Linux flushes a file's pages whichever descriptor wrote
 * them), with fdatasync, as SQLite itself does on Linux. That is what `synchronous = FULL`
 * does, except that the event loop goes on serving
 * other requests during the fsync instead of waiting for the disk; the fsync was a third of
 * the time of creating a charge.
 *
 * One fsync at a time: commits made while one runs wait for the next, which covers them all.
 */
export class WalFlusher {
  private descriptor: Promise<number> | undefined;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;
  /** Settles once every commit made so far is on disk; undefined when nothing waits for the disk. */
  pending: Promise<void> | undefined;

  constructor(private readonly walPath: string) {}

  /** Resolves once everything committed before the call is on disk. */
  flush(): Promise<void> {
    let flushed: Promise<void>;
    if (!this.running) flushed = this.start();
    else {
      // The running fsync may have begun before this commit: the next one covers it.
      this.queued ??= this.running
        .catch(() => undefined)
        .then(() => {
          this.queued = undefined;
          return this.start();
        });
      flushed = this.queued;
    }
    this.pending = flushed;
    const clear = () => {
      if (this.pending === flushed) this.pending = undefined;
    };
    flushed.then(clear, clear);
    return flushed;
  }

  private start(): Promise<void> {
    const run = (async () => {
      this.descriptor ??= openFile(this.walPath, 'r+');
      const descriptor = this.descriptor;
      // A failed open is tried again by the next flush.
      descriptor.catch(() => {
        if (this.descriptor === descriptor) this.descriptor = undefined;
      });
      await syncData(await descriptor);
    })();
    this.running = run;
    const done = () => {
      if (this.running === run) this.running = undefined;
    };
    run.then(done, done);
    return run;
  }

  /** Waits for the fsyncs under way, then closes the descriptor. */
  async close(): Promise<void> {
    await Promise.allSettled([this.queued, this.running]);
    const descriptor = await this.descriptor?.catch(() => undefined);
    this.descriptor = undefined;
    if (descriptor !== undefined) await closeFile(descriptor).catch(() => undefined);
  }
}

import { write, writeSync } from 'node:fs';
import type { LineDestination } from './http/access-log.js';

/** How long a write that the pipe refuses for now (EAGAIN, a full pipe) waits before it is tried again. */
const RETRY_MS = 10;
/** How long the flush at exit may wait for a full pipe before what is held is dropped. */
const EXIT_FLUSH_MS = 500;

/**
 * Where the server's log lines go: a file descriptor (stdout), written in bursts. Lines are held
 * until `minLength` characters have gathered or `flushMs` have passed, then written with one
 * asynchronous call; what is held when the process exits is written then, synchronously.
 *
 * A destination that cannot be written (a broken pipe: the reader of `npm start | tee` gone on
 * Ctrl-C, a log collector that died) is given up at its first failed write: later lines are
 * dropped, never retried or waited on, so that the server still stops (issue 39). pino's own
 * destination retried a broken pipe at exit forever (sonic-boom's flushSync sleeps and tries
 * again on any error), and a server whose log reader was gone never ended.
 */
export class LogDestination implements LineDestination {
  readonly #fd: number;
  readonly #minLength: number;
  /** Lines not handed to a write yet. */
  #held = '';
  /** The rest of the chunk a write is under way for, if one is. */
  #writing: Buffer | undefined;
  #broken = false;
  #drained: Array<() => void> = [];

  constructor(options: { fd: number; minLength: number; flushMs: number }) {
    this.#fd = options.fd;
    this.#minLength = options.minLength;
    // Neither the timer nor the exit keeps a destination alive (tests make many loggers).
    const self = new WeakRef<LogDestination>(this);
    const timer = setInterval(() => {
      const destination = self.deref();
      if (destination === undefined) clearInterval(timer);
      else destination.flush();
    }, options.flushMs).unref();
    if (atExit.size === 0) process.on('exit', flushAllSync);
    atExit.add(self);
  }

  /** Whether a write failed: the destination is given up and lines are dropped. */
  get broken(): boolean {
    return this.#broken;
  }

  write(line: string): boolean {
    if (this.#broken) return true;
    this.#held += line;
    if (this.#held.length >= this.#minLength) this.#start();
    return true;
  }

  /**
   * Starts writing what is held (unless a write is under way: what is held follows it); `done`
   * (as pino's `logger.flush(done)` passes) is called once all of it is out or given up.
   */
  flush(done?: () => void): void {
    this.#start();
    if (done !== undefined) void this.drained().then(done);
  }

  #start(): void {
    if (this.#broken || this.#writing !== undefined || this.#held === '') return;
    const chunk = Buffer.from(this.#held);
    this.#held = '';
    this.#send(chunk);
  }

  /** Resolves once nothing is held or being written (at once when the destination is given up). */
  drained(): Promise<void> {
    this.#start();
    if (this.#idle()) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  /** Gives the destination up: what is held is dropped, and so is every later line. */
  drop(): void {
    this.#broken = true;
    this.#held = '';
    this.#writing = undefined;
    this.#settle();
  }

  /**
   * Writes what is held, synchronously (at exit, with no event loop left). A chunk whose
   * asynchronous write is under way is left to it. A full pipe is waited on for a bounded time; a
   * broken one gives the destination up.
   */
  flushSync(): void {
    if (this.#broken || this.#held === '') return;
    let chunk = Buffer.from(this.#held);
    this.#held = '';
    const deadline = Date.now() + EXIT_FLUSH_MS;
    while (chunk.length > 0) {
      try {
        chunk = chunk.subarray(writeSync(this.#fd, chunk));
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) {
          this.drop();
          return;
        }
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, RETRY_MS);
      }
    }
  }

  #send(chunk: Buffer): void {
    this.#writing = chunk;
    write(this.#fd, chunk, 0, chunk.length, null, (error, written) => {
      if (this.#writing !== chunk) return; // dropped meanwhile
      if (error) {
        if (isBusy(error)) setTimeout(() => this.#writing === chunk && this.#send(chunk), RETRY_MS);
        else this.drop();
        return;
      }
      const rest = chunk.subarray(written);
      if (rest.length > 0) {
        this.#send(rest);
        return;
      }
      this.#writing = undefined;
      if (this.#held.length >= this.#minLength || (this.#held !== '' && this.#drained.length > 0)) this.#start();
      else this.#settle();
    });
  }

  #idle(): boolean {
    return this.#broken || (this.#writing === undefined && this.#held === '');
  }

  #settle(): void {
    if (!this.#idle()) return;
    const waiting = this.#drained;
    this.#drained = [];
    for (const resolve of waiting) resolve();
  }
}

/** Every destination made, flushed when the process exits. */
const atExit = new Set<WeakRef<LogDestination>>();

function flushAllSync(): void {
  for (const destination of atExit) destination.deref()?.flushSync();
}

function isBusy(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EAGAIN' || code === 'EBUSY';
}

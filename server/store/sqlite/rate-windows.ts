/**
 * Rate-limit counters (D11) kept in memory, one per counted key (a company, or `@` and a client
 * address), each with its current window and the requests counted in it. At most `cap`
 * counters are kept: past it, the counter used least recently goes, one for each new one, never
 * all at once. A counter still counting (a caller over its quota, asking again) is the most
 * recently used, so it would take `cap` other callers between two of its requests to forget it;
 * a flood of fresh addresses forgets only the addresses that stopped asking.
 */
export class RateWindows {
  /** In order of last use, least recent first (a Map keeps insertion order; a use re-inserts). */
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly cap = 100_000) {
    if (!Number.isInteger(cap) || cap < 1) throw new RangeError(`RateWindows cap must be a positive integer, not ${cap}`);
  }

  /** Counts one request of `key` in the window starting at `windowStart`; the window's count. */
  count(key: string, windowStart: number): number {
    let window = this.windows.get(key);
    if (window) this.windows.delete(key);
    if (!window || window.start !== windowStart) window = { start: windowStart, count: 0 };
    window.count += 1;
    this.windows.set(key, window);
    if (this.windows.size > this.cap) {
      const oldest = this.windows.keys().next();
      if (!oldest.done) this.windows.delete(oldest.value);
    }
    return window.count;
  }

  /** How many counters are kept. */
  get size(): number {
    return this.windows.size;
  }
}

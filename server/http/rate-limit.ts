import { ProblemError } from './problems.js';

/**
 * A fixed-window quota per API key (D11), kept in this process's memory: each window of
 * `windowSeconds` admits `limit` requests per key. Exceeding it is a 429 problem with
 * `Retry-After` and the IETF RateLimit fields, so a client knows exactly when to retry.
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
  ) {}

  /** Counts one request of `key` at `nowMs`; throws the 429 problem when over the quota. */
  take(key: string, nowMs: number): void {
    if (this.limit === 0) return;
    const windowMs = this.windowSeconds * 1000;
    const start = nowMs - (nowMs % windowMs);
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (this.windows.size > 100_000) this.windows.clear();
      window = { start, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    if (window.count <= this.limit) return;
    const reset = Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000));
    throw new ProblemError(
      'rateLimited',
      `This API key made more than ${this.limit} requests in ${this.windowSeconds} second${this.windowSeconds === 1 ? '' : 's'}; retry after ${reset} second${reset === 1 ? '' : 's'}.`,
      {
        headers: {
          'Retry-After': String(reset),
          RateLimit: `"default";r=0;t=${reset}`,
          'RateLimit-Policy': `"default";q=${this.limit};w=${this.windowSeconds}`,
        },
      },
    );
  }
}

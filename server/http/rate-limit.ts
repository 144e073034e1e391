import { ProblemError } from './problems.js';

/** Counts one request of a key in the window starting at `windowStart` and returns the window's count (`Store.countRequest`). */
export type RequestCounter = (key: string, windowStart: number) => Promise<number>;

/**
 * A fixed-window quota per API key (D11): each window of `windowSeconds` admits `limit`
 * requests per key, counted by the store, so that every instance on one database shares it.
 * Exceeding it is a 429 problem with `Retry-After` and the IETF RateLimit fields, so a client
 * knows exactly when to retry.
 */
export class RateLimiter {
  constructor(
    private readonly limit: number,
    private readonly windowSeconds: number,
    private readonly count: RequestCounter,
  ) {}

  /** Counts one request of `key` at `nowMs`; throws the 429 problem when over the quota. */
  async take(key: string, nowMs: number): Promise<void> {
    if (this.limit === 0) return;
    const windowMs = this.windowSeconds * 1000;
    const start = nowMs - (nowMs % windowMs);
    if ((await this.count(key, start)) <= this.limit) return;
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

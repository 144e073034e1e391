// The part of autocannon 8's programmatic API that the benchmark uses (the package ships no types
// and @types/autocannon is not installed).
declare module 'autocannon' {
  namespace autocannon {
    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    interface Request extends RequestParams {
      /** Called before each request is sent on a connection; returns what to send. */
      setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams;
    }

    interface Options {
      /** Where every request goes, path included: a top-level `path` option is ignored. */
      url: string;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      connections?: number;
      /** Seconds. */
      duration?: number;
      /** Requests to send before the run ends; takes precedence over `duration`. */
      amount?: number;
      /** Requests per second over all connections (spread over them in whole numbers). */
      overallRate?: number;
      /** Milliseconds between samples (1000 by default); a run ends on a sample, so this is also how late it may end. */
      sampleInt?: number;
      /** Seconds a request may take before it counts as a timeout. */
      timeout?: number;
      requests?: Request[];
      /** A run before the measured one, whose figures end up in `Result.warmup`. */
      warmup?: { connections?: number; duration?: number };
    }

    /** Percentiles of a histogram (`p50`, `p99`, ...), plus the usual summary figures. */
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p99: number;
    }

    interface Result {
      url: string;
      duration: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      '2xx': number;
      statusCodeStats: Record<string, { count: number }>;
      /** Milliseconds. */
      latency: Histogram;
      /** Requests per second, sampled every second. */
      requests: Histogram & { sent: number };
      throughput: Histogram;
      warmup?: Result;
    }
  }

  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;

  export default autocannon;
}

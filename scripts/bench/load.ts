/**
 * One load run with autocannon: either at full speed (a fixed number of connections for a fixed
 * time: the warm-up, which finds a target's maximum req/s) or at a fixed offered rate for a fixed
 * number of requests (the measured run, whose CPU the bench reads from the target's /proc).
 * A run where anything but a 2xx came back, or a socket failed, is a harness error: a benchmark
 * of error answers measures nothing.
 */
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';
import { HarnessError } from './harness-error.js';

/** What one scenario sends to one target. */
export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Send a new `Idempotency-Key` with every request, so that each one creates a record. */
  freshIdempotencyKey?: boolean;
}

export interface LoadOptions {
  connections: number;
  /** Seconds: of the run at full speed, or, with `rate`, the run's requests are `rate` × this. */
  duration: number;
  /**
   * Requests per second offered over all connections (a whole number, see `fixedRate`); absent:
   * as fast as the target answers.
   */
  rate?: number;
}

/** How many requests a fixed-rate run sends: its rate for its duration (rounded, at least one). */
export function fixedRateRequests(options: LoadOptions & { rate: number }): number {
  return Math.max(1, Math.round(options.rate * options.duration));
}

export interface LoadFigures {
  /** Average requests per second over the run. */
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  /** Answers counted in the measured run. */
  requests: number;
}

function withFreshKey(headers: Record<string, string>): Record<string, string> {
  return { ...headers, 'Idempotency-Key': randomUUID() };
}

/** One answer to the same request, fetched on its own, to show what went wrong. */
export async function sampleAnswer(baseUrl: string, request: LoadRequest): Promise<string> {
  try {
    const response = await fetch(`${baseUrl}${request.path}`, {
      method: request.method,
      headers: request.freshIdempotencyKey ? withFreshKey(request.headers) : request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
    const text = await response.text();
    return `${response.status} ${text.length > 1_500 ? `${text.slice(0, 1_500)}...` : text}`;
  } catch (error) {
    return `no answer: ${(error as Error).message}`;
  }
}

function failures(result: autocannon.Result): string | undefined {
  if (result.non2xx === 0 && result.errors === 0 && result.timeouts === 0 && result['2xx'] > 0) return undefined;
  const statuses = Object.entries(result.statusCodeStats)
    .map(([status, { count }]) => `${status}: ${count}`)
    .join(', ');
  return `${result['2xx']} 2xx, ${result.non2xx} non-2xx (${statuses || 'no answers'}), ${result.errors} socket errors, ${result.timeouts} timeouts`;
}

/**
 * autocannon's options for `amount` requests at `rate` a second: a rate below the connections would
 * leave some idle (autocannon lowers them to the rate too), and it refuses more connections than
 * requests (a short --duration at a slow rate).
 */
function atFixedRate(connections: number, rate: number, amount: number): { connections: number; overallRate: number; amount: number } {
  return { connections: Math.min(connections, rate, amount), overallRate: rate, amount };
}

export async function runLoad(what: string, baseUrl: string, request: LoadRequest, options: LoadOptions): Promise<LoadFigures> {
  const { freshIdempotencyKey, path, ...params } = request;
  const { rate } = options;
  const result = await autocannon({
    // autocannon takes the path from the URL (a `path` option only applies inside `requests`).
    url: `${baseUrl}${path}`,
    ...(rate === undefined
      ? { connections: options.connections, duration: options.duration }
      : atFixedRate(options.connections, rate, fixedRateRequests({ ...options, rate }))),
    // A run ends at the first sample after its time or its requests: every 100 ms rather than every
    // second, so a run lasts what it was asked to, not up to a second more (--duration 0.5).
    sampleInt: 100,
    ...params,
    ...(freshIdempotencyKey ? { requests: [{ setupRequest: (sent) => ({ ...sent, headers: withFreshKey(sent.headers ?? {}) }) }] } : {}),
  });
  const problem = failures(result);
  if (problem !== undefined) {
    throw new HarnessError(`${what}: ${problem} during the load run; one answer to the same request: ${await sampleAnswer(baseUrl, request)}`);
  }
  // Answers over the run's own time: autocannon samples req/s once a second, so its average is 0
  // for a run shorter than a second (--warmup 0.5).
  return {
    reqPerSec: result.duration > 0 ? result['2xx'] / result.duration : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result['2xx'],
  };
}

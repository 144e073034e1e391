/**
 * One load run with autocannon at a fixed number of connections for a fixed time, after a
 * warm-up at the same concurrency (JIT, caches, connection set-up are not measured).
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
  /** Seconds. */
  duration: number;
  /** Seconds of warm-up before the measured run; 0 for none. */
  warmup: number;
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
async function sampleAnswer(baseUrl: string, request: LoadRequest): Promise<string> {
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

export async function runLoad(what: string, baseUrl: string, request: LoadRequest, options: LoadOptions): Promise<LoadFigures> {
  const { freshIdempotencyKey, path, ...params } = request;
  const result = await autocannon({
    // autocannon takes the path from the URL (a `path` option only applies inside `requests`).
    url: `${baseUrl}${path}`,
    connections: options.connections,
    duration: options.duration,
    ...(options.warmup > 0 ? { warmup: { connections: options.connections, duration: options.warmup } } : {}),
    ...params,
    ...(freshIdempotencyKey ? { requests: [{ setupRequest: (sent) => ({ ...sent, headers: withFreshKey(sent.headers ?? {}) }) }] } : {}),
  });
  const problem = (result.warmup && failures(result.warmup)) ?? failures(result);
  if (problem !== undefined) {
    throw new HarnessError(`${what}: ${problem} during the load run; one answer to the same request: ${await sampleAnswer(baseUrl, request)}`);
  }
  return { reqPerSec: result.requests.average, p50Ms: result.latency.p50, p99Ms: result.latency.p99, requests: result['2xx'] };
}

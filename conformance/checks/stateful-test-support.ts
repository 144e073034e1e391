/**
 * Test support for the stateful checks (availability, idempotency, tenants): a run context on
 * the in-process reference server, optionally behind a hand-made broken wrapper, with the
 * fixtures a run creates (through that wrapper, as a real run would), and a reader of the
 * recorded results.
 */
import type { JsonObject } from '../../lib/contract/bundled.js';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach } from 'vitest';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { createFixtures } from '../data/fixtures.js';
import { RunContext } from '../engine/context.js';
import type { CheckName, CheckResult, ConformanceOptions, Profile } from '../engine/types.js';

/** Sends a request on to the reference app; a wrapper may change the request or the answer. */
export type Next = (request: Request) => Promise<Response>;
export type Wrapper = (request: Request, next: Next) => Promise<Response>;

export interface ContextOptions {
  profile?: Profile;
  stateless?: boolean;
  readOnly?: boolean;
  /** The second company's key by default; `null` for none. */
  secondApiKey?: string | null;
  wrap?: Wrapper;
  /** Create the run's fixtures with `createFixtures`, as runConformance does. Default true. */
  fixtures?: boolean;
  /** What runs before the fixtures are created, as runConformance runs the checks' `before` (a baseline of the lists). */
  before?: (ctx: RunContext) => Promise<void>;
  /** `--only` these operations. */
  only?: string[];
  /** Any other run options (the webhook receiver). */
  more?: Partial<ConformanceOptions>;
  /** Another contract than the bundled one (a copy with a link added …). */
  contract?: JsonObject;
}

export async function startServer(): Promise<TestServer> {
  return createTestServer();
}

/**
 * A fresh reference server for each test of the calling file, closed after it: the returned object
 * stands for the current test's server (reading it outside a test throws).
 */
export function serverPerTest(): TestServer {
  let current: TestServer | undefined;
  beforeEach(async () => {
    current = await startServer();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as TestServer, {
    get(_target, key) {
      if (!current) throw new Error('the server of serverPerTest() exists only inside a test');
      const value: unknown = Reflect.get(current, key);
      return typeof value === 'function' ? value.bind(current) : value;
    },
  });
}

export async function contextOn(server: TestServer, options: ContextOptions = {}): Promise<RunContext> {
  const next: Next = async (request) => server.app.fetch(request);
  const wrap = options.wrap ?? ((request, n) => n(request));
  const fetchFn = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => wrap(new Request(input, init), next)) as typeof fetch;
  const secondApiKey = options.secondApiKey === undefined ? server.other.apiKey : options.secondApiKey;
  const runOptions: ConformanceOptions = {
    baseUrl: 'http://ref.test',
    baseUrlAlt: 'http://ref-alt.test',
    apiKey: server.apiKey,
    ...(secondApiKey !== null ? { secondApiKey } : {}),
    profile: options.profile ?? 'seed',
    readOnly: options.readOnly ?? false,
    stateless: options.stateless ?? false,
    ...(options.only ? { only: options.only } : {}),
    runId: `conf${randomBytes(4).toString('hex')}`,
    timeoutMs: 5_000,
    ...options.more,
  };
  const ctx = new RunContext(runOptions, { fetch: fetchFn, ...(options.contract ? { contract: options.contract } : {}) });
  if (options.fixtures !== false && !runOptions.readOnly && !runOptions.stateless) {
    await options.before?.(ctx);
    await createFixtures(ctx);
  }
  return ctx;
}

/** The recorded result of one check on one operation. */
export function resultOf(ctx: RunContext, operationId: string, check: CheckName): CheckResult | undefined {
  return ctx.recorder.results([operationId]).find((r) => r.check === check);
}

/** The outcome of one check on one operation, and every finding's message (for failing assertions to show). */
export function verdict(ctx: RunContext, operationId: string, check: CheckName): { outcome: string; messages: string[]; skipReason?: string | undefined } {
  const result = resultOf(ctx, operationId, check);
  if (!result) return { outcome: 'none', messages: [] };
  return {
    outcome: result.outcome,
    messages: result.findings.map((f) => `${f.outcome}${f.decision ? ` (${f.decision})` : ''}: ${f.message}`),
    skipReason: result.skipReason,
  };
}

/** Whether a request is `METHOD` on a path matching `path`. */
export function is(request: Request, method: string, path: RegExp): boolean {
  return request.method === method && path.test(new URL(request.url).pathname);
}

/** The JSON in a text, or undefined when there is none (empty, or not JSON: left as it is). */
function parseJson(text: string): unknown {
  try {
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** A JSON answer rewritten by `edit` (headers kept, length dropped). */
export async function rewriteJson<T = unknown>(response: Response, edit: (json: T) => unknown, status = response.status): Promise<Response> {
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  const json = parseJson(text);
  const body = json === undefined ? text : JSON.stringify(edit(json as T));
  return new Response(body, { status, headers });
}

/** The answer with `edit` applied to its record, or to each record of its list. */
export function rewriteEachJson<T>(response: Response, edit: (record: T) => unknown): Promise<Response> {
  return rewriteJson<T | T[]>(response, (body) => (Array.isArray(body) ? body.map(edit) : edit(body)));
}

/** The same request with other headers or another body. */
export async function withRequest<T = unknown>(
  request: Request,
  change: { headers?: (headers: Headers) => void; body?: (json: T) => unknown },
): Promise<Request> {
  const headers = new Headers(request.headers);
  change.headers?.(headers);
  let body: string | undefined = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.text();
  const json = body === undefined ? undefined : parseJson(body);
  if (json !== undefined && change.body) {
    try {
      body = JSON.stringify(change.body(json as T));
    } catch (error) {
      // Nested deeper than a walk of the value can follow (bounded_input's megabyte of `[`): the
      // body goes on as it came, for the service behind to refuse.
      if (!(error instanceof RangeError)) throw error;
    }
  }
  return new Request(request.url, { method: request.method, headers, ...(body !== undefined ? { body } : {}) });
}

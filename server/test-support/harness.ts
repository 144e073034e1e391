import createClient, { type Middleware } from 'openapi-fetch';
import { isIPv6 } from 'node:net';
import pino from 'pino';
import type { paths } from '../../generated/openapi.js';
import { createApp } from '../app.js';
import { createCompanyWithKey, createDeps } from '../bootstrap.js';
import { loadConfig, type Config } from '../config.js';
import type { Deps } from '../deps.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { serverValidatorOptions } from '../validation.js';
import { ContractValidator } from '../../lib/contract/ajv.js';
import type { HostResolver } from '../webhooks/url-policy.js';
import { ResponseChecker } from './contract-check.js';
import { openTestStore, type TestStore } from './engines.js';

const checker = new ResponseChecker();

/**
 * One request validator for the test servers of a test file, as the server has one for its
 * life: compiling the contract's schemas is most of a new server's start, and a test file starts
 * one per test. Its validators are the contract's, whatever the server's store or config.
 */
let sharedValidator: ContractValidator | undefined;
function validatorOfTestServers(): ContractValidator {
  sharedValidator ??= new ContractValidator(undefined, serverValidatorOptions);
  return sharedValidator;
}

export interface TestServer {
  deps: Deps;
  app: ReturnType<typeof createApp>;
  /** Company A: its id, key and a typed client that sends its key. */
  companyId: string;
  apiKey: string;
  api: ReturnType<typeof typedClient>;
  /** Company B, for isolation tests. */
  other: { companyId: string; apiKey: string; api: ReturnType<typeof typedClient> };
  /**
   * A raw request through `app.request()`, for what the typed client cannot send
   * (broken JSON, wrong media types, missing keys). Its response is checked against the
   * contract too. `from` is the client's address, as the Node server's socket gives it
   * (without it, none: the request counts as from `unknown`).
   */
  request: (path: string, init?: RequestInit & { apiKey?: string | null; from?: string }) => Promise<Response>;
  /** Violations of the contract seen so far; tests assert it stays empty. */
  violations: string[];
  close: () => Promise<void>;
}

export interface TestServerOptions {
  config?: Partial<Config>;
  now?: () => Date;
  /** A SQLite file to use instead of the test run's engine (a fresh in-memory database or PostgreSQL schema). */
  databasePath?: string;
  /** Where webhook hosts are looked up; `tableResolver()` (no network) unless given. */
  resolveHost?: HostResolver;
  /** The request validator, instead of the server's own (one with validators made ahead of time). */
  validator?: ContractValidator;
}

/**
 * A resolver that answers from a table and never asks the network: `localhost` is loopback,
 * `example.com` and its subdomains (the names the tests register) are 93.184.216.34, a public
 * address that is judged and never connected to (no test delivers to these names), and
 * anything else does not resolve. `entries` add or replace names; a function answers per call.
 */
export function tableResolver(entries: Record<string, string[] | (() => string[])> = {}): HostResolver {
  return async (hostname) => {
    const name = hostname.toLowerCase().replace(/\.+$/, '');
    const entry = entries[name];
    const addresses =
      entry !== undefined
        ? typeof entry === 'function'
          ? entry()
          : entry
        : name === 'localhost'
          ? ['127.0.0.1', '::1']
          : name === 'example.com' || name.endsWith('.example.com')
            ? ['93.184.216.34']
            : [];
    if (addresses.length === 0) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
    return addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }));
  };
}

function sqliteFile(path: string): TestStore {
  const store = new SqliteStore(path);
  return { store, close: () => store.close() };
}

function typedClient(fetchFn: (request: Request) => Promise<Response>, apiKey: string, onViolations: Middleware) {
  const client = createClient<paths>({ baseUrl: 'http://localhost', fetch: fetchFn, headers: { 'X-API-KEY': apiKey } });
  client.use(onViolations);
  return client;
}

/** What @hono/node-server hands the app as its environment for a request from `address`: the request's socket (the third argument of `app.request`). */
export function socketEnv(address: string) {
  return { incoming: { socket: { remoteAddress: address, remotePort: 40_000, remoteFamily: address.includes(':') ? 'IPv6' : 'IPv4' } } };
}

/** A reference server on a fresh store of the test run's engine (or a given SQLite file) with two companies. */
export async function createTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  // The rate limit is off unless a test turns it on: tests fire requests faster than any client should.
  const config: Config = { ...loadConfig({}), logLevel: 'silent', publicUrl: 'http://pay.test', rateLimitRequests: 0, ...options.config };
  const { store, close } = options.databasePath !== undefined ? sqliteFile(options.databasePath) : await openTestStore();
  const deps = createDeps(config, {
    store,
    logger: pino({ level: 'silent' }),
    resolveHost: options.resolveHost ?? tableResolver(),
    ...(options.now ? { now: options.now } : {}),
    validator: options.validator ?? validatorOfTestServers(),
  });
  const app = createApp(deps);
  const a = await createCompanyWithKey(store, { name: 'Café Aurora Ltda', taxId: '45723174000110' });
  const b = await createCompanyWithKey(store, { name: 'Padaria Bom Dia Ltda', taxId: '11222333000181' });
  const violations: string[] = [];
  const record = async (method: string, url: string, response: Response) => {
    violations.push(...(await checker.check(method, new URL(url, 'http://localhost').pathname, response)));
  };
  const checking: Middleware = {
    async onResponse({ request, response }) {
      await record(request.method, request.url, response);
      return undefined;
    },
  };
  const fetchFn = async (request: Request) => app.fetch(request);
  return {
    deps,
    app,
    companyId: a.companyId,
    apiKey: a.apiKey,
    api: typedClient(fetchFn, a.apiKey, checking),
    other: { companyId: b.companyId, apiKey: b.apiKey, api: typedClient(fetchFn, b.apiKey, checking) },
    async request(path, init = {}) {
      const { apiKey = a.apiKey, from, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (apiKey !== null && !headers.has('x-api-key')) headers.set('X-API-KEY', apiKey);
      // What @hono/node-server hands the app as its environment: the request's socket.
      const env =
        from === undefined
          ? undefined
          : { incoming: { socket: { remoteAddress: from, remotePort: 40_000, remoteFamily: from.includes(':') ? 'IPv6' : 'IPv4' } } };
      const response = await app.request(path, { ...rest, headers }, env);
      await record(rest.method ?? 'GET', path, response);
      return response;
    },
    violations,
    close,
  };
}

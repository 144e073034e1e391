/**
 * Configuration from the environment, validated once at start. A bad value is reported
 * as one line naming the variable, never as a stack trace.
 */
import type { DeploymentMode } from './deployment-mode.js';
import { isNetwork } from './webhooks/url-policy.js';

export interface Config {
  port: number;
  host: string;
  /** Path of the SQLite file, or `:memory:`; used when `databaseUrl` is not set. */
  databasePath: string;
  /** A `postgres://` URL: the data lives in that PostgreSQL database instead (several instances may share it). */
  databaseUrl: string | undefined;
  /** Connections of the PostgreSQL pool of this instance. */
  databasePoolSize: number;
  /** PostgreSQL `statement_timeout` of every connection, ms (0: none). */
  databaseStatementTimeoutMs: number;
  /** Origin the hosted payment pages are reached at; charge `url`s start with it. */
  publicUrl: string;
  mode: DeploymentMode;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How long an Idempotency-Key is remembered (D10). */
  idempotencyTtlSeconds: number;
  /** How long an unfinished idempotent request holds its key before a retry may take it over. */
  idempotencyLeaseSeconds: number;
  /** Largest accepted request body (D24, D34). */
  bodyLimitBytes: number;
  /** Requests per company per window, all its API keys together (D11); 0 turns every rate limit off, this one and the anonymous one. */
  rateLimitRequests: number;
  /** Requests per client address per window without a valid API key (D11); 0 turns only this limit off. */
  rateLimitAnonymousRequests: number;
  rateLimitWindowSeconds: number;
  /**
   * The request header a trusted reverse proxy writes the client's address into (lower case), read
   * as its right-most entry; undefined: the socket's address, and no forwarded header is read (D11).
   */
  trustedProxyHeader: string | undefined;
  /**
   * Seconds to wait after each failed webhook delivery attempt before the next one (D14), ±20 %
   * jitter applied; once every entry has been used the delivery is given up.
   */
  webhookRetryScheduleSeconds: readonly number[];
  /** How often the delivery worker looks for due deliveries and expired charges. */
  webhookPollMs: number;
  /** How long an endpoint has to answer one delivery, from the attempt's start, connecting included (D14: 15 s). */
  webhookTimeoutMs: number;
  /** How long the connection to an endpoint may take (D14: 5 s), within `webhookTimeoutMs`; the webhook transport uses it. */
  webhookConnectTimeoutMs: number;
  /** Delivery attempts in flight at once per instance, in all and for one company (D14: 64 and 4). */
  webhookConcurrency: number;
  webhookCompanyConcurrency: number;
  /**
   * Networks (CIDR blocks or addresses) webhooks may be delivered to although they are not public
   * (D40): a receiver the operator runs inside their own network. Empty by default.
   */
  webhookAllowedNetworks: readonly string[];
  /** How long a client has to send its headers, and its whole request (D34); then 408. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** How long a kept-alive connection waits for its next request before it is closed (Node's `keepAliveTimeout`). */
  keepAliveTimeoutMs: number;
  /**
   * A connection on which nothing is read or written for this long is destroyed (the socket's idle
   * timeout): a client that stops reading an answer holds its memory no longer than this (issue 34).
   */
  idleTimeoutMs: number;
  /** Connections open at once from one client address (its /64 for IPv6); more are refused with a 429 problem. 0: no bound. */
  connectionsPerAddress: number;
}

export class ConfigError extends Error {}

/**
 * Every environment variable `loadConfig` reads. It reads them through `ConfigEnv`, which has
 * no other names, so a new variable cannot be read without being listed here; the process
 * tests clear exactly these from the environment of the servers they start.
 */
export const configVariables = [
  'PORT',
  'HOST',
  'DATABASE_PATH',
  'DATABASE_URL',
  'DATABASE_POOL_SIZE',
  'DATABASE_STATEMENT_TIMEOUT_MS',
  'PUBLIC_URL',
  'NODE_ENV',
  'LOG_LEVEL',
  'IDEMPOTENCY_TTL_SECONDS',
  'IDEMPOTENCY_LEASE_SECONDS',
  'BODY_LIMIT_BYTES',
  'RATE_LIMIT_REQUESTS',
  'RATE_LIMIT_WINDOW_SECONDS',
  'RATE_LIMIT_ANONYMOUS_REQUESTS',
  'TRUSTED_PROXY_HEADER',
  'WEBHOOK_RETRY_SCHEDULE',
  'WEBHOOK_POLL_MS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_CONNECT_TIMEOUT_MS',
  'WEBHOOK_CONCURRENCY',
  'WEBHOOK_COMPANY_CONCURRENCY',
  'WEBHOOK_ALLOWED_NETWORKS',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'KEEP_ALIVE_TIMEOUT_MS',
  'IDLE_TIMEOUT_MS',
  'CONNECTIONS_PER_ADDRESS',
] as const;

export type ConfigVariable = (typeof configVariables)[number];

/** The environment as `loadConfig` sees it: the listed variables and nothing else. */
export type ConfigEnv = { readonly [Name in ConfigVariable]?: string | undefined };

/** The variable's value; unset and empty are the same. */
function read(env: ConfigEnv, name: ConfigVariable): string | undefined {
  const raw = env[name];
  return raw === '' ? undefined : raw;
}

function integer(env: ConfigEnv, name: ConfigVariable, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: ConfigEnv, name: ConfigVariable, allowed: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** D14: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after the previous attempt. */
export const defaultWebhookRetrySchedule = '5,300,1800,7200,18000,36000,36000';

/** A comma-separated list of seconds (decimals allowed, so tests can compress the schedule). */
function secondsList(env: ConfigEnv, name: ConfigVariable, fallback: string, maxEntries: number, maxSeconds: number): number[] {
  const raw = read(env, name) ?? fallback;
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > maxEntries || parts.some((part) => !/^[0-9]+(\.[0-9]+)?$/.test(part))) {
    throw new ConfigError(`${name} must be 1 to ${maxEntries} comma-separated numbers of seconds, got "${raw}"`);
  }
  const values = parts.map(Number);
  const tooLong = values.find((value) => value > maxSeconds);
  if (tooLong !== undefined) throw new ConfigError(`${name} entries must be at most ${maxSeconds} seconds, got ${tooLong}`);
  return values;
}

/** A comma-separated list of CIDR blocks or addresses (`10.20.0.0/16,fd00::1`); at most 20. */
function networks(env: ConfigEnv, name: ConfigVariable): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  const parts = raw.split(',').map((part) => part.trim());
  const bad = parts.find((part) => !isNetwork(part));
  if (parts.length > 20 || bad !== undefined) {
    throw new ConfigError(
      `${name} must be 1 to 20 comma-separated CIDR blocks or IP addresses (10.20.0.0/16,fd00::1)${bad !== undefined ? `, got "${bad}"` : ''}`,
    );
  }
  return parts;
}

/** Where the SQLite file is when DATABASE_PATH is not set. */
export const defaultDatabasePath = './data/payments.db';

/** Largest request body served unless BODY_LIMIT_BYTES says otherwise (D34: 1 MiB); the mock refuses past it too. */
export const defaultBodyLimitBytes = 1_048_576;

export function loadConfig(env: ConfigEnv = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = read(env, 'HOST') ?? '127.0.0.1';
  const publicUrl = (read(env, 'PUBLIC_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(publicUrl);
  } catch {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, got "${publicUrl}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`PUBLIC_URL must be an absolute http(s) URL, got "${publicUrl}"`);
  }
  return {
    port,
    host,
    databasePath: read(env, 'DATABASE_PATH') ?? defaultDatabasePath,
    databaseUrl: postgresUrl(env),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1_000),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5_000, 0, 600_000),
    publicUrl,
    // NODE_ENV=test (set by test runners) behaves like development.
    mode: oneOf(env, 'NODE_ENV', ['development', 'production', 'test'], 'development') === 'production' ? 'production' : 'development',
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    idempotencyTtlSeconds: integer(env, 'IDEMPOTENCY_TTL_SECONDS', 86_400, 1, 30 * 86_400),
    idempotencyLeaseSeconds: integer(env, 'IDEMPOTENCY_LEASE_SECONDS', 60, 1, 3_600),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', defaultBodyLimitBytes, 1_024, 64 * 1_048_576),
    ...rateLimits(env),
    webhookRetryScheduleSeconds: secondsList(env, 'WEBHOOK_RETRY_SCHEDULE', defaultWebhookRetrySchedule, 20, 7 * 86_400),
    webhookPollMs: integer(env, 'WEBHOOK_POLL_MS', 250, 10, 60_000),
    ...webhookLimits(env),
    webhookAllowedNetworks: networks(env, 'WEBHOOK_ALLOWED_NETWORKS'),
    ...requestTimeouts(env),
    // Behind a trusted proxy every connection comes from the proxy: no bound unless one is set.
    connectionsPerAddress: integer(
      env,
      'CONNECTIONS_PER_ADDRESS',
      read(env, 'TRUSTED_PROXY_HEADER') === undefined ? defaultConnectionsPerAddress : 0,
      0,
      1_000_000,
    ),
  };
}

/**
 * D11: a quota per company (all its API keys together), and a lower one per client address for requests without a valid key
 * (a quarter of the key's unless set). `RATE_LIMIT_REQUESTS=0` is the one switch that turns both off.
 */
function rateLimits(env: ConfigEnv): Pick<Config, 'rateLimitRequests' | 'rateLimitAnonymousRequests' | 'rateLimitWindowSeconds' | 'trustedProxyHeader'> {
  const rateLimitRequests = integer(env, 'RATE_LIMIT_REQUESTS', 100, 0, 1_000_000);
  const anonymous = integer(env, 'RATE_LIMIT_ANONYMOUS_REQUESTS', Math.ceil(rateLimitRequests / 4), 0, 1_000_000);
  const header = read(env, 'TRUSTED_PROXY_HEADER')?.toLowerCase();
  if (header !== undefined && !/^[a-z0-9!#$%&'*+.^_`|~-]+$/.test(header))
    throw new ConfigError(`TRUSTED_PROXY_HEADER must be a header name such as x-forwarded-for, got "${header}"`);
  return {
    rateLimitRequests,
    rateLimitAnonymousRequests: rateLimitRequests === 0 ? 0 : anonymous,
    rateLimitWindowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 1, 1, 3_600),
    trustedProxyHeader: header,
  };
}

/** The PostgreSQL URL, checked for its scheme; its text (it may hold a password) is never repeated in an error. */
function postgresUrl(env: ConfigEnv): string | undefined {
  const raw = read(env, 'DATABASE_URL');
  if (raw === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('DATABASE_URL must be a postgres:// or postgresql:// URL');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new ConfigError(`DATABASE_URL must be a postgres:// or postgresql:// URL, got a ${url.protocol}// URL`);
  return raw;
}

/** D14: the answer and connect time-outs, and the delivery slots in all and per company. */
function webhookLimits(env: ConfigEnv): Pick<Config, 'webhookTimeoutMs' | 'webhookConnectTimeoutMs' | 'webhookConcurrency' | 'webhookCompanyConcurrency'> {
  const webhookTimeoutMs = integer(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 120_000);
  const webhookConnectTimeoutMs = integer(env, 'WEBHOOK_CONNECT_TIMEOUT_MS', Math.min(5_000, webhookTimeoutMs), 100, 120_000);
  if (webhookConnectTimeoutMs > webhookTimeoutMs) {
    throw new ConfigError(`WEBHOOK_CONNECT_TIMEOUT_MS (${webhookConnectTimeoutMs}) must not exceed WEBHOOK_TIMEOUT_MS (${webhookTimeoutMs})`);
  }
  const webhookConcurrency = integer(env, 'WEBHOOK_CONCURRENCY', 64, 2, 1_000);
  const webhookCompanyConcurrency = integer(env, 'WEBHOOK_COMPANY_CONCURRENCY', 4, 1, 1_000);
  // Less than all: a company whose receivers never answer leaves slots for the others.
  if (webhookCompanyConcurrency >= webhookConcurrency) {
    throw new ConfigError(`WEBHOOK_COMPANY_CONCURRENCY (${webhookCompanyConcurrency}) must be less than WEBHOOK_CONCURRENCY (${webhookConcurrency})`);
  }
  return { webhookTimeoutMs, webhookConnectTimeoutMs, webhookConcurrency, webhookCompanyConcurrency };
}

/** Connections open at once from one client address unless CONNECTIONS_PER_ADDRESS says otherwise (issue 34). */
export const defaultConnectionsPerAddress = 128;

/** D34 and issue 34: the header, request, keep-alive and idle timeouts of every connection. */
function requestTimeouts(env: ConfigEnv): Pick<Config, 'headersTimeoutMs' | 'requestTimeoutMs' | 'keepAliveTimeoutMs' | 'idleTimeoutMs'> {
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  }
  const keepAliveTimeoutMs = integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 5_000, 100, 600_000);
  // By default past the request timeout, so that a request whose body stalls is answered 408 first.
  const idleTimeoutMs = integer(env, 'IDLE_TIMEOUT_MS', Math.max(60_000, requestTimeoutMs), 100, 600_000);
  // A connection idle past its header timeout would be destroyed before it could be answered 408.
  if (idleTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(`IDLE_TIMEOUT_MS (${idleTimeoutMs}) must not be less than HEADERS_TIMEOUT_MS (${headersTimeoutMs})`);
  }
  return { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, idleTimeoutMs };
}

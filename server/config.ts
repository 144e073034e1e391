/**
 * Configuration from the environment, validated once at start. A bad value is reported
 * as one line naming the variable, never as a stack trace.
 */
export interface Config {
  port: number;
  host: string;
  /** Path of the SQLite file, or `:memory:`. */
  databasePath: string;
  /** Origin the hosted payment pages are reached at; charge `url`s start with it. */
  publicUrl: string;
  mode: 'development' | 'production';
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How long an Idempotency-Key is remembered (D10). */
  idempotencyTtlSeconds: number;
  /** How long an unfinished idempotent request holds its key before a retry may take it over. */
  idempotencyLeaseSeconds: number;
  /** Largest accepted request body (D24, D34). */
  bodyLimitBytes: number;
  /** Requests per API key per window (D11); 0 turns the limit off. */
  rateLimitRequests: number;
  rateLimitWindowSeconds: number;
}

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 3000, 0, 65535);
  const host = env.HOST || '127.0.0.1';
  const publicUrl = (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
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
    databasePath: env.DATABASE_PATH || './data/payments.db',
    publicUrl,
    // NODE_ENV=test (set by test runners) behaves like development.
    mode: oneOf(env, 'NODE_ENV', ['development', 'production', 'test'], 'development') === 'production' ? 'production' : 'development',
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
    idempotencyTtlSeconds: integer(env, 'IDEMPOTENCY_TTL_SECONDS', 86_400, 1, 30 * 86_400),
    idempotencyLeaseSeconds: integer(env, 'IDEMPOTENCY_LEASE_SECONDS', 60, 1, 3_600),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1_048_576, 1_024, 64 * 1_048_576),
    rateLimitRequests: integer(env, 'RATE_LIMIT_REQUESTS', 100, 0, 1_000_000),
    rateLimitWindowSeconds: integer(env, 'RATE_LIMIT_WINDOW_SECONDS', 1, 1, 3_600),
  };
}

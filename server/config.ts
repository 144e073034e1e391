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

/**
 * Every environment variable `loadConfig` reads. It reads them through `ConfigEnv`, which has
 * no other names, so a new variable cannot be read without being listed here; the process
 * tests clear exactly these from the environment of the servers they start.
 */
export const configVariables = [
  'PORT',
  'HOST',
  'DATABASE_PATH',
  'PUBLIC_URL',
  'NODE_ENV',
  'LOG_LEVEL',
  'IDEMPOTENCY_TTL_SECONDS',
  'IDEMPOTENCY_LEASE_SECONDS',
  'BODY_LIMIT_BYTES',
  'RATE_LIMIT_REQUESTS',
  'RATE_LIMIT_WINDOW_SECONDS',
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
    databasePath: read(env, 'DATABASE_PATH') ?? './data/payments.db',
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

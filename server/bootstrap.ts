import pino, { type Logger } from 'pino';
import { ContractValidator } from '../lib/contract/ajv.js';
import { withCheckDigits } from '../lib/brazil/tax-id.js';
import { randomInt } from 'node:crypto';
import { issueApiKey } from './auth/api-keys.js';
import type { Config } from './config.js';
import type { Deps } from './deps.js';
import { buildCompany, type NewCompany } from './domain/companies.js';
import { SqliteStore } from './store/sqlite/sqlite-store.js';
import { serverValidatorOptions } from './validation.js';
import type { Store } from './store/types.js';
import { writeRequestLinesTo } from './http/access-log.js';
import { LogDestination } from './log-destination.js';

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  // Lines are written asynchronously and in bursts: held until 16 KiB have gathered (about
  // seventy request lines) or a quarter of a second has passed, then written with one call
  // (`flushLog` writes them at once where someone waits for a line, like `listening`). What is
  // held is written when the process exits. A write per line was a large part of a
  // create's cost: under load every line became a write of its own to the thread pool. A
  // broken pipe gives the destination up instead of being waited on (server/log-destination.ts).
  const destination = new LogDestination({ fd: 1, minLength: LOG_BURST_BYTES, flushMs: LOG_FLUSH_MS });
  // Nothing secret is ever passed to the logger; the redaction is a second line of defence.
  const logger = pino({ level: config.logLevel, redact: ['apiKey', 'secret', '*.apiKey', '*.secret', 'headers["x-api-key"]'] }, destination);
  writeRequestLinesTo(logger, destination);
  return logger;
}

/** Log lines are held until this many bytes have gathered… */
const LOG_BURST_BYTES = 16_384;
/** …or this many milliseconds have passed. */
const LOG_FLUSH_MS = 250;

/** PostgreSQL when `DATABASE_URL` is set (its driver loaded only then), else the SQLite file. */
export async function openStore(config: Pick<Config, 'databasePath' | 'databaseUrl' | 'databasePoolSize' | 'databaseStatementTimeoutMs'>): Promise<Store> {
  if (config.databaseUrl === undefined) return new SqliteStore(config.databasePath);
  const { PgStore } = await import('./store/postgres/pg-store.js');
  return PgStore.open({ connectionString: config.databaseUrl, poolSize: config.databasePoolSize, statementTimeoutMs: config.databaseStatementTimeoutMs });
}

/** Where the data lives, for logs: never the URL itself, which may hold a password. */
export function describeStore(config: Pick<Config, 'databasePath' | 'databaseUrl'>): string {
  return config.databaseUrl === undefined ? config.databasePath : 'postgresql';
}

export function createDeps(config: Config, overrides: Partial<Deps> & Pick<Deps, 'store'>): Deps {
  return {
    config,
    store: overrides.store,
    logger: overrides.logger ?? createLogger(config),
    validator: overrides.validator ?? new ContractValidator(undefined, serverValidatorOptions),
    now: overrides.now ?? (() => new Date()),
    ...(overrides.resolveHost ? { resolveHost: overrides.resolveHost } : {}),
  };
}

/** A random CNPJ with valid check digits, for companies created without one. */
export function randomCnpj(): string {
  const base = `${Array.from({ length: 8 }, () => randomInt(10)).join('')}0001`;
  return withCheckDigits(base);
}

/** Creates a company and its first API key; the key is returned once and stored only hashed. */
export async function createCompanyWithKey(store: Store, input: Partial<NewCompany> & { name: string }, now = new Date()) {
  const company = buildCompany({ taxId: input.taxId ?? randomCnpj(), ...input }, now);
  const issued = issueApiKey(company.doc.id, now);
  await store.createCompany(company, issued.record);
  return { companyId: company.doc.id, apiKey: issued.apiKey, company };
}

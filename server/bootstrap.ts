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

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  // Nothing secret is ever passed to the logger; the redaction is a second line of defence.
  // Lines are written asynchronously (a write per burst of lines, not a blocking write per
  // request); pino flushes what is left when the process exits.
  return pino(
    { level: config.logLevel, redact: ['apiKey', 'secret', '*.apiKey', '*.secret', 'headers["x-api-key"]'] },
    pino.destination({ dest: 1, sync: false }),
  );
}

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

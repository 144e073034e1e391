import { ContractValidator } from '../lib/contract/ajv.js';
import type { JsonObject } from '../lib/contract/bundled.js';
import { listPagedLists } from '../lib/contract/lists.js';
import { OperationCatalog } from './http/operations.js';

/** How the server validates against the contract: requests get the contract's `default`s filled in. */
export const serverValidatorOptions = { useDefaults: true } as const;

/**
 * The contract's schemas the server's code validates by name, apart from the requests of its
 * operations. Every `validator.at` of the server names its schema here or through the catalog, so
 * that the compiled server's build makes its validator (`validatedSchemaPointers`).
 */
export const namedSchemas = {
  /** A charge's computed total (server/domain/charges.ts). */
  cents: '/components/schemas/Cents',
} as const;

/**
 * Every schema the server validates: each operation's parameters and request body, as the
 * operation catalog reads them from the contract, the id of each paged list's records (its page
 * cursor names one, server/domain/pages.ts), and the named ones. The compiled server's build
 * makes their validators ahead of time (scripts/server-validators.ts); one missing here is
 * compiled at run time, and counted (`ContractValidator.compiledAtRunTime`).
 */
export function validatedSchemaPointers(contract: JsonObject): string[] {
  const catalog = new OperationCatalog(new ContractValidator(contract, serverValidatorOptions));
  const cursorIds = listPagedLists(contract).flatMap((list) => (list.idSchema ? [list.idSchema] : []));
  return [...new Set([...catalog.schemaPointers(), ...cursorIds, ...Object.values(namedSchemas)])];
}

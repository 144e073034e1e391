import type { JsonObject } from './bundled.js';
import { validatorMaker } from './ajv.js';
import { standaloneCode } from './validator-cache.js';

/**
 * Ajv's standalone code of the validators of the schemas at `pointers` in `contract`, made as
 * `ContractValidator.at(pointer)` compiles them (lib/contract/validator-cache.ts `standaloneCode`),
 * for a build to bundle (scripts/bundle-node.mjs).
 */
export function standaloneValidators(contract: JsonObject, pointers: readonly string[], options: { useDefaults: boolean }): string {
  return standaloneCode(contract, options.useDefaults, pointers, validatorMaker);
}

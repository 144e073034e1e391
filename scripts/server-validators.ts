/**
 * The request validators of the compiled server, made at build time: scripts/build-server.mjs
 * has scripts/bundle-node.mjs write this module's code beside the bundle and bundle it in place of
 * lib/contract/precompiled.ts, so the server compiles no validator when it starts (Ajv compiling
 * the contract's schemas was the largest part of its start-up).
 */
import { loadBundledContract } from '../lib/contract/bundled.js';
import { standaloneValidators } from '../lib/contract/standalone.js';
import { serverValidatorOptions, validatedSchemaPointers } from '../server/validation.js';

/** The standalone code of every validator the server uses, and the option it was made with. */
export function precompiledValidatorsModule(): { useDefaults: boolean; code: string } {
  const contract = loadBundledContract();
  return {
    useDefaults: serverValidatorOptions.useDefaults,
    code: standaloneValidators(contract, validatedSchemaPointers(contract), serverValidatorOptions),
  };
}

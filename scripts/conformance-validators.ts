/**
 * The validators of the conformance command, made at build time by the tests' bundle of the
 * command (server/test-support/processes.ts `bundledCommand`): the bundled contract's and its seed view's, without
 * defaults (the checks judge what was sent and answered), so that a run compiles none (compiling
 * them was about a sixth of a run's CPU). The code is the cache a clone keeps
 * (lib/contract/validator-cache.ts), made there when it is not yet. The package's build
 * (scripts/build-conformance.mjs) does not use it: the code would take QA's package past 1 MB packed.
 */
import { validatorMaker } from '../lib/contract/ajv.js';
import { loadBundledContract } from '../lib/contract/bundled.js';
import { contentKey } from '../lib/contract/content-key.js';
import { cachedCode } from '../lib/contract/validator-cache.js';
import { seedView } from '../conformance/engine/seed-view.js';

const useDefaults = false;

/** The standalone code of the contract's validators, and of its seed view's under the key of the view's content. */
export function precompiledValidatorsModule(): { useDefaults: boolean; code: string; views: Array<{ key: string; useDefaults: boolean; code: string }> } {
  const contract = loadBundledContract();
  const seed = seedView(contract);
  return {
    useDefaults,
    code: cachedCode(contract, useDefaults, validatorMaker),
    views: [{ key: contentKey(seed, useDefaults), useDefaults, code: cachedCode(seed, useDefaults, validatorMaker) }],
  };
}

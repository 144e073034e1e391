import { expect, test } from 'vitest';
import { seedView } from '../conformance/engine/seed-view.js';
import { ContractValidator } from '../lib/contract/ajv.js';
import { loadBundledContract, type JsonObject } from '../lib/contract/bundled.js';
import { contentKey } from '../lib/contract/content-key.js';
import { load } from '../lib/contract/validator-cache.js';
import { precompiledValidatorsModule } from './conformance-validators.js';

test("the conformance command's validators: the contract's and its seed view's, the view's under the key a bundled run computes", { timeout: 60_000 }, () => {
  const made = precompiledValidatorsModule();
  const contract = loadBundledContract();
  // A bundled command reads the contract from its JSON text (scripts/bundle-node.mjs) and makes the seed view of that.
  const seed = seedView(JSON.parse(JSON.stringify(contract)) as JsonObject);
  expect(made.useDefaults).toBe(false);
  expect(made.views.map((view) => [view.key, view.useDefaults])).toEqual([[contentKey(seed, false), false]]);
  // A contract of other content finds none.
  expect(contentKey(contract, false)).not.toBe(made.views[0]!.key);
  // Each answers as the validator compiled at run time of its own contract, for values the two judge apart.
  const [full, view] = [load(made.code), load(made.views[0]!.code)];
  const compiledFull = new ContractValidator(contract, { onDisk: false });
  const compiledSeed = new ContractValidator(seed, { onDisk: false });
  const pointer = '/components/schemas/ClientCreate';
  for (const value of [{ name: 'A' }, { name: 'A', cpfCnpj: '52998224725', email: 'a@example.com', phone: '11987654321', status: 'ACTIVE' }]) {
    expect(view[pointer]!(value)).toBe(compiledSeed.at(pointer)(value));
    expect(view[pointer]!.errors ?? null).toEqual(compiledSeed.at(pointer).errors ?? null);
    expect(full[pointer]!(value)).toBe(compiledFull.at(pointer)(value));
    expect(full[pointer]!.errors ?? null).toEqual(compiledFull.at(pointer).errors ?? null);
  }
});

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { seedView } from '../conformance/engine/seed-view.js';
import { ContractValidator } from '../lib/contract/ajv.js';
import { loadBundledContract } from '../lib/contract/bundled.js';
import { contentKey } from '../lib/contract/content-key.js';
import type { PrecompiledValidators } from '../lib/contract/precompiled.js';
import { bundleNodeCommand } from './bundle-node.mjs';

// In dist/, as the build's: the generated code requires Ajv's runtime from the repository's packages.
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
mkdirSync(dist, { recursive: true });
const folder = mkdtempSync(join(dist, 'conformance-validators-test-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

test("the conformance command's build makes the contract's validators and its seed view's, found by the view's content", { timeout: 60_000 }, async () => {
  // lib/contract/precompiled.ts as the tests' bundle of the command has it (`bundledCommand` of the server's test support).
  const outfile = join(folder, 'precompiled.mjs');
  await bundleNodeCommand({ entry: 'lib/contract/precompiled.ts', outfile, validators: 'scripts/conformance-validators.ts', sourcemap: false });
  const built: { precompiled: PrecompiledValidators; precompiledViews: Record<string, PrecompiledValidators> } = await import(pathToFileURL(outfile).href);
  const contract = loadBundledContract();
  const seed = seedView(contract);
  expect(built.precompiled.useDefaults).toBe(false);
  // A run validates with both: the seed view under its key, the one a run computes from the view it makes.
  expect(Object.keys(built.precompiledViews)).toEqual([contentKey(seed, false)]);
  const view = built.precompiledViews[contentKey(seed, false)]!;
  expect(view.useDefaults).toBe(false);
  // Each answers as the validator compiled at run time of its own contract: a value the views judge apart.
  const pointer = '/components/schemas/ClientCreate';
  const compiledSeed = new ContractValidator(seed, { onDisk: false });
  const compiledFull = new ContractValidator(contract, { onDisk: false });
  for (const value of [{ name: 'A' }, { name: 'A', cpfCnpj: '52998224725', email: 'a@example.com', phone: '11987654321', status: 'ACTIVE' }]) {
    expect(view.validators[pointer]!(value)).toBe(compiledSeed.at(pointer)(value));
    expect(view.validators[pointer]!.errors ?? null).toEqual(compiledSeed.at(pointer).errors ?? null);
    expect(built.precompiled.validators[pointer]!(value)).toBe(compiledFull.at(pointer)(value));
    expect(built.precompiled.validators[pointer]!.errors ?? null).toEqual(compiledFull.at(pointer).errors ?? null);
  }
  // A view's validators are another contract's: a contract of other content finds none.
  expect(built.precompiledViews[contentKey(contract, false)]).toBeUndefined();
});

import { _ } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { fileURLToPath } from 'node:url';
import { contractAjv, schemaAt } from './ajv.js';
import type { JsonObject } from './bundled.js';

// CommonJS interop: the function is also the module's `default`, which is what NodeNext types see.
const standaloneCode = standaloneModule.default;

/** Where the standalone code reads the formats from: this file's sibling, found by path, as a bundler finds it. */
const formatsModule = fileURLToPath(new URL('./formats.ts', import.meta.url));

/**
 * Ajv's standalone code of the validators of the schemas at `pointers` in `contract`: a CommonJS
 * module exporting each validator under its pointer, made by the same Ajv options as
 * `ContractValidator.at(pointer)` compiles it with, so it answers and errs (verbose errors
 * included) exactly as that one would. It requires Ajv's runtime helpers and
 * lib/contract/formats.ts (`contractFormats`), so it runs once bundled (scripts/bundle-node.mjs).
 */
export function standaloneValidators(contract: JsonObject, pointers: readonly string[], options: { useDefaults: boolean }): string {
  const ajv = contractAjv(contract, options, { source: true, formats: _`require(${formatsModule}).contractFormats` });
  const exported: Record<string, string> = {};
  for (const [index, pointer] of [...new Set(pointers)].entries()) {
    // Compiled from the same schema `ContractValidator.at` compiles (a `$ref` to the pointer), under a key of its own.
    const key = `validator${index}`;
    ajv.addSchema(schemaAt(pointer), key);
    exported[pointer] = key;
  }
  return standaloneCode(ajv, exported);
}

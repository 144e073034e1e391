/**
 * Shared plumbing of the contract tests: where the contract lives, loading it
 * with a readable failure, JSON Pointer helpers and a recursive walker.
 *
 * `CONTRACT_ROOT` (a directory holding `openapi/` and `generated/`) may point the
 * contract tests at another tree, e.g. a fixture; by default it is the repository.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { followRef, loadBundledContract, isJsonObject as isObject, type JsonObject } from '../../lib/contract/bundled.js';
import { childPointer, toPointer } from '../../lib/contract/pointer.js';

export type { JsonObject };

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const contractRoot = resolve(process.env.CONTRACT_ROOT ?? repoRoot);
export const openapiDir = join(contractRoot, 'openapi');
export const rootDocumentPath = join(openapiDir, 'openapi.yaml');
export const decisionsPath = join(openapiDir, 'DECISIONS.md');
export const generatedBundlePath = join(contractRoot, 'generated', 'openapi.yaml');
export const generatedTypesPath = join(contractRoot, 'generated', 'openapi.d.ts');
export const generatedRoutesPath = join(contractRoot, 'generated', 'client-routes.ts');
export const binDir = join(repoRoot, 'node_modules', '.bin');

export { isObject };

export interface Loaded<T> {
  value?: T;
  error?: string;
}

/** Loads the bundled contract; a missing or unparsable bundle becomes an error message, not a crash at collection time. */
export function loadContract(path = generatedBundlePath): Loaded<JsonObject> {
  if (!existsSync(path)) return { error: `${path} does not exist: run \`npm run bundle\`` };
  try {
    const value = loadBundledContract(path);
    if (!isObject(value)) return { error: `${path} does not hold a YAML mapping` };
    return { value };
  } catch (error) {
    return { error: `${path} does not parse: ${(error as Error).message}` };
  }
}

export { childPointer, escapeToken, lastToken, pointerToFragment } from '../../lib/contract/pointer.js';

export function pointerOf(...tokens: Array<string | number>): string {
  return toPointer(tokens);
}

export type Visitor = (value: unknown, pointer: string, key: string | number | undefined, parent: unknown) => void;

/** Depth-first walk of a JSON-like value, calling `visit` on every node (objects before their children). */
export function walk(value: unknown, visit: Visitor, pointer = '', key?: string | number, parent?: unknown): void {
  visit(value, pointer, key, parent);
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      walk(item, visit, childPointer(pointer, index), index, value);
    });
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) walk(v, visit, childPointer(pointer, k), k, value);
  }
}

export { followRef as follow };

export const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

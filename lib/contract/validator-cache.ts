import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type AjvModule from 'ajv';
import type { Ajv as AjvCore, CodeOptions } from 'ajv';
import type StandaloneModule from 'ajv/dist/standalone/index.js';
import { isJsonObject, type JsonObject } from './bundled.js';
import { contentKey } from './content-key.js';
import { contractFormats } from './formats.js';
import { escapeToken } from './pointer.js';
import type { Validate } from './precompiled.js';

/**
 * Validators of a contract kept on disk between processes, in a clone of the repository only
 * (from source: tsx, vitest). Every conformance run, every server started from source and every
 * test file that validates compiled the same schemas of the same contract again (a conformance
 * run spent about a sixth of its CPU there). The first process to need them writes Ajv's
 * standalone code of every schema of the contract (as the compiled server's build does,
 * lib/contract/standalone.ts) to node_modules/.cache/contract-validators/, under a hash of what
 * the code is made from: the contract's content, the option, Ajv's version and the sources that
 * make the code. A changed contract or source is another file; the others are left to be pruned.
 * Bundled commands never come here: their build made their validators, or they compile them.
 */
const here = import.meta.url;

/** From source, not bundled: a bundle's modules have the bundle's URL. */
export const fromSource = here.endsWith('.ts');

const cacheFolder = fileURLToPath(new URL('../../node_modules/.cache/contract-validators/', here));

/** Where the standalone code reads the formats from (lib/contract/standalone.ts names it so). */
const formatsModule = fileURLToPath(new URL('./formats.ts', here));

/** Files kept in the folder: the newest ones (one contract, two options, its seed view, a few changes). */
const KEEP = 12;

/** The sources whose text shapes the code: the Ajv instance's options, the formats, this file (`standaloneCode`). */
const shapingSources = ['./ajv.ts', './formats.ts', './validator-cache.ts'];

let sourcesHash: string | undefined;

function shapedBy(): string {
  if (sourcesHash === undefined) {
    const hash = createHash('sha256');
    const nodeRequire = createRequire(here);
    hash.update(String((nodeRequire('ajv/package.json') as { version: string }).version));
    hash.update(formatsModule);
    for (const source of shapingSources) hash.update(readFileSync(new URL(source, here)));
    sourcesHash = hash.digest('hex');
  }
  return sourcesHash;
}

/** The key of `contract`'s validators made with `useDefaults`: its content's key, and what shapes the code. */
function keyOf(contract: JsonObject, useDefaults: boolean): string {
  return createHash('sha256').update(shapedBy()).update(contentKey(contract, useDefaults)).digest('hex').slice(0, 32);
}

/**
 * Every schema a reader of the contract compiles by pointer: each `schema` of a parameter, a
 * header or a media type (under paths, webhooks and components), and each named schema.
 */
export function schemaPointersOf(contract: JsonObject): string[] {
  const found: string[] = [];
  const walk = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) {
      for (const [index, item] of node.entries()) walk(item, `${pointer}/${index}`);
    } else if (isJsonObject(node))
      for (const [key, value] of Object.entries(node)) {
        const at = `${pointer}/${escapeToken(key)}`;
        // A schema is compiled whole: what is inside it is not walked, nor are examples.
        if (key === 'schema' && isJsonObject(value)) found.push(at);
        else if (key !== 'example' && key !== 'examples' && !(pointer === '/components' && key === 'schemas')) walk(value, at);
      }
  };
  walk(contract.paths, '/paths');
  walk(contract.webhooks, '/webhooks');
  walk(contract.components, '/components');
  const schemas = isJsonObject(contract.components) && isJsonObject(contract.components.schemas) ? contract.components.schemas : {};
  for (const name of Object.keys(schemas)) found.push(`/components/schemas/${escapeToken(name)}`);
  return found;
}

/** Runs standalone code (a CommonJS module) and gives its exports: the validators by pointer. */
export function load(code: string): Record<string, Validate> {
  const nodeRequire = createRequire(here);
  const requireIn = (id: string): unknown => (id === formatsModule ? { contractFormats } : nodeRequire(id));
  const module = { exports: {} as Record<string, Validate> };
  new Function('require', 'module', 'exports', code)(requireIn, module, module.exports);
  return module.exports;
}

/** What makes the code: `contractAjv` and `schemaAt` of lib/contract/ajv.ts (not imported: that module imports this one). */
export interface Maker {
  contractAjv(contract: JsonObject, options: { useDefaults: boolean }, code: CodeOptions): AjvCore;
  schemaAt(pointer: string): { $ref: string };
}

/**
 * Ajv's standalone code of the validators of the schemas at `pointers` in `contract`: a CommonJS
 * module exporting each validator under its pointer, made by the same Ajv options as
 * `ContractValidator.at(pointer)` compiles it with, so it answers and errs (verbose errors
 * included) exactly as that one would. It requires Ajv's runtime helpers and
 * lib/contract/formats.ts (`contractFormats`). The builds make theirs with it
 * (lib/contract/standalone.ts), the cache too. Ajv is required here, not imported: a bundle of
 * lib/contract/ajv.ts, which imports this module, must not load it at start.
 */
export function standaloneCode(contract: JsonObject, useDefaults: boolean, pointers: readonly string[], maker: Maker): string {
  const nodeRequire = createRequire(here);
  const { _ } = nodeRequire('ajv') as typeof AjvModule;
  const standalone = (nodeRequire('ajv/dist/standalone/index.js') as typeof StandaloneModule).default;
  const ajv = maker.contractAjv(contract, { useDefaults }, { source: true, formats: _`require(${formatsModule}).contractFormats` });
  const exported: Record<string, string> = {};
  for (const [index, pointer] of [...new Set(pointers)].entries()) {
    // Compiled from the same schema `ContractValidator.at` compiles (a `$ref` to the pointer), under a key of its own.
    ajv.addSchema(maker.schemaAt(pointer), `validator${index}`);
    exported[pointer] = `validator${index}`;
  }
  return standalone(ajv, exported);
}

/**
 * The validators of every schema of `contract` (`schemaPointersOf`), made with `useDefaults`:
 * read from the cache, or made and written there.
 */
export function cachedValidators(contract: JsonObject, useDefaults: boolean, maker: Maker): Record<string, Validate> {
  // Read once per contract and option in a process: every server made in a test asks again.
  let byOption = loaded.get(contract);
  if (byOption === undefined) {
    byOption = new Map();
    loaded.set(contract, byOption);
  }
  let validators = byOption.get(useDefaults);
  if (validators === undefined) {
    validators = readOrMake(contract, useDefaults, maker);
    byOption.set(useDefaults, validators);
  }
  return validators;
}

const loaded = new WeakMap<JsonObject, Map<boolean, Record<string, Validate>>>();

/**
 * The validators kept in `folder` for `contract` and `useDefaults`, made and written there when
 * they are not; none when they cannot be made (each is then compiled when asked for, as without
 * the cache).
 */
export function readOrMake(contract: JsonObject, useDefaults: boolean, maker: Maker, folder = cacheFolder): Record<string, Validate> {
  let code: string;
  try {
    code = cachedCode(contract, useDefaults, maker, folder);
  } catch {
    return {};
  }
  return load(code);
}

/** The standalone code kept in `folder` for `contract` and `useDefaults`, made and written there when it is not. */
export function cachedCode(contract: JsonObject, useDefaults: boolean, maker: Maker, folder = cacheFolder): string {
  const file = join(folder, `${keyOf(contract, useDefaults)}.cjs`);
  try {
    return readFileSync(file, 'utf8');
  } catch {
    const code = standaloneCode(contract, useDefaults, schemaPointersOf(contract), maker);
    write(folder, file, code);
    return code;
  }
}

/** Writes `file` whole (processes running at the same time read it whole or not at all), and prunes the oldest. */
function write(folder: string, file: string, code: string): void {
  try {
    mkdirSync(folder, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, file);
    const files = readdirSync(folder)
      .filter((name) => name.endsWith('.cjs'))
      .map((name) => ({ path: join(folder, name), time: statSync(join(folder, name)).mtimeMs }))
      .sort((a, b) => b.time - a.time);
    for (const old of files.slice(KEEP)) rmSync(old.path, { force: true });
  } catch {
    // A cache not written is made again next time.
  }
}

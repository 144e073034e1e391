/**
 * Writes one OpenAPI document per base URL (`npm run generate:per-server`, part of
 * `npm run build:contract`): generated/openapi.base_url.yaml and generated/openapi.base_url_alt.yaml.
 *
 * The contract puts each operation on `{base_url}` or `{base_url_alt}` with per-path and
 * per-operation `servers`, which is valid OpenAPI 3.1, but popular client generators ignore them
 * (issue 39: orval and @hey-api/openapi-ts send `createClient` to `{base_url}`). Each document
 * here holds the operations of one base URL, each once, with that base URL as its root `servers`
 * and no other `servers`: a generator that reads only the root's routes right. The components
 * each document needs come with it (the others are left out); the event webhook goes with the
 * root's base URL, where webhooks are registered. Nothing else changes.
 *
 *   tsx scripts/contract/per-server.ts generated/openapi.yaml --output generated
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import {
  allServers,
  deref,
  httpMethods,
  isJsonObject,
  type JsonObject,
  listOperations,
  parseContract,
  serverVariableNames,
} from '../../lib/contract/bundled.js';
import { readFileSync } from 'node:fs';

/** The file name of the document of one base URL. */
export const perServerFileName = (server: string) => `openapi.${server}.yaml`;

/** The documents, by server variable (`base_url`, `base_url_alt`), in the contract's order. */
export function perServerDocuments(contract: JsonObject): Map<string, JsonObject> {
  const names = serverVariableNames(contract);
  const operations = listOperations(contract);
  const documents = new Map<string, JsonObject>();
  for (const [index, name] of names.entries()) {
    const server = allServers(contract).find(
      (candidate) => Object.keys(candidate.variables ?? {}).includes(name) && String(candidate.url).includes(`{${name}}`),
    );
    if (server === undefined) throw new Error(`no server of the contract declares {${name}}`);
    const doc = structuredClone(contract);
    doc.servers = [structuredClone(server)];
    const paths: Record<string, JsonObject> = {};
    for (const [path, rawItem] of Object.entries((contract.paths ?? {}) as Record<string, unknown>)) {
      const item = structuredClone(deref<JsonObject>(contract, rawItem));
      delete item.servers;
      let kept = 0;
      for (const method of httpMethods) {
        if (!isJsonObject(item[method])) continue;
        if (operations.some((op) => op.path === path && op.method === method && op.server === name)) {
          delete (item[method] as JsonObject).servers;
          kept++;
        } else delete item[method];
      }
      if (kept > 0) paths[path] = item;
    }
    doc.paths = paths;
    // The event webhook is sent by the service, to the URL registered on the root's base URL.
    if (index > 0) delete doc.webhooks;
    const info = doc.info as JsonObject;
    info.title = `${String(info.title)} — {${name}}`;
    info.description = `The operations on \`{${name}}\` only, generated from the whole contract (openapi.yaml) for client generators that ignore per-operation \`servers\`: generate one client per document (${names.map((n) => perServerFileName(n)).join(', ')}), each given its own base URL.\n\n${String(info.description ?? '')}`;
    keepUsedTags(doc);
    keepUsedComponents(doc);
    documents.set(name, doc);
  }
  return documents;
}

/** The tags of the operations (and webhooks) the document holds; the others go. */
function keepUsedTags(doc: JsonObject): void {
  const used = new Set<string>();
  for (const holder of [doc.paths, doc.webhooks] as unknown[]) {
    for (const item of Object.values((holder ?? {}) as Record<string, JsonObject>)) {
      for (const method of httpMethods) for (const tag of ((item[method] as JsonObject | undefined)?.tags ?? []) as string[]) used.add(tag);
    }
  }
  if (Array.isArray(doc.tags)) doc.tags = (doc.tags as JsonObject[]).filter((tag) => used.has(String(tag.name)));
}

/** `#/components/<kind>/<name>` of every `$ref` in `value`. */
function componentRefs(value: unknown, into: string[]): void {
  if (Array.isArray(value)) for (const item of value) componentRefs(item, into);
  else if (isJsonObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/components/')) into.push(item.split('/').slice(0, 4).join('/'));
      else componentRefs(item, into);
    }
  }
}

/** Leaves out the components nothing in the document refers to (security schemes, named by `security`, stay). */
function keepUsedComponents(doc: JsonObject): void {
  const components = (doc.components ?? {}) as Record<string, Record<string, unknown>>;
  const { components: _all, ...rest } = doc;
  const queue: string[] = [];
  componentRefs(rest, queue);
  const reached = new Set<string>();
  while (queue.length > 0) {
    const ref = queue.pop()!;
    if (reached.has(ref)) continue;
    reached.add(ref);
    const [, , kind, name] = ref.split('/');
    componentRefs(components[kind!]?.[decodeURIComponent(name!).replaceAll('~1', '/').replaceAll('~0', '~')], queue);
  }
  for (const [kind, entries] of Object.entries(components)) {
    if (kind === 'securitySchemes') continue;
    for (const name of Object.keys(entries)) {
      if (!reached.has(`#/components/${kind}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`)) delete entries[name];
    }
    if (Object.keys(entries).length === 0) delete components[kind];
  }
}

/** The YAML text of each document, by file name. */
export function perServerFiles(contract: JsonObject): Map<string, string> {
  const files = new Map<string, string>();
  for (const [name, doc] of perServerDocuments(contract)) {
    files.set(
      perServerFileName(name),
      `# Generated by scripts/contract/per-server.ts from generated/openapi.yaml (npm run build:contract); do not edit.\n${stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false })}`,
    );
  }
  return files;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { output: { type: 'string' } } });
  const input = positionals[0];
  if (input === undefined || values.output === undefined) throw new Error('usage: tsx scripts/contract/per-server.ts <bundled contract> --output <folder>');
  const contract = parseContract(readFileSync(resolve(input), 'utf8'));
  for (const [file, text] of perServerFiles(contract)) writeFileSync(join(resolve(values.output), file), text);
}

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type jsYaml from 'js-yaml';
import { onFirstUse } from './on-first-use.js';
import { escapeToken, splitPointer } from './pointer.js';

/**
 * The bundled contract (`generated/openapi.yaml`) is the single input of every
 * downstream piece: server validation, conformance, mock tests. This module is
 * the one place that knows where it lives and how to walk it.
 */
export const bundledContractPath = fileURLToPath(new URL('../../generated/openapi.yaml', import.meta.url));

export type JsonObject = Record<string, unknown>;

/** A JSON object: not null, not an array. */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export const httpMethods = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
export type HttpMethod = (typeof httpMethods)[number];

export interface ContractOperation {
  method: HttpMethod;
  path: string;
  operationId: string;
  /** Name of the server variable the operation is served under (`base_url` or `base_url_alt`). */
  server: string;
  operation: JsonObject;
}

let cached: JsonObject | undefined;

/**
 * The bundled contract as JSON text, put into the compiled server by scripts/build-server.mjs
 * (parsed there from generated/openapi.yaml with `parseContract`); undefined when running from
 * source. JSON parses twenty times faster than YAML, and start-up time matters.
 */
declare const __BUNDLED_CONTRACT_JSON__: string | undefined;

/**
 * Parses the bundled contract once per process. js-yaml with the YAML 1.2 core schema (no
 * timestamps or merge keys, as the `yaml` package reads it) parses it about five times faster
 * than `yaml` does.
 */
export function loadBundledContract(path = bundledContractPath): JsonObject {
  if (path !== bundledContractPath) return parseContract(readFileSync(path, 'utf8'));
  cached ??= typeof __BUNDLED_CONTRACT_JSON__ === 'string' ? (JSON.parse(__BUNDLED_CONTRACT_JSON__) as JsonObject) : parseContract(readFileSync(path, 'utf8'));
  return cached;
}

/** js-yaml, loaded on first use: the compiled server reads its contract from JSON (`__BUNDLED_CONTRACT_JSON__`). */
const yaml = onFirstUse<typeof jsYaml>(() => require('js-yaml'), 'js-yaml', import.meta.url);

export function parseContract(text: string): JsonObject {
  const { load, CORE_SCHEMA } = yaml();
  return load(text, { schema: CORE_SCHEMA }) as JsonObject;
}

/** Follows local `$ref`s (`#/components/...`) until a non-reference object is reached. */
export function deref<T = JsonObject>(doc: JsonObject, value: unknown): T {
  return followRef(doc, value, '').node as T;
}

/**
 * Follows local `$ref`s from `value` (found at `pointer`), returning the object reached and the
 * pointer it lives at: the one `$ref` resolver of the contract's readers. A reference out of the
 * document, in a circle or to nothing is an error in the contract, and thrown.
 */
export function followRef(doc: JsonObject, value: unknown, pointer: string): { node: unknown; pointer: string } {
  let node = value;
  let at = pointer;
  const seen = new Set<string>();
  while (isJsonObject(node) && typeof node.$ref === 'string') {
    const ref = node.$ref;
    if (!ref.startsWith('#')) throw new Error(`${at}: only local references are supported, got ${ref}`);
    if (seen.has(ref)) throw new Error(`${at}: circular reference ${ref}`);
    seen.add(ref);
    at = decodeURIComponent(ref.slice(1));
    node = resolvePointer(doc, at);
    if (node === undefined) throw new Error(`${pointer}: reference ${ref} does not resolve`);
  }
  return { node, pointer: at };
}

/** Resolves a JSON Pointer (RFC 6901) such as `/components/schemas/Charge`. */
export function resolvePointer(doc: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '/') return doc;
  let current: unknown = doc;
  for (const key of splitPointer(pointer)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as JsonObject)[key];
  }
  return current;
}

/** Every operation of the contract, in document order. */
export function listOperations(doc: JsonObject = loadBundledContract()): ContractOperation[] {
  const result: ContractOperation[] = [];
  const paths = (doc.paths ?? {}) as Record<string, JsonObject>;
  for (const [path, rawItem] of Object.entries(paths)) {
    const item = deref(doc, rawItem);
    for (const method of httpMethods) {
      const operation = item[method] as JsonObject | undefined;
      if (!operation) continue;
      const server = serverVariable(servedOn(doc, item, operation)[0]);
      result.push({ method, path, operationId: String(operation.operationId), server, operation });
    }
  }
  return result;
}

/**
 * Whether the operation takes an `Idempotency-Key` header (D10), among its own parameters or its
 * path's: what makes the server run the protocol for it, the client send a key and the docs'
 * sample send a new one.
 */
export function takesIdempotencyKey(doc: JsonObject, op: Pick<ContractOperation, 'path' | 'operation'>): boolean {
  const item = deref<JsonObject | undefined>(doc, (doc.paths as JsonObject | undefined)?.[op.path]);
  return [op.operation.parameters, item?.parameters].some(
    (parameters) =>
      Array.isArray(parameters) &&
      parameters.some((p) => {
        const parameter = deref<{ in?: unknown; name?: unknown }>(doc, p);
        return parameter.in === 'header' && String(parameter.name).toLowerCase() === 'idempotency-key';
      }),
  );
}

/** A server object as the contract writes it. */
export interface ServerObject {
  url: string;
  description?: string;
  variables?: Record<string, { default?: string; description?: string }>;
}

const serversOf = (holder: JsonObject | undefined): ServerObject[] | undefined =>
  Array.isArray(holder?.servers) ? (holder.servers as ServerObject[]) : undefined;

/**
 * The servers an operation is served on, as OpenAPI reads them: the operation's own `servers`,
 * else its path's, else the contract's. The contract names each base URL once, at the highest
 * level it holds for (docs/contract.md); every reader of an operation's server asks here.
 */
function servedOn(doc: JsonObject, item: JsonObject, operation: JsonObject): ServerObject[] {
  return serversOf(operation) ?? serversOf(item) ?? serversOf(doc) ?? [];
}

/** The servers of the operation `method path` (empty when the contract has no such operation). */
export function operationServers(doc: JsonObject, op: Pick<ContractOperation, 'method' | 'path'>): ServerObject[] {
  const item = deref<JsonObject | undefined>(doc, (doc.paths as JsonObject | undefined)?.[op.path]);
  const operation = item?.[op.method];
  return item && isJsonObject(operation) ? servedOn(doc, item, operation) : [];
}

/** The variable a server's URL starts with: `{base_url_alt}` → `base_url_alt`; '' for a literal URL. */
function serverVariable(server: ServerObject | undefined): string {
  return /^\{(\w+)\}/.exec(server?.url ?? '')?.[1] ?? '';
}

/** Every server object of the contract: the root's, then each path's and operation's, in document order. */
export function allServers(doc: JsonObject): ServerObject[] {
  const found = [...(serversOf(doc) ?? [])];
  for (const rawItem of Object.values((doc.paths ?? {}) as Record<string, unknown>)) {
    const item = deref<JsonObject>(doc, rawItem);
    found.push(...(serversOf(item) ?? []));
    for (const method of httpMethods) if (isJsonObject(item[method])) found.push(...(serversOf(item[method]) ?? []));
  }
  return found;
}

/** The server variables (`base_url`, `base_url_alt`), in the order the contract first names them. */
export function serverVariableNames(doc: JsonObject): string[] {
  return [
    ...new Set(
      allServers(doc)
        .map(serverVariable)
        .filter((name) => name !== ''),
    ),
  ];
}

/** The default of a server variable, wherever a server declares it; undefined when none does. */
export function serverVariableDefault(doc: JsonObject, name: string): string | undefined {
  return allServers(doc)
    .map((server) => server.variables?.[name]?.default)
    .find((value) => typeof value === 'string' && value !== '');
}

/** Where an operation is in the contract: `/paths/~1charge~1{id}/get`. */
export function operationPointer(op: Pick<ContractOperation, 'method' | 'path'>): string {
  return `/paths/${escapeToken(op.path)}/${op.method}`;
}

/** Where the schema of an operation's JSON request body is in the contract; undefined when it takes no body. */
export function requestBodySchemaPointer(doc: JsonObject, op: ContractOperation): string | undefined {
  const body = deref<JsonObject | undefined>(doc, op.operation.requestBody);
  return body ? `${operationPointer(op)}/requestBody/content/application~1json/schema` : undefined;
}

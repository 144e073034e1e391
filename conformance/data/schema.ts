import { deref, resolvePointer, type ContractOperation, isJsonObject as isPlainObject, type JsonObject } from '../../lib/contract/bundled.js';
import { decisionOf } from './decision.js';
import { toPointer } from '../../lib/contract/pointer.js';

/**
 * Reading request schemas of the bundled contract the way the data generators need them:
 * a schema with its `$ref` targets and `allOf` members flattened into one list of parts
 * (all of which apply), each part remembering the decision it rests on when it was reached
 * through a decided keyword (`x-decided: {allOf: Dnn}`) or is a decision as a whole
 * (`x-decision`). Nothing here knows a field name: everything comes from the contract.
 */

export interface SchemaPart {
  schema: JsonObject;
  /** The decision every keyword of this part rests on, if the part is reached through one. */
  decision?: string;
}

export interface SchemaView {
  parts: SchemaPart[];
}

export { isPlainObject };

/** The view of one schema: itself, its `$ref` target and its `allOf` members, recursively. */
export function viewOf(doc: JsonObject, schema: unknown, inherited?: string): SchemaView {
  const parts: SchemaPart[] = [];
  const seen = new Set<unknown>();
  const collect = (node: unknown, decision: string | undefined, depth: number): void => {
    if (!isPlainObject(node) || seen.has(node) || depth > 20) return;
    seen.add(node);
    const own = typeof node['x-decision'] === 'string' ? node['x-decision'] : decision;
    parts.push({ schema: node, ...(own ? { decision: own } : {}) });
    if (typeof node.$ref === 'string') collect(deref(doc, { $ref: node.$ref }), decisionOf(node, '$ref') ?? own, depth + 1);
    if (Array.isArray(node.allOf)) for (const member of node.allOf) collect(member, decisionOf(node, 'allOf') ?? own, depth + 1);
  };
  collect(schema, inherited, 0);
  return { parts };
}

/** The first part holding `keyword`, with the decision that keyword rests on (if any). */
export function keywordOf(view: SchemaView, keyword: string): { value: unknown; part: SchemaPart; decision?: string } | undefined {
  for (const part of view.parts) {
    if (part.schema[keyword] !== undefined) {
      const decision = decisionOf(part.schema, keyword) ?? part.decision;
      return { value: part.schema[keyword], part, ...(decision ? { decision } : {}) };
    }
  }
  return undefined;
}

/** The JSON types the view allows (from `type`), empty when no part names one. */
export function typesOf(view: SchemaView): string[] {
  const type = keywordOf(view, 'type')?.value;
  return Array.isArray(type) ? type.map(String) : typeof type === 'string' ? [type] : [];
}

/**
 * What propertiesOf and itemsOf found for a view, kept with it: a view reached from an
 * operation's view (contract-view.ts) is read once per run, its properties' views the same
 * objects every time.
 */
const propertiesKept = new WeakMap<SchemaView, ReadonlyMap<string, SchemaView>>();
const itemsKept = new WeakMap<SchemaView, { items: SchemaView | undefined }>();

/** The properties of an object view, in the contract's order, each as a view. */
export function propertiesOf(doc: JsonObject, view: SchemaView): ReadonlyMap<string, SchemaView> {
  const kept = propertiesKept.get(view);
  if (kept) return kept;
  const result = new Map<string, SchemaView>();
  for (const part of view.parts) {
    const properties = part.schema.properties;
    if (!isPlainObject(properties)) continue;
    const decision = decisionOf(part.schema, 'properties') ?? part.decision;
    for (const [name, schema] of Object.entries(properties)) {
      const sub = viewOf(doc, schema, decision);
      const existing = result.get(name);
      result.set(name, existing ? { parts: [...existing.parts, ...sub.parts] } : sub);
    }
  }
  propertiesKept.set(view, result);
  return result;
}

/** Required property names of an object view, each with the decision that requires it (if any). */
export function requiredOf(view: SchemaView): Map<string, string | undefined> {
  const result = new Map<string, string | undefined>();
  for (const part of view.parts) {
    if (!Array.isArray(part.schema.required)) continue;
    for (const name of part.schema.required) {
      if (!result.has(String(name))) result.set(String(name), decisionOf(part.schema, 'required') ?? part.decision);
    }
  }
  return result;
}

/** The view of the items of an array view. */
export function itemsOf(doc: JsonObject, view: SchemaView): SchemaView | undefined {
  const kept = itemsKept.get(view);
  if (kept) return kept.items;
  const found = keywordOf(view, 'items');
  const items = found && isPlainObject(found.value) ? viewOf(doc, found.value, found.decision) : undefined;
  itemsKept.set(view, { items });
  return items;
}

/** Whether a property view is marked deprecated (not worth sending in a valid body). */
export function isDeprecated(view: SchemaView): boolean {
  return view.parts.some((part) => part.schema.deprecated === true);
}

export { toPointer } from '../../lib/contract/pointer.js';

import { operationPointer } from '../../lib/contract/responses.js';
export { operationPointer };

export interface RequestBodyInfo {
  /** Pointer of the request body's schema in the contract (valid in the seed view too). */
  pointer: string;
  mediaType: string;
  schema: unknown;
  /** The contract's request examples, by name, in document order. */
  examples: Array<{ name: string; value: unknown }>;
}

/** The JSON request body of an operation, or undefined when it takes none. */
export function requestBodyOf(doc: JsonObject, op: ContractOperation): RequestBodyInfo | undefined {
  let pointer = `${operationPointer(op)}/requestBody`;
  let requestBody = op.operation.requestBody;
  if (isPlainObject(requestBody) && typeof requestBody.$ref === 'string') {
    pointer = requestBody.$ref.slice(1);
    requestBody = resolvePointer(doc, pointer);
  }
  if (!isPlainObject(requestBody) || !isPlainObject(requestBody.content)) return undefined;
  const mediaType = Object.keys(requestBody.content).find((type) => /^application\/(?:[\w.+-]+\+)?json$/.test(type));
  if (!mediaType) return undefined;
  const content = requestBody.content[mediaType] as JsonObject;
  const examples: Array<{ name: string; value: unknown }> = [];
  if (isPlainObject(content.examples)) {
    for (const [name, raw] of Object.entries(content.examples)) {
      const example = deref<JsonObject>(doc, raw);
      if (isPlainObject(example) && example.value !== undefined) examples.push({ name, value: structuredClone(example.value) });
    }
  } else if (content.example !== undefined) {
    examples.push({ name: 'example', value: structuredClone(content.example) });
  }
  return { pointer: `${pointer}/content${toPointer([mediaType])}/schema`, mediaType, schema: content.schema, examples };
}

export interface HeaderParameter {
  name: string;
  required: boolean;
  /** Pointer of the parameter's schema in the contract. */
  pointer: string;
  schema: unknown;
  /** The parameter object itself (for its `x-decision` / `x-decided` marks). */
  parameter: JsonObject;
  example?: unknown;
}

/** A query parameter: read off the contract as a header parameter is. */
export type QueryParameter = HeaderParameter;

/** The header parameters of an operation (path-item level ones included), with their schema pointers. */
export function headerParametersOf(doc: JsonObject, op: ContractOperation): HeaderParameter[] {
  return parametersIn(doc, op, 'header');
}

/** The query parameters of an operation (path-item level ones included), with their schema pointers. */
export function queryParametersOf(doc: JsonObject, op: ContractOperation): QueryParameter[] {
  return parametersIn(doc, op, 'query');
}

function parametersIn(doc: JsonObject, op: ContractOperation, location: 'header' | 'query'): HeaderParameter[] {
  const result: HeaderParameter[] = [];
  const pathItem = deref<JsonObject>(doc, (doc.paths as JsonObject)[op.path]);
  const lists: Array<[unknown, string]> = [
    [pathItem.parameters, `${toPointer(['paths', op.path])}/parameters`],
    [op.operation.parameters, `${operationPointer(op)}/parameters`],
  ];
  for (const [list, base] of lists) {
    if (!Array.isArray(list)) continue;
    list.forEach((raw, index) => {
      const ref = isPlainObject(raw) && typeof raw.$ref === 'string' ? raw.$ref.slice(1) : undefined;
      const parameter = deref<JsonObject>(doc, raw);
      if (!isPlainObject(parameter) || parameter.in !== location) return;
      const examples = isPlainObject(parameter.schema) && Array.isArray(parameter.schema.examples) ? parameter.schema.examples : [];
      const example = parameter.example ?? examples[0];
      result.push({
        name: String(parameter.name),
        required: parameter.required === true,
        pointer: `${ref ?? `${base}/${index}`}/schema`,
        schema: parameter.schema,
        parameter,
        ...(example !== undefined ? { example } : {}),
      });
    });
  }
  return result;
}

/**
 * The example values of an operation's path parameters (path-item and operation level), as
 * strings by name: the parameter's `example`, else its schema's first `examples` / `example`.
 */
export function pathParameterExamples(doc: JsonObject, op: ContractOperation): Record<string, string> {
  const params: Record<string, string> = {};
  const pathItem = deref<JsonObject>(doc, (doc.paths as JsonObject)[op.path]);
  const all = [...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []), ...(Array.isArray(op.operation.parameters) ? op.operation.parameters : [])];
  for (const raw of all) {
    const parameter = deref<JsonObject>(doc, raw);
    if (!isPlainObject(parameter) || parameter.in !== 'path' || typeof parameter.name !== 'string') continue;
    const schema = deref<JsonObject>(doc, parameter.schema);
    const value = parameter.example ?? (isPlainObject(schema) ? (Array.isArray(schema.examples) ? schema.examples[0] : schema.example) : undefined);
    if (value !== undefined) params[parameter.name] = String(value);
  }
  return params;
}

/**
 * A plausible value the schema itself offers: its `examples`, `example`, `const`, `enum`
 * or `default` (in the order of the view's parts, the property's own schema first), else
 * one built from its type and limits. Objects get their required properties only.
 */
export function sampleValue(doc: JsonObject, view: SchemaView, depth = 0): unknown {
  for (const part of view.parts) {
    const s = part.schema;
    if (Array.isArray(s.examples) && s.examples.length > 0) return structuredClone(s.examples[0]);
    if (s.example !== undefined) return structuredClone(s.example);
    if (s.const !== undefined) return structuredClone(s.const);
    if (Array.isArray(s.enum) && s.enum.length > 0) return structuredClone(s.enum[0]);
    if (s.default !== undefined) return structuredClone(s.default);
  }
  if (depth > 6) return undefined;
  const type = typesOf(view)[0];
  const min = keywordOf(view, 'minimum')?.value;
  switch (type) {
    case 'object': {
      const object: JsonObject = {};
      const properties = propertiesOf(doc, view);
      for (const name of requiredOf(view).keys()) {
        const property = properties.get(name);
        const value = property ? sampleValue(doc, property, depth + 1) : undefined;
        if (value !== undefined) object[name] = value;
      }
      return object;
    }
    case 'array': {
      const items = itemsOf(doc, view);
      const value = items ? sampleValue(doc, items, depth + 1) : undefined;
      const count = Math.max(Number(keywordOf(view, 'minItems')?.value ?? 1), 1);
      return value === undefined ? [] : Array.from({ length: count }, () => structuredClone(value));
    }
    case 'string':
      return 'x'.repeat(Math.max(Number(keywordOf(view, 'minLength')?.value ?? 1), 1));
    case 'integer':
    case 'number':
      return typeof min === 'number' ? Math.ceil(min) + 1 : 1;
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}

/** Reads a value at a path of keys. */
export function getAt(root: unknown, path: readonly string[]): unknown {
  let current = root;
  for (const key of path) {
    if (Array.isArray(current)) current = current[Number(key)];
    else if (isPlainObject(current)) current = current[key];
    else return undefined;
  }
  return current;
}

/** A copy of `root` with the value at `path` replaced (or removed when `value` is undefined). */
export function withAt(root: unknown, path: readonly string[], value: unknown): unknown {
  const copy = structuredClone(root);
  if (path.length === 0) return value;
  const parent = getAt(copy, path.slice(0, -1));
  const key = path[path.length - 1]!;
  if (Array.isArray(parent)) {
    if (value === undefined) parent.splice(Number(key), 1);
    else parent[Number(key)] = value;
  } else if (isPlainObject(parent)) {
    if (value === undefined) delete parent[key];
    else parent[key] = value;
  }
  return copy;
}

/** A deep copy of `value` with every string value equal to a key of `replacements` replaced. */
export function replaceValues(value: unknown, replacements: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return replacements.get(value) ?? value;
  if (Array.isArray(value)) return value.map((v) => replaceValues(v, replacements));
  if (isPlainObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaceValues(v, replacements)]));
  return value;
}

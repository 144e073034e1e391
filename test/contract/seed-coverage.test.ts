/**
 * Seed-coverage test: every operation and every field the seed document lists
 * (transcribed in ./seed-coverage.yaml) must be present, with a compatible type and
 * the seed's constraints, in the bundled contract (generated/openapi.yaml).
 *
 * Operations are found by method + path, never by component names. The schema walker
 * understands `$ref` (also with sibling keywords), `allOf` (merged), `oneOf`/`anyOf`
 * (null branches dropped; every remaining branch must satisfy the row), `items`, and
 * `type` given as a string or an array.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import {
  deref,
  listOperations,
  loadBundledContract,
  operationServers,
  type ContractOperation,
  isJsonObject as isObject,
  type JsonObject,
} from '../../lib/contract/bundled.js';
import { flattenFields, seedTypes, table, type FieldRow, type OperationRow, type ParamRow, type SeedTable, type SeedType } from './seed-table.js';

// ---------------------------------------------------------------------------------------------
// Table
// ---------------------------------------------------------------------------------------------

const fieldKeys = new Set<string>([
  'at',
  'type',
  'required',
  'enum',
  'enum_if_declared',
  'enum_if_declared_includes',
  'pattern',
  'maxLength',
  'minimum',
  'format',
  'default',
  'prefix',
  'unit',
]);
const operationKeys = new Set<string>(['seed', 'method', 'path', 'server', 'api_key', 'success', 'request_body', 'headers', 'path_params', 'body', 'response']);

// ---------------------------------------------------------------------------------------------
// Location parsing: `data.items[].product.sku`, `[].taxId`, `events[]`
// ---------------------------------------------------------------------------------------------

type Step = { kind: 'prop'; name: string } | { kind: 'items' };

function parseLocation(at: string): Step[] {
  const steps: Step[] = [];
  for (const token of at.split('.')) {
    const match = /^([^[\]]*)((?:\[\])*)$/.exec(token);
    if (!match) throw new Error(`Bad location token "${token}" in "${at}"`);
    const name = match[1] ?? '';
    const brackets = (match[2] ?? '').length / 2;
    if (name) steps.push({ kind: 'prop', name });
    else if (brackets === 0) throw new Error(`Empty location token in "${at}"`);
    for (let i = 0; i < brackets; i += 1) steps.push({ kind: 'items' });
  }
  return steps;
}

// ---------------------------------------------------------------------------------------------
// Schema normalisation: a schema becomes a list of alternatives ("flat" schemas); allOf is
// merged into each alternative, non-null oneOf/anyOf branches become separate alternatives.
// ---------------------------------------------------------------------------------------------

interface Flat {
  /** Declared JSON types; undefined = no `type` keyword anywhere. */
  types: Set<string> | undefined;
  properties: Map<string, unknown[]>;
  required: Set<string>;
  items: unknown[];
  enums: unknown[][];
  formats: Set<string>;
  patterns: Set<string>;
  maxLength: number[];
  minimum: number[];
  defaults: unknown[];
  descriptions: string[];
  examples: unknown[];
}

function emptyFlat(): Flat {
  return {
    types: undefined,
    properties: new Map(),
    required: new Set(),
    items: [],
    enums: [],
    formats: new Set(),
    patterns: new Set(),
    maxLength: [],
    minimum: [],
    defaults: [],
    descriptions: [],
    examples: [],
  };
}

/** The keywords of one schema object itself (no composition, no $ref). */
function ownKeywords(schema: JsonObject): Flat {
  const flat = emptyFlat();
  if (typeof schema.type === 'string') flat.types = new Set([schema.type]);
  else if (Array.isArray(schema.type)) flat.types = new Set(schema.type.map(String));
  if (schema.nullable === true && flat.types) flat.types.add('null'); // OpenAPI 3.0 style
  if (isObject(schema.properties)) {
    for (const [name, sub] of Object.entries(schema.properties)) flat.properties.set(name, [sub]);
  }
  if (Array.isArray(schema.required)) for (const name of schema.required) flat.required.add(String(name));
  if (schema.items !== undefined && typeof schema.items !== 'boolean') flat.items.push(schema.items);
  if (Array.isArray(schema.enum)) flat.enums.push(schema.enum);
  if ('const' in schema) flat.enums.push([schema.const]);
  if (typeof schema.format === 'string') flat.formats.add(schema.format);
  if (typeof schema.pattern === 'string') flat.patterns.add(schema.pattern);
  if (typeof schema.maxLength === 'number') flat.maxLength.push(schema.maxLength);
  if (typeof schema.minimum === 'number') flat.minimum.push(schema.minimum);
  if ('default' in schema) flat.defaults.push(schema.default);
  if (typeof schema.description === 'string') flat.descriptions.push(schema.description);
  if (typeof schema.title === 'string') flat.descriptions.push(schema.title);
  if ('example' in schema) flat.examples.push(schema.example);
  if (Array.isArray(schema.examples)) flat.examples.push(...schema.examples);
  return flat;
}

function intersectTypes(a: Set<string>, b: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const t of a) {
    if (b.has(t)) out.add(t);
    else if (t === 'integer' && b.has('number')) out.add('integer');
    else if (t === 'number' && b.has('integer')) out.add('integer');
  }
  return out;
}

function merge(a: Flat, b: Flat): Flat {
  const properties = new Map(a.properties);
  for (const [name, subs] of b.properties) properties.set(name, [...(properties.get(name) ?? []), ...subs]);
  return {
    types: a.types && b.types ? intersectTypes(a.types, b.types) : (a.types ?? b.types),
    properties,
    required: new Set([...a.required, ...b.required]),
    items: [...a.items, ...b.items],
    enums: [...a.enums, ...b.enums],
    formats: new Set([...a.formats, ...b.formats]),
    patterns: new Set([...a.patterns, ...b.patterns]),
    maxLength: [...a.maxLength, ...b.maxLength],
    minimum: [...a.minimum, ...b.minimum],
    defaults: [...a.defaults, ...b.defaults],
    descriptions: [...a.descriptions, ...b.descriptions],
    examples: [...a.examples, ...b.examples],
  };
}

function cross(as: Flat[], bs: Flat[]): Flat[] {
  return as.flatMap((a) => bs.map((b) => merge(a, b)));
}

function isNullOnly(flat: Flat): boolean {
  if (flat.types && flat.types.size > 0 && [...flat.types].every((t) => t === 'null')) return true;
  return flat.enums.some((values) => values.length > 0 && values.every((v) => v === null));
}

/** Normalises a (possibly referencing / composed) schema into its alternatives. */
function normalize(doc: JsonObject, raw: unknown, depth = 0): Flat[] {
  if (depth > 64) throw new Error('Schema nesting too deep (reference cycle through allOf/oneOf/anyOf?)');
  if (!isObject(raw)) return [emptyFlat()];
  let alts: Flat[] = [ownKeywords(raw)];
  if (typeof raw.$ref === 'string') {
    // OpenAPI 3.1 allows keywords next to $ref: treat the target as one more allOf member.
    alts = cross(alts, normalize(doc, deref(doc, { $ref: raw.$ref }), depth + 1));
  }
  if (Array.isArray(raw.allOf)) {
    for (const member of raw.allOf) alts = cross(alts, normalize(doc, member, depth + 1));
  }
  for (const key of ['oneOf', 'anyOf'] as const) {
    const members = raw[key];
    if (!Array.isArray(members)) continue;
    const branches = members.flatMap((member) => normalize(doc, member, depth + 1));
    const nonNull = branches.filter((b) => !isNullOnly(b));
    alts = cross(alts, nonNull.length > 0 ? nonNull : branches);
  }
  return alts;
}

/** Effective enum of an alternative (intersection of all declared enums, nulls dropped), or undefined. */
function effectiveEnum(flat: Flat): unknown[] | undefined {
  if (flat.enums.length === 0) return undefined;
  let values = flat.enums[0] ?? [];
  for (const other of flat.enums.slice(1)) values = values.filter((v) => other.includes(v));
  return values.filter((v) => v !== null);
}

function nonNullTypes(flat: Flat): string[] | undefined {
  return flat.types ? [...flat.types].filter((t) => t !== 'null').sort() : undefined;
}

// ---------------------------------------------------------------------------------------------
// Walking a location
// ---------------------------------------------------------------------------------------------

interface WalkResult {
  problems: string[];
  /** Alternatives of the object holding the last property (empty for an `[]` last step). */
  parents: Flat[];
  /** Alternatives of the schema at the location. */
  node: Flat[];
}

function walk(doc: JsonObject, root: unknown, steps: Step[]): WalkResult {
  let current = normalize(doc, root);
  let parents: Flat[] = [];
  let where = '(root)';
  for (const step of steps) {
    const next: Flat[] = [];
    if (step.kind === 'prop') {
      where = where === '(root)' ? step.name : `${where}.${step.name}`;
      for (const alt of current) {
        const subs = alt.properties.get(step.name);
        if (!subs) {
          const known = [...alt.properties.keys()].join(', ') || 'none';
          return { problems: [`property "${where}" is missing (properties there: ${known})`], parents: [], node: [] };
        }
        let merged: Flat[] = [emptyFlat()];
        for (const sub of subs) merged = cross(merged, normalize(doc, sub));
        next.push(...merged);
      }
      parents = current;
    } else {
      where = `${where === '(root)' ? '' : where}[]`;
      for (const alt of current) {
        if (alt.items.length === 0) {
          return { problems: [`"${where}": no array items schema (type: ${describeTypes(alt)})`], parents: [], node: [] };
        }
        let merged: Flat[] = [emptyFlat()];
        for (const sub of alt.items) merged = cross(merged, normalize(doc, sub));
        next.push(...merged);
      }
      parents = [];
    }
    current = next;
  }
  return { problems: [], parents, node: current };
}

function describeTypes(flat: Flat): string {
  return flat.types ? JSON.stringify([...flat.types]) : 'not declared';
}

// ---------------------------------------------------------------------------------------------
// Field checks
// ---------------------------------------------------------------------------------------------

const typeAllowed: Record<SeedType, readonly string[]> = {
  string: ['string'],
  'date-time': ['string'],
  enum: ['string'],
  number: ['number', 'integer'],
  boolean: ['boolean'],
  object: ['object'],
  array: ['array'],
};

const sameSet = (a: readonly unknown[], b: readonly unknown[]) => a.length === b.length && a.every((v) => b.includes(v)) && b.every((v) => a.includes(v));

const cuid2Sample = 'tz4a98xxat96iws9zmbrgj3a';

/** Checks one field row against a schema; returns the problems found (empty = conforms). */
function checkField(doc: JsonObject, root: unknown, row: FieldRow): string[] {
  const steps = parseLocation(row.at);
  const { problems, parents, node } = walk(doc, root, steps);
  if (problems.length > 0) return problems;
  const out = new Set<string>();
  const last = steps[steps.length - 1];

  if (row.required !== undefined && last?.kind === 'prop') {
    // Unconditionally required = required in every alternative (an `anyOf` of `required`
    // lists, e.g. "total or items", makes neither field required on its own).
    const isRequired = parents.length > 0 && parents.every((parent) => parent.required.has(last.name));
    if (row.required && !isRequired) out.add(`"${row.at}" is not in "required" (seed: required)`);
    if (!row.required && isRequired) out.add(`"${row.at}" is in "required" (seed: not required)`);
  }

  for (const flat of node) {
    if (row.type) {
      const declared = nonNullTypes(flat);
      const allowed = typeAllowed[row.type];
      if (declared === undefined) {
        if (!(row.type === 'enum' && flat.enums.length > 0)) out.add(`"${row.at}": no type declared (seed: ${row.type})`);
      } else if (declared.length === 0 || !declared.every((t) => allowed.includes(t))) {
        out.add(`"${row.at}": type ${JSON.stringify(declared)} is not compatible with seed type ${row.type} (allowed: ${allowed.join(' | ')})`);
      }
      if (row.type === 'date-time' && !flat.formats.has('date-time')) {
        out.add(`"${row.at}": format ${JSON.stringify([...flat.formats])}, seed: date-time`);
      }
    }
    if (row.format && !flat.formats.has(row.format)) {
      out.add(`"${row.at}": format ${JSON.stringify([...flat.formats])}, seed: ${row.format}`);
    }

    const values = effectiveEnum(flat);
    if (row.enum) {
      if (!values) out.add(`"${row.at}": no enum declared (seed: ${row.enum.join(', ')})`);
      else if (!sameSet(values, row.enum)) out.add(enumMismatch(row.at, values, row.enum));
      if (values && !values.every((v) => typeof v === 'string')) out.add(`"${row.at}": enum values must be strings`);
    }
    if (row.enum_if_declared && values && !sameSet(values, row.enum_if_declared)) {
      out.add(enumMismatch(row.at, values, row.enum_if_declared));
    }
    if (row.enum_if_declared_includes && values) {
      const missing = row.enum_if_declared_includes.filter((v) => !values.includes(v));
      if (missing.length > 0) out.add(`"${row.at}": declared enum ${JSON.stringify(values)} lacks seed value(s) ${missing.join(', ')}`);
    }

    if (row.pattern !== undefined) {
      const patterns = [...flat.patterns];
      if (!(patterns.length === 1 && patterns[0] === row.pattern)) {
        out.add(`"${row.at}": pattern ${JSON.stringify(patterns)}, seed: ${JSON.stringify(row.pattern)}`);
      }
    }
    if (row.maxLength !== undefined && !(flat.maxLength.length > 0 && Math.min(...flat.maxLength) === row.maxLength)) {
      out.add(`"${row.at}": maxLength ${JSON.stringify(flat.maxLength)}, seed: ${row.maxLength}`);
    }
    if (row.minimum !== undefined && !(flat.minimum.length > 0 && Math.max(...flat.minimum) === row.minimum)) {
      out.add(`"${row.at}": minimum ${JSON.stringify(flat.minimum)}, seed: ${row.minimum}`);
    }
    if (row.default !== undefined && !(flat.defaults.length > 0 && flat.defaults.every((d) => d === row.default))) {
      out.add(`"${row.at}": default ${JSON.stringify(flat.defaults)}, seed: ${JSON.stringify(row.default)}`);
    }
    if (row.prefix !== undefined) {
      for (const problem of checkPrefix(row.at, flat, row.prefix)) out.add(problem);
    }
    if (row.unit === 'cents' && !flat.descriptions.some((d) => /\bcents?\b|centavos?/i.test(d))) {
      out.add(`"${row.at}": description does not state the unit (seed: cents)`);
    }
  }
  return [...out];
}

function enumMismatch(at: string, actual: unknown[], seed: string[]): string {
  const extra = actual.filter((v) => !seed.includes(v as string));
  const missing = seed.filter((v) => !actual.includes(v));
  return (
    `"${at}": enum ${JSON.stringify(actual)} differs from seed ${JSON.stringify(seed)}` +
    (extra.length ? `; not in seed: ${extra.join(', ')}` : '') +
    (missing.length ? `; missing: ${missing.join(', ')}` : '')
  );
}

function checkPrefix(at: string, flat: Flat, prefix: string): string[] {
  const problems: string[] = [];
  const badExamples = flat.examples.filter((e) => typeof e === 'string' && !e.startsWith(prefix));
  if (badExamples.length > 0) problems.push(`"${at}": example(s) ${JSON.stringify(badExamples)} lack the seed prefix ${prefix}`);
  if (flat.patterns.size > 0) {
    for (const pattern of flat.patterns) {
      let re: RegExp;
      try {
        re = new RegExp(pattern, 'u');
      } catch {
        problems.push(`"${at}": pattern ${JSON.stringify(pattern)} is not a valid regular expression`);
        continue;
      }
      if (!re.test(`${prefix}${cuid2Sample}`)) problems.push(`"${at}": pattern ${JSON.stringify(pattern)} rejects ${prefix}${cuid2Sample}`);
      if (re.test(cuid2Sample) || re.test(`xxxx_${cuid2Sample}`)) {
        problems.push(`"${at}": pattern ${JSON.stringify(pattern)} does not enforce the seed prefix ${prefix}`);
      }
    }
  } else {
    const documented = flat.descriptions.some((d) => d.includes(prefix)) || flat.examples.some((e) => typeof e === 'string' && e.startsWith(prefix));
    if (!documented) problems.push(`"${at}": neither a pattern, a description nor an example shows the seed prefix ${prefix}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Operation-level lookups and checks
// ---------------------------------------------------------------------------------------------

function findOperation(doc: JsonObject, row: OperationRow): ContractOperation {
  const method = row.method.toLowerCase();
  const found = listOperations(doc).filter((op) => op.method === method && op.path === row.path);
  if (found.length !== 1) {
    const available = listOperations(doc)
      .map((op) => `${op.method.toUpperCase()} ${op.path}`)
      .join(', ');
    throw new Error(`${row.method} ${row.path}: expected exactly one operation, found ${found.length} (contract has: ${available || 'none'})`);
  }
  return found[0] as ContractOperation;
}

function pathItem(doc: JsonObject, path: string): JsonObject {
  return deref(doc, (doc.paths as JsonObject | undefined)?.[path]) ?? {};
}

function parameters(doc: JsonObject, row: OperationRow, op: ContractOperation): JsonObject[] {
  const fromItem = (pathItem(doc, row.path).parameters ?? []) as unknown[];
  const fromOp = (op.operation.parameters ?? []) as unknown[];
  const resolved = [...fromItem, ...fromOp].map((p) => deref(doc, p));
  // Operation-level parameters override path-level ones with the same name + location.
  const byKey = new Map<string, JsonObject>();
  for (const p of resolved) byKey.set(`${String(p.in)}:${String(p.name).toLowerCase()}`, p);
  return [...byKey.values()];
}

function checkParam(doc: JsonObject, row: OperationRow, op: ContractOperation, location: 'header' | 'path', want: ParamRow): string[] {
  const problems: string[] = [];
  const param = parameters(doc, row, op).find((p) => p.in === location && String(p.name).toLowerCase() === want.name.toLowerCase());
  if (!param) return [`${location} parameter "${want.name}" is missing`];
  if (location === 'path' && param.name !== want.name) problems.push(`path parameter is named "${String(param.name)}", seed: "${want.name}"`);
  if (Boolean(param.required) !== want.required)
    problems.push(`${location} parameter "${want.name}" required=${String(param.required ?? false)}, seed: ${want.required}`);
  for (const flat of normalize(doc, param.schema)) {
    const types = nonNullTypes(flat);
    if (!types || !(types.length === 1 && types[0] === want.type)) {
      problems.push(`${location} parameter "${want.name}" type ${JSON.stringify(types ?? 'not declared')}, seed: ${want.type}`);
    }
  }
  return problems;
}

/** The URL the operation is served on, as OpenAPI reads it: the operation's server, else its path's, else the contract's. */
function effectiveServerUrl(doc: JsonObject, op: ContractOperation): string | undefined {
  return operationServers(doc, op)[0]?.url;
}

function checkSecurity(doc: JsonObject, op: ContractOperation): string[] {
  const security = (op.operation.security ?? doc.security) as Array<Record<string, unknown>> | undefined;
  if (!Array.isArray(security) || security.length === 0) return ['no security requirement applies (seed: X-API-KEY required)'];
  const schemes = ((doc.components as JsonObject | undefined)?.securitySchemes ?? {}) as Record<string, unknown>;
  const problems: string[] = [];
  for (const requirement of security) {
    const names = Object.keys(requirement ?? {});
    if (names.length === 0) problems.push('security contains an empty requirement {} (makes the API key optional)');
    const ok = names.some((name) => {
      const scheme = deref(doc, schemes[name]) as JsonObject | undefined;
      return scheme?.type === 'apiKey' && scheme.in === 'header' && String(scheme.name).toUpperCase() === 'X-API-KEY';
    });
    if (names.length > 0 && !ok) problems.push(`security requirement {${names.join(', ')}} has no apiKey scheme in header X-API-KEY`);
  }
  return problems;
}

interface SuccessResponse {
  code: string;
  schema: unknown;
}

function successResponse(doc: JsonObject, row: OperationRow, op: ContractOperation): SuccessResponse {
  const responses = (op.operation.responses ?? {}) as JsonObject;
  const codes =
    row.success === 'unknown'
      ? Object.keys(responses)
          .filter((c) => /^2(\d\d|XX)$/i.test(c))
          .sort()
      : Object.keys(responses).filter((c) => c === String(row.success));
  if (codes.length === 0) {
    throw new Error(
      `${row.method} ${row.path}: no ${row.success === 'unknown' ? '2xx' : row.success} response (contract has: ${Object.keys(responses).join(', ') || 'none'})`,
    );
  }
  for (const code of codes) {
    const response = deref(doc, responses[code]);
    const media = ((response.content ?? {}) as JsonObject)['application/json'] as JsonObject | undefined;
    if (media?.schema !== undefined) return { code, schema: media.schema };
  }
  throw new Error(`${row.method} ${row.path}: success response ${codes.join('/')} has no application/json schema`);
}

function requestSchema(doc: JsonObject, row: OperationRow, op: ContractOperation): unknown {
  if (op.operation.requestBody === undefined) throw new Error(`${row.method} ${row.path}: no requestBody`);
  const body = deref(doc, op.operation.requestBody);
  const media = ((body.content ?? {}) as JsonObject)['application/json'] as JsonObject | undefined;
  if (media?.schema === undefined) throw new Error(`${row.method} ${row.path}: requestBody has no application/json schema`);
  return media.schema;
}

function rootTypeProblems(doc: JsonObject, schema: unknown, want: 'object' | 'array', what: string): string[] {
  const problems: string[] = [];
  for (const flat of normalize(doc, schema)) {
    const types = nonNullTypes(flat);
    if (!types || !(types.length === 1 && types[0] === want)) problems.push(`${what} type ${JSON.stringify(types ?? 'not declared')}, seed: ${want}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------
// Cases
// ---------------------------------------------------------------------------------------------

type Side = 'body' | 'response';

interface Case {
  given: { op: OperationRow; side?: Side; field?: FieldRow; check: string };
  want: string[];
}

let contract: JsonObject | undefined;
function bundled(): JsonObject {
  contract ??= loadBundledContract();
  return contract;
}

function fieldCheck(doc: JsonObject, op: OperationRow, side: Side, field: FieldRow): string[] {
  const found = findOperation(doc, op);
  const root = side === 'body' ? requestSchema(doc, op, found) : successResponse(doc, op, found).schema;
  return checkField(doc, root, field);
}

const operationChecks: Record<string, (doc: JsonObject, op: OperationRow) => string[]> = {
  exists: (doc, op) => {
    const found = findOperation(doc, op);
    return found.method === op.method.toLowerCase() && found.path === op.path ? [] : ['operation mismatch'];
  },
  server: (doc, op) => {
    const found = findOperation(doc, op);
    const url = effectiveServerUrl(doc, found);
    const problems: string[] = [];
    if (found.server !== op.server) problems.push(`served under "${found.server}", seed: "${op.server}"`);
    if (url !== `{${op.server}}`) problems.push(`servers[0].url is ${JSON.stringify(url)}, seed: "{${op.server}}"`);
    return problems;
  },
  security: (doc, op) => checkSecurity(doc, findOperation(doc, op)),
  success: (doc, op) => {
    const found = findOperation(doc, op);
    const { code, schema } = successResponse(doc, op, found);
    const problems = rootTypeProblems(doc, schema, op.response.root, `success response ${code} body`);
    if (op.success !== 'unknown' && code !== String(op.success)) problems.push(`success code ${code}, seed: ${op.success}`);
    return problems;
  },
  request_body: (doc, op) => {
    const found = findOperation(doc, op);
    if (op.request_body === 'none') {
      return found.operation.requestBody === undefined ? [] : ['has a requestBody (seed: no body)'];
    }
    return rootTypeProblems(doc, requestSchema(doc, op, found), 'object', 'request body');
  },
};

function buildCases(tbl: SeedTable): Array<[string, Case]> {
  const cases: Array<[string, Case]> = [];
  for (const op of tbl.operations) {
    const id = `${op.method} ${op.path}`;
    cases.push([`${id} operation exists`, { given: { op, check: 'exists' }, want: [] }]);
    cases.push([`${id} server {${op.server}}`, { given: { op, check: 'server' }, want: [] }]);
    if (op.api_key === 'required') cases.push([`${id} security X-API-KEY`, { given: { op, check: 'security' }, want: [] }]);
    cases.push([
      `${id} success ${op.success === 'unknown' ? '2xx (code not shown)' : op.success} ${op.response.root}`,
      { given: { op, check: 'success' }, want: [] },
    ]);
    if (op.request_body === 'none' || op.body) {
      cases.push([`${id} request body ${op.request_body === 'none' ? 'absent' : 'object'}`, { given: { op, check: 'request_body' }, want: [] }]);
    }
    for (const header of op.headers ?? []) {
      cases.push([`${id} header ${header.name}`, { given: { op, check: `header:${header.name}` }, want: [] }]);
    }
    for (const param of op.path_params ?? []) {
      cases.push([`${id} path.${param.name}`, { given: { op, check: `path:${param.name}` }, want: [] }]);
    }
    for (const side of ['body', 'response'] as const) {
      const entries = side === 'body' ? (op.body ?? []) : op.response.fields;
      for (const field of flattenFields(entries)) {
        const sep = field.at.startsWith('[') ? '' : '.';
        cases.push([`${id} ${side}${sep}${field.at}`, { given: { op, side, field, check: 'field' }, want: [] }]);
      }
    }
  }
  return cases;
}

function runCase(doc: JsonObject, given: Case['given']): string[] {
  const { op, check } = given;
  if (check === 'field') {
    if (!given.side || !given.field) throw new Error('field case without side/field');
    return fieldCheck(doc, op, given.side, given.field);
  }
  const [kind, name] = check.split(':');
  if ((kind === 'header' || kind === 'path') && name) {
    const list = kind === 'header' ? op.headers : op.path_params;
    const want = list?.find((p) => p.name === name);
    if (!want) throw new Error(`no ${kind} row ${name}`);
    return checkParam(doc, op, findOperation(doc, op), kind, want);
  }
  const fn = operationChecks[check];
  if (!fn) throw new Error(`unknown check ${check}`);
  return fn(doc, op);
}

const cases = buildCases(table);

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

describe('seed-coverage table', () => {
  test('is well formed and covers the nine seed operations', () => {
    const ops = table.operations.map((o) => `${o.method} ${o.path}`);
    expect(ops).toEqual([
      'POST /charge/payment-link',
      'GET /charge/{id}',
      'GET /client',
      'GET /webhook/{id}',
      'POST /subscription',
      'PUT /subscription',
      'POST /product',
      'POST /order',
      'POST /client',
    ]);
    expect(table.operations.map((o) => o.seed)).toEqual(['4.1', '4.2', '4.3', '4.4', '4.5', '4.6', '4.7', '4.8', '4.9']);
    expect(table.operations.filter((o) => o.api_key === 'required').map((o) => o.seed)).toEqual(['4.1', '4.2', '4.3', '4.4']);
    expect(Object.fromEntries(table.operations.map((o) => [`${o.method} ${o.path}`, o.server]))).toMatchObject({
      'GET /client': 'base_url',
      'POST /client': 'base_url_alt',
    });
    expect(table.enums.webhook_event).toEqual(['charge.pending', 'charge.processing', 'charge.paid', 'charge.received', 'charge.expired']);
    for (const op of table.operations) {
      expect(
        Object.keys(op).filter((k) => !operationKeys.has(k)),
        `${op.seed} keys`,
      ).toEqual([]);
      for (const field of [...flattenFields(op.body ?? []), ...flattenFields(op.response.fields)]) {
        expect(
          Object.keys(field).filter((k) => !fieldKeys.has(k)),
          `${op.seed} ${field.at} keys`,
        ).toEqual([]);
        if (field.type !== undefined) expect(seedTypes, `${op.seed} ${field.at} type`).toContain(field.type);
        expect(() => parseLocation(field.at)).not.toThrow();
      }
    }
    const names = cases.map(([name]) => name);
    expect(new Set(names).size, 'test names are unique').toBe(names.length);
  });
});

describe('seed coverage of the bundled contract', () => {
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(runCase(bundled(), given)).toEqual(want);
  });
});

// ---------------------------------------------------------------------------------------------
// Self-tests of the walker: it must be able to fail.
// ---------------------------------------------------------------------------------------------

/** Every raw schema object reachable from `raw` through $ref / allOf / oneOf / anyOf. */
function reachable(doc: JsonObject, raw: unknown, acc: JsonObject[] = []): JsonObject[] {
  if (!isObject(raw) || acc.includes(raw)) return acc;
  acc.push(raw);
  if (typeof raw.$ref === 'string') reachable(doc, deref(doc, { $ref: raw.$ref }), acc);
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const members = raw[key];
    if (Array.isArray(members)) for (const m of members) reachable(doc, m, acc);
  }
  return acc;
}

/** Deletes the property at `at` from every schema object that defines it; returns how many. */
function deleteProperty(doc: JsonObject, root: unknown, at: string): number {
  const steps = parseLocation(at);
  let current: unknown[] = [root];
  let deleted = 0;
  steps.forEach((step, index) => {
    const next: unknown[] = [];
    for (const schema of current.flatMap((s) => reachable(doc, s))) {
      if (step.kind === 'items') {
        if (schema.items !== undefined) next.push(schema.items);
        continue;
      }
      const props = schema.properties;
      if (!isObject(props) || !(step.name in props)) continue;
      if (index === steps.length - 1) {
        delete props[step.name];
        deleted += 1;
      } else {
        next.push(props[step.name]);
      }
    }
    current = next;
  });
  return deleted;
}

const fixture: JsonObject = {
  openapi: '3.1.0',
  components: {
    schemas: {
      Base: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string', pattern: '^clnt_[a-z0-9]{24}$' } },
      },
      Status: { type: 'string', enum: ['ACTIVE', 'INACTIVE'] },
      Item: { type: 'object', properties: { quantity: { type: 'integer' }, sku: { type: ['string', 'null'] } } },
      Thing: {
        allOf: [
          { $ref: '#/components/schemas/Base' },
          {
            type: 'object',
            required: ['status', 'total'],
            anyOf: [{ required: ['price'] }, { required: ['items'] }],
            properties: {
              status: { $ref: '#/components/schemas/Status', description: 'state' },
              total: { type: 'integer', minimum: 500, description: 'Amount in cents.' },
              price: { type: 'string' },
              items: { type: 'array', items: { $ref: '#/components/schemas/Item' } },
              owner: { anyOf: [{ $ref: '#/components/schemas/Base' }, { type: 'null' }] },
              when: { type: 'string', format: 'date-time' },
            },
          },
        ],
      },
    },
  },
};
const thing = { $ref: '#/components/schemas/Thing' };

describe('seed-coverage walker self-test', () => {
  const fixtureCases: Array<[string, { given: FieldRow; want: RegExp | null }]> = [
    ['allOf + $ref property found, required, prefix via pattern', { given: { at: 'id', type: 'string', required: true, prefix: 'clnt_' }, want: null }],
    ['$ref with sibling description, enum exact', { given: { at: 'status', type: 'enum', required: true, enum: ['ACTIVE', 'INACTIVE'] }, want: null }],
    ['integer accepted for seed number, minimum, cents', { given: { at: 'total', type: 'number', minimum: 500, unit: 'cents', required: true }, want: null }],
    ['array items + type array with null', { given: { at: 'items[].sku', type: 'string' }, want: null }],
    ['anyOf with null branch', { given: { at: 'owner.id', type: 'string', required: true }, want: null }],
    ['date-time', { given: { at: 'when', type: 'date-time', required: false }, want: null }],
    ['anyOf of required lists makes neither field required', { given: { at: 'items', type: 'array', required: false }, want: null }],
    [
      'a field required in only one anyOf branch is not required',
      { given: { at: 'items', type: 'array', required: true }, want: /"items" is not in "required"/ },
    ],
    ['missing property fails', { given: { at: 'items[].colour', type: 'string' }, want: /"items\[\]\.colour" is missing/ }],
    ['string where seed says number fails', { given: { at: 'price', type: 'number' }, want: /not compatible with seed type number/ }],
    ['enum with a value the seed does not list fails', { given: { at: 'status', type: 'enum', enum: ['ACTIVE'] }, want: /not in seed: INACTIVE/ }],
    ['enum missing a seed value fails', { given: { at: 'status', type: 'enum', enum: ['ACTIVE', 'INACTIVE', 'BLOCKED'] }, want: /missing: BLOCKED/ }],
    ['missing required flag fails', { given: { at: 'when', type: 'date-time', required: true }, want: /not in "required"/ }],
    ['wrong minimum fails', { given: { at: 'total', type: 'number', minimum: 100 }, want: /minimum \[500\], seed: 100/ }],
    ['wrong prefix fails', { given: { at: 'id', type: 'string', prefix: 'comp_' }, want: /rejects comp_/ }],
    ['missing format fails', { given: { at: 'total', type: 'date-time' }, want: /format \[\], seed: date-time/ }],
  ];

  test.each(fixtureCases)('fixture: %s', (_name, { given, want }) => {
    const problems = checkField(fixture, thing, given);
    if (want === null) expect(problems).toEqual([]);
    else expect(problems.join('\n')).toMatch(want);
  });

  test('deleting a seed field from a clone of the bundled contract makes its check fail', () => {
    const op = table.operations.find((o) => o.method === 'POST' && o.path === '/client');
    expect(op).toBeDefined();
    const row = flattenFields(op?.body ?? []).find((f) => f.at === 'cpfCnpj');
    expect(row).toBeDefined();
    if (!op || !row) return;
    const original = bundled();
    expect(fieldCheck(original, op, 'body', row).join('\n')).not.toMatch(/is missing/);
    const clone = structuredClone(original);
    const root = requestSchema(clone, op, findOperation(clone, op));
    expect(deleteProperty(clone, root, 'cpfCnpj')).toBeGreaterThan(0);
    expect(fieldCheck(clone, op, 'body', row).join('\n')).toMatch(/property "cpfCnpj" is missing/);
    // A nested response field too: orderItems[].product.sku of POST /order.
    const order = table.operations.find((o) => o.method === 'POST' && o.path === '/order');
    const sku = flattenFields(order?.response.fields ?? []).find((f) => f.at === 'orderItems[].product.sku');
    expect(order && sku).toBeTruthy();
    if (!order || !sku) return;
    const responseRoot = successResponse(clone, order, findOperation(clone, order)).schema;
    expect(deleteProperty(clone, responseRoot, 'orderItems[].product.sku')).toBeGreaterThan(0);
    expect(fieldCheck(clone, order, 'response', sku).join('\n')).toMatch(/property "orderItems\[\]\.product\.sku" is missing/);
  });

  test('operation-level checks fail on a clone without Idempotency-Key, API key or path parameter', () => {
    const link = table.operations.find((o) => o.method === 'POST' && o.path === '/charge/payment-link');
    const charge = table.operations.find((o) => o.method === 'GET' && o.path === '/charge/{id}');
    const header = link?.headers?.find((h) => h.name === 'Idempotency-Key');
    const idParam = charge?.path_params?.find((p) => p.name === 'id');
    expect(link && charge && header && idParam).toBeTruthy();
    if (!link || !charge || !header || !idParam) return;
    const clone = structuredClone(bundled());
    const linkOp = findOperation(clone, link);
    linkOp.operation.parameters = [];
    linkOp.operation.security = [{}];
    linkOp.operation.servers = [{ url: '{base_url_alt}' }];
    expect(checkParam(clone, link, linkOp, 'header', header)).toEqual(['header parameter "Idempotency-Key" is missing']);
    expect(checkSecurity(clone, linkOp).join('\n')).toMatch(/empty requirement/);
    expect(operationChecks.server?.(clone, link).join('\n')).toMatch(/servers\[0\]\.url is "\{base_url_alt\}"/);
    const chargeOp = findOperation(clone, charge);
    const item = clone.paths && (clone.paths as JsonObject)[charge.path];
    if (isObject(item)) delete item.parameters;
    chargeOp.operation.parameters = [];
    expect(checkParam(clone, charge, chargeOp, 'path', idParam)).toEqual(['path parameter "id" is missing']);
  });
});

import type { FieldError } from './ajv.js';
import { deref, isJsonObject, listOperations, requestBodySchemaPointer, resolvePointer, type JsonObject } from './bundled.js';
import { toPointer } from './pointer.js';

/**
 * The shape bounds of a JSON request body, checked on its raw text before `JSON.parse` (D49):
 * how deep its arrays and objects may nest, and how many fields one object may have. Parsing is
 * the one step that runs before the linear bounds walk (bounds.ts), and its cost grows with what
 * no schema allows: a megabyte of `[` (500,000 levels) took `JSON.parse` 200–600 ms and a
 * megabyte of unknown fields as long, for a body refused afterwards anyway. This scan reads each
 * character once, keeps nothing but one small entry per level up to the bound, and stops at the
 * first breach, so a refused body costs about a millisecond a megabyte.
 *
 * Both bounds come from the contract: no request body of any operation nests deeper than its
 * deepest schema, and no closed object has more fields than its schema names. A margin above
 * each keeps every body that merely has a few fields too many answered as before, by the walk
 * and the schema, with every failing field listed; only a body far past any schema is refused
 * here, with the place of the breach.
 */
export interface ShapeLimits {
  /** Levels of arrays and objects a body may nest (`{}` is one level, `{"a":[]}` two). */
  maxDepth: number;
  /** Fields one object may have. */
  maxMembers: number;
}

/** Levels above the contract's deepest request body a body may nest before the scan refuses it. */
export const DEPTH_MARGIN = 4;
/** The depth bound where a request schema allows any depth (an open object, a recursive schema). */
export const DEPTH_CEILING = 32;
/** Fields above the contract's largest closed request object one object may have before the scan refuses it. */
export const MEMBERS_MARGIN = 64;
/** The fields bound where a request schema allows any number of fields. */
export const MEMBERS_CEILING = 1024;

/** The shape bounds of every request body of a contract: its deepest and widest schema, plus a margin. */
export function shapeLimits(contract: JsonObject): ShapeLimits {
  const measure = new SchemaMeasure(contract);
  let depth = 0;
  let members = 0;
  for (const op of listOperations(contract)) {
    const pointer = requestBodySchemaPointer(contract, op);
    if (pointer === undefined) continue;
    const schema = resolvePointer(contract, pointer);
    depth = Math.max(depth, measure.depth(schema));
    members = Math.max(members, measure.members(schema));
  }
  return {
    maxDepth: Number.isFinite(depth) ? Math.min(depth + DEPTH_MARGIN, DEPTH_CEILING) : DEPTH_CEILING,
    maxMembers: Number.isFinite(members) ? Math.min(members + MEMBERS_MARGIN, MEMBERS_CEILING) : MEMBERS_CEILING,
  };
}

/** The first breach of a body's shape bounds, as a field error of a validation problem (422). */
export interface ShapeBreach extends FieldError {
  kind: 'depth' | 'members';
  pointer: string;
}

const OBJECT = 1;
const ARRAY = 2;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The first breach of `limits` in the JSON text `text`, or undefined. The text need not be valid
 * JSON (the parser, next, says what is wrong with it); the scan only counts brackets and the
 * colons of objects outside strings.
 */
export function scanJsonShape(text: string, limits: ShapeLimits): ShapeBreach | undefined {
  const { maxDepth, maxMembers } = limits;
  // One entry per open level (1-based): its kind, its fields or commas so far, and where the key
  // being read starts and ends (for the pointer of a breach).
  const kind = new Uint8Array(maxDepth + 2);
  const count = new Int32Array(maxDepth + 2);
  const keyStart = new Int32Array(maxDepth + 2);
  const keyEnd = new Int32Array(maxDepth + 2);
  let depth = 0;
  let expectKey = false;
  const length = text.length;
  for (let i = 0; i < length; i += 1) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i + 1;
      i = closingQuote(text, start);
      if (expectKey) {
        keyStart[depth] = start;
        keyEnd[depth] = i;
        expectKey = false;
      }
      continue;
    }
    switch (c) {
      case 0x7b: // {
      case 0x5b: // [
        depth += 1;
        if (depth > maxDepth) {
          return breach('depth', text, depth, kind, count, keyStart, keyEnd, `nests deeper than the ${maxDepth} levels any request of this API may have`);
        }
        kind[depth] = c === 0x7b ? OBJECT : ARRAY;
        count[depth] = 0;
        expectKey = c === 0x7b;
        break;
      case 0x7d: // }
      case 0x5d: // ]
        if (depth > 0) depth -= 1;
        expectKey = false;
        break;
      case 0x3a: // :
        if (kind[depth] === OBJECT) {
          const members = (count[depth] ?? 0) + 1;
          count[depth] = members;
          if (members > maxMembers) {
            return breach(
              'members',
              text,
              depth,
              kind,
              count,
              keyStart,
              keyEnd,
              `has more than the ${maxMembers} fields any object of a request of this API may have`,
            );
          }
        }
        break;
      case 0x2c: // ,
        if (kind[depth] === OBJECT) expectKey = true;
        else count[depth] = (count[depth] ?? 0) + 1;
        break;
      default:
    }
  }
  return undefined;
}

/** Where the string whose text starts at `start` ends (its closing quote), or the text's length. */
function closingQuote(text: string, start: number): number {
  let at = start;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote < 0) return text.length;
    // A quote after an odd run of backslashes is escaped.
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** The breach at the container open at `level` (1: the body itself), with the pointer to it. */
function breach(
  kind: ShapeBreach['kind'],
  text: string,
  level: number,
  kinds: Uint8Array,
  count: Int32Array,
  keyStart: Int32Array,
  keyEnd: Int32Array,
  words: string,
): ShapeBreach {
  const tokens: Array<string | number> = [];
  for (let l = 1; l < level; l += 1) tokens.push(kinds[l] === ARRAY ? count[l]! : keyOf(text, keyStart[l]!, keyEnd[l]!));
  const pointer = toPointer(tokens);
  return { kind, pointer, keyword: kind === 'depth' ? 'maxDepth' : 'maxProperties', detail: `${pointer === '' ? 'the body' : 'this value'} ${words}` };
}

function keyOf(text: string, start: number, end: number): string {
  const raw = text.slice(start, end);
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

/**
 * How deep and how wide a value valid against a schema can be; Infinity where the schema sets no
 * bound. A value valid against a schema is valid against each of its `allOf` branches and its
 * `$ref` (the smallest of their bounds holds) and against one of its `anyOf`/`oneOf` branches (the
 * largest holds); `if`/`then`, `not` and `dependentSchemas` only narrow what the rest allows.
 */
class SchemaMeasure {
  private readonly memo = { depth: new Map<object, number>(), members: new Map<object, number>() };

  constructor(private readonly contract: JsonObject) {}

  depth(schema: unknown): number {
    return this.measure('depth', schema);
  }

  members(schema: unknown): number {
    return this.measure('members', schema);
  }

  private measure(what: 'depth' | 'members', schema: unknown): number {
    if (schema === false) return 0;
    if (!isJsonObject(schema)) return Number.POSITIVE_INFINITY;
    const memo = this.memo[what];
    const known = memo.get(schema);
    if (known !== undefined) return known;
    // A schema met again while it is measured is recursive: nothing bounds how deep it goes.
    memo.set(schema, Number.POSITIVE_INFINITY);
    const value = this.measureOf(what, schema);
    memo.set(schema, value);
    return value;
  }

  private measureOf(what: 'depth' | 'members', schema: JsonObject): number {
    const all: number[] = [this.own(what, schema)];
    if (typeof schema.$ref === 'string') all.push(this.measure(what, deref(this.contract, { $ref: schema.$ref })));
    if (Array.isArray(schema.allOf)) for (const branch of schema.allOf) all.push(this.measure(what, branch));
    for (const key of ['anyOf', 'oneOf'] as const) {
      const branches = schema[key];
      if (Array.isArray(branches)) all.push(Math.max(0, ...branches.map((b) => this.measure(what, b))));
    }
    return Math.min(...all);
  }

  /** The bound of what the schema's own keywords allow (not its branches). */
  private own(what: 'depth' | 'members', schema: JsonObject): number {
    const types = new Set(Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type]);
    const children: unknown[] = [];
    if (isJsonObject(schema.properties)) children.push(...Object.values(schema.properties));
    if (isJsonObject(schema.patternProperties)) children.push(...Object.values(schema.patternProperties));
    if (isJsonObject(schema.additionalProperties)) children.push(schema.additionalProperties);
    if (schema.items !== undefined) children.push(schema.items);
    if (Array.isArray(schema.prefixItems)) children.push(...schema.prefixItems);
    if (types.size === 0) {
      // No type: bounded only by an enum or const (scalars here), else by nothing of its own.
      return schema.enum !== undefined || schema.const !== undefined ? 0 : Number.POSITIVE_INFINITY;
    }
    const object = types.has('object');
    const array = types.has('array');
    if (!object && !array) return 0;
    // An object that takes fields it does not name takes them of any shape and number.
    const openObject = object && schema.additionalProperties === undefined && schema.patternProperties === undefined;
    const openArray = array && schema.items === undefined && schema.prefixItems === undefined;
    const deepest = Math.max(0, ...children.map((c) => this.measure(what, c)));
    if (what === 'depth') return openObject || openArray ? Number.POSITIVE_INFINITY : 1 + deepest;
    let width = 0;
    if (object) {
      const named = isJsonObject(schema.properties) ? Object.keys(schema.properties).length : 0;
      if (typeof schema.maxProperties === 'number') width = schema.maxProperties;
      else if (schema.additionalProperties === false && schema.patternProperties === undefined) width = named;
      else width = Number.POSITIVE_INFINITY;
    }
    return Math.max(width, openArray ? Number.POSITIVE_INFINITY : 0, deepest);
  }
}

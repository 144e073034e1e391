import type { FieldError } from './ajv.js';
import { deref, isJsonObject, resolvePointer, type JsonObject } from './bundled.js';
import { escapeToken, toPointer } from './pointer.js';
import { MAX_FIELD_ERRORS } from '../problems/field-errors.mjs';

/**
 * What a request's size bounds found: the breaches (at most `MAX_FIELD_ERRORS`, with a count of
 * the rest). A value with breaches has been cut, in place, to just past each bound.
 */
export interface BoundsReport {
  errors: FieldError[];
  omitted: number;
}

/**
 * A guard checks `value`, found at `path` (the keys from the body down to it, pushed and popped
 * as the walk goes: its pointer is written only for a breach), and answers the value, cut where
 * a bound is breached.
 */
type Guard = (value: unknown, path: Array<string | number>, report: BoundsReport) => unknown;

/**
 * The size bounds of a schema of the contract (`maxItems`, `maxLength`, `maxProperties`, and
 * `additionalProperties: false`), checked in one linear walk of a value before its schema is
 * (D49). Ajv, asked for every error, checks every item of an array that is already too long and
 * compares every pair of it for `uniqueItems` (86,000 strings: 18 s), and matches a pattern
 * against a string of any length. This walk notes each breach with the value's real size and
 * cuts the value in place to just past its bound (an array to `maxItems + 1` items, a string to
 * `maxLength + 1` characters, a closed object to `MAX_FIELD_ERRORS` unknown fields), so that the
 * schema, checked next, still reports every other failing field and costs no more than a
 * request within bounds. A request with a breach is refused, so cutting it loses nothing.
 *
 * The walk follows what always applies to a value: `$ref`, `allOf`, `properties`,
 * `additionalProperties` and `items`. Bounds inside `anyOf`/`oneOf` branches are left to Ajv.
 */
export function boundsGuard(contract: JsonObject, pointer: string): (value: unknown) => BoundsReport {
  const guards = new Map<string, Guard>();
  const root = guardOf(contract, [resolvePointer(contract, pointer)], guards, pointer);
  return (value) => {
    const report: BoundsReport = { errors: [], omitted: 0 };
    root(value, [], report);
    return report;
  };
}

/** The schemas that always apply to a value of `schema`: itself and, transitively, its `$ref` and `allOf`. */
function applying(contract: JsonObject, schema: unknown, out: JsonObject[] = []): JsonObject[] {
  if (!isJsonObject(schema)) return out;
  const resolved = typeof schema.$ref === 'string' ? deref<unknown>(contract, schema) : schema;
  if (!isJsonObject(resolved) || out.includes(resolved)) return out;
  out.push(resolved);
  if (resolved !== schema) {
    // Keywords beside a `$ref` apply as well (OpenAPI 3.1).
    const { $ref: _ref, ...beside } = schema;
    if (Object.keys(beside).length > 0) out.push(beside);
  }
  if (Array.isArray(resolved.allOf)) for (const part of resolved.allOf) applying(contract, part, out);
  return out;
}

const smallest = (values: unknown[]) => values.reduce<number>((min, v) => (typeof v === 'number' && v < min ? v : min), Number.POSITIVE_INFINITY);

function add(report: BoundsReport, error: FieldError): void {
  if (report.errors.length < MAX_FIELD_ERRORS) report.errors.push(error);
  else report.omitted += 1;
}

/** The guard of a list of schemas, made once per schema list and kept (recursive schemas refer back to it). */
function guardOf(contract: JsonObject, schemas: unknown[], guards: Map<string, Guard>, key: string): Guard {
  const known = guards.get(key);
  if (known) return known;
  const all = schemas.flatMap((s) => applying(contract, s));
  let guard: Guard = () => undefined;
  guards.set(key, (value, path, report) => guard(value, path, report));

  const maxItems = smallest(all.map((s) => s.maxItems));
  const maxLength = smallest(all.map((s) => s.maxLength));
  const maxProperties = smallest(all.map((s) => s.maxProperties));
  const itemSchemas = all.map((s) => s.items).filter(isJsonObject);
  const items = itemSchemas.length > 0 ? guardOf(contract, itemSchemas, guards, `${key}/items`) : undefined;
  const propertyNames = new Set(all.flatMap((s) => (isJsonObject(s.properties) ? Object.keys(s.properties) : [])));
  const properties = new Map<string, Guard>();
  for (const name of propertyNames) {
    const own = all.map((s) => (isJsonObject(s.properties) ? s.properties[name] : undefined)).filter((s) => s !== undefined);
    properties.set(name, guardOf(contract, own, guards, `${key}/properties/${escapeToken(name)}`));
  }
  const closed = all.some((s) => s.additionalProperties === false) && !all.some((s) => s.patternProperties !== undefined);
  const extraSchemas = all.map((s) => s.additionalProperties).filter(isJsonObject);
  const extra = extraSchemas.length > 0 ? guardOf(contract, extraSchemas, guards, `${key}/additionalProperties`) : undefined;

  guard = (value, path, report) => {
    if (typeof value === 'string') {
      // A string's length is counted in code points, as JSON Schema does; never more than its UTF-16 length.
      if (value.length <= maxLength) return value;
      const length = [...value].length;
      if (length <= maxLength) return value;
      add(report, { pointer: toPointer(path), detail: `must have at most ${maxLength} characters (has ${length})`, keyword: 'maxLength' });
      return [...value.slice(0, 2 * (maxLength + 1))].slice(0, maxLength + 1).join('');
    }
    if (Array.isArray(value)) {
      if (value.length > maxItems) {
        add(report, { pointer: toPointer(path), detail: `must have at most ${maxItems} items (has ${value.length})`, keyword: 'maxItems' });
        value.length = maxItems + 1;
      }
      if (items) for (let i = 0; i < value.length; i += 1) value[i] = within(path, i, items, value[i], report);
      return value;
    }
    if (!isJsonObject(value)) return value;
    const keys = Object.keys(value);
    if (keys.length > maxProperties) {
      add(report, { pointer: toPointer(path), detail: `must have at most ${maxProperties} fields (has ${keys.length})`, keyword: 'maxProperties' });
    }
    let unknown = 0;
    for (const name of keys) {
      const property = properties.get(name);
      if (property) value[name] = within(path, name, property, value[name], report);
      else if (closed) {
        unknown += 1;
        // The schema reports the first unknown fields itself; past them, each is counted, not listed.
        if (unknown > MAX_FIELD_ERRORS) {
          delete value[name];
          report.omitted += 1;
        }
      } else if (extra) value[name] = within(path, name, extra, value[name], report);
    }
    return value;
  };
  return guard;
}

/** `guard` of the value at `key` below `path`: the key is on the path while it runs (a walk that throws is abandoned, path and all). */
function within(path: Array<string | number>, key: string | number, guard: Guard, value: unknown, report: BoundsReport): unknown {
  path.push(key);
  const checked = guard(value, path, report);
  path.pop();
  return checked;
}

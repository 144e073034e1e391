import type { JsonObject } from './bundled.js';

/**
 * The contract's kinds of identifier: each `components/schemas/*Id` whose pattern starts with a
 * `prefix_` (`ChargeId`: `^char_[a-z][0-9a-z]{1,31}$`). The one reading of "which strings are
 * ids of what" for the docs' samples (a `$CHARGE_ID`), the mock (the id of a request's path) and
 * the tests of the examples' world.
 */
export interface IdKind {
  /** The schema's name: `ChargeId`. */
  schema: string;
  /** The whole value is an id of this kind. */
  pattern: RegExp;
  /** Every id of this kind inside a text (a URL, a problem's `detail`); global, so use with matchAll or replace. */
  token: RegExp;
}

export function idKinds(doc: JsonObject): IdKind[] {
  const schemas = ((doc.components as JsonObject | undefined)?.schemas ?? {}) as Record<string, JsonObject>;
  return Object.entries(schemas)
    .filter(([name, schema]) => /Id$/.test(name) && typeof schema.pattern === 'string' && /^\^[a-z]+_/.test(schema.pattern))
    .map(([name, schema]) => {
      const source = String(schema.pattern);
      const body = source.replace(/^\^/, '').replace(/\$$/, '');
      return { schema: name, pattern: new RegExp(source), token: new RegExp(`(?<![0-9A-Za-z_])${body}(?![0-9A-Za-z_])`, 'g') };
    });
}

/** The kind a whole value is an id of, if any. */
export function idKindOf(kinds: readonly IdKind[], value: unknown): IdKind | undefined {
  return typeof value === 'string' ? kinds.find((kind) => kind.pattern.test(value)) : undefined;
}

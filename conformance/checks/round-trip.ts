/**
 * The one place the suite compares the values a record should have with the values an answer
 * shows: what a create or an update sent with what its answer, the read by id and the list show
 * (sent equals kept), and what a create answered with what the read by id shows
 * (ensure_resource_availability, availability.ts).
 *
 * Only what is expected is compared, and only where the answer's schema declares the field: a
 * field the server fills (ids, timestamps, defaults) is never expected, a field the read does not
 * declare (the payment link's `successUrl`, which only `GET /charge/{id}` shows) is not looked
 * for there. Objects are compared field by field the same way (a charge's `customer` declares
 * its name, tax number, e-mail and phone, not the address sent with them), arrays item by item
 * (as sets when the read's schema says `uniqueItems`). A value whose request schema has a
 * format with a stored form (D46: `cpf-cnpj`, `phone-br`, `cep`; lib/contract/formats.ts) is
 * compared in that form on both sides, so `529.982.247-25` sent and `52998224725` read are
 * the same tax number. Timestamps are compared as instants (stateful.ts `sameValue`). A value the
 * read's schema enumerates without listing it (a webhook `disabled` for `INACTIVE`) is another
 * vocabulary, which response_schema_conformance reports: it is not compared here. A field the
 * read's schema names otherwise than the request and the create's answer (seed §2.4: `cpfCnpj`
 * sent and answered, `taxId` in the list form and the read by id) is compared under the read's
 * name, as the read's property says with `x-also-named` (`otherNames`); so is a field the read
 * names otherwise than the request (an order's `items` sent, its `orderItems` read).
 *
 * Nothing here knows a field name: the schemas come from the contract.
 */
import type { JsonObject } from '../../lib/contract/bundled.js';
import { formatNormaliser } from '../../lib/contract/formats.js';
import { isPlainObject, itemsOf, keywordOf, propertiesOf, requiredOf, viewOf, type SchemaView } from '../data/schema.js';
import { sameValue, show } from './stateful.js';

/** One field whose value is not the expected one. */
export interface Difference {
  /** The field as people write it: `successUrl`, `customer.taxId`, `items[0].quantity`. */
  field: string;
  want: unknown;
  /** The value read; undefined when the field is missing. */
  got: unknown;
  /**
   * For a missing field only: the decision its presence rests on, when the read's property (or
   * one holding it) is a decision as a whole or its requiredness is decided. A field read with
   * another value names none: whatever decides whether a field is shown, a value that is not the
   * one written is data lost.
   */
  decision?: string | undefined;
  /** The other field of the expected values whose value the field shows (a swap). */
  swappedWith?: string;
}

export interface Comparison {
  differences: Difference[];
  /** The fields compared (top level), for pass messages. */
  compared: string[];
}

export interface CompareOptions {
  /** The schema of what `actual` is: the read's (or answer's) record. */
  readSchema: unknown;
  /** The schema `expected` was written against (a request body's), for the stored forms of its values (D46). */
  sentSchema?: unknown;
  /** The field that names a record: never a decision, and never missing without a finding. */
  identity?: string;
}

/**
 * The fields of `expected` that the read's schema declares and `actual` does not show with the
 * same value. A declared field `actual` lacks is a difference when the read's schema requires it
 * or is a decision as a whole (with that decision), and is passed over otherwise: an optional
 * field may be left out of an answer. A field shown with another value is a difference naming no
 * decision: decisions say which fields an answer shows (D21's `externalId` on a charge), not that
 * a value may change on the way (how one is normalised is compared in its stored form, D46).
 */
export function compareRecord(doc: JsonObject, expected: JsonObject, actual: JsonObject, options: CompareOptions): Comparison {
  const differences: Difference[] = [];
  const compared: string[] = [];
  const read = viewOf(doc, options.readSchema);
  const sent = options.sentSchema === undefined ? undefined : viewOf(doc, options.sentSchema);
  compareObject(doc, expected, actual, read, sent, '', undefined, differences, compared, { ...options, rename: otherNames(doc, options.readSchema) });
  return { differences, compared };
}

/**
 * The names a record's other forms give the top-level fields of `schema`, each to the name in
 * `schema`: a property marked `x-also-named: cpfCnpj` (the list form's `taxId`, seed §2.4) maps
 * `cpfCnpj` to `taxId`. The one reading of that mark, for every check that finds sent values in
 * a read or a list.
 */
export function otherNames(doc: JsonObject, schema: unknown): ReadonlyMap<string, string> {
  const names = new Map<string, string>();
  for (const [name, property] of propertiesOf(doc, viewOf(doc, schema))) {
    const also = keywordOf(property, 'x-also-named')?.value;
    for (const other of Array.isArray(also) ? also : [also]) if (typeof other === 'string') names.set(other, name);
  }
  return names;
}

interface WalkOptions extends CompareOptions {
  rename: ReadonlyMap<string, string>;
}

/** The decision a property rests on as a whole: its own `x-decision`, or that of the schema its bare `$ref` names. */
function wholeDecision(view: SchemaView): string | undefined {
  for (const part of view.parts) {
    if (part.decision) return part.decision;
    const keys = Object.keys(part.schema).filter((k) => k !== 'description');
    if (!(keys.length === 1 && keys[0] === '$ref')) return undefined;
  }
  return undefined;
}

/** The stored form (D46) of the values a schema describes, when its format has one. */
function normaliserOf(view: SchemaView | undefined): ((value: string) => string) | undefined {
  const format = view ? keywordOf(view, 'format')?.value : undefined;
  return typeof format === 'string' ? formatNormaliser(format) : undefined;
}

function compareObject(
  doc: JsonObject,
  expected: JsonObject,
  actual: JsonObject,
  read: SchemaView,
  sent: SchemaView | undefined,
  prefix: string,
  inherited: string | undefined,
  differences: Difference[],
  compared: string[] | undefined,
  options: WalkOptions,
): void {
  const readProps = propertiesOf(doc, read);
  const sentProps = sent ? propertiesOf(doc, sent) : new Map<string, SchemaView>();
  const required = requiredOf(read);
  const top = prefix === '';
  for (const [name, want] of Object.entries(expected)) {
    const readName = (top ? options.rename.get(name) : undefined) ?? name;
    const property = readProps.get(readName);
    if (want === undefined || !property) continue;
    const identity = top && readName === options.identity;
    const decision = identity ? undefined : (inherited ?? wholeDecision(property));
    const field = `${prefix}${prefix ? '.' : ''}${readName}`;
    const got = actual[readName];
    if (got === undefined) {
      if (identity) differences.push({ field, want, got });
      else if (decision || required.has(readName)) differences.push({ field, want, got, decision: decision ?? required.get(readName) });
      continue;
    }
    compared?.push(readName);
    const before = differences.length;
    compareValue(doc, want, got, property, sentProps.get(name), field, decision, differences, options);
    // A value that is the one sent for a sibling field: say which, a swap is easier to see so.
    if (differences.length === before + 1 && differences[before]!.field === field) {
      const sibling = Object.entries(expected).find(([other, value]) => other !== name && value !== undefined && sameValue(value, got));
      if (sibling) differences[before]!.swappedWith = `${prefix}${prefix ? '.' : ''}${(top ? options.rename.get(sibling[0]) : undefined) ?? sibling[0]}`;
    }
  }
}

function compareValue(
  doc: JsonObject,
  want: unknown,
  got: unknown,
  read: SchemaView,
  sent: SchemaView | undefined,
  field: string,
  decision: string | undefined,
  differences: Difference[],
  options: WalkOptions,
): void {
  if (isPlainObject(want) && isPlainObject(got)) {
    compareObject(doc, want, got, read, sent, field, decision, differences, undefined, options);
    return;
  }
  if (Array.isArray(want) && Array.isArray(got)) {
    const readItems = itemsOf(doc, read);
    const sentItems = sent ? itemsOf(doc, sent) : undefined;
    if (keywordOf(read, 'uniqueItems')?.value === true) {
      // A set: the same members in any order.
      const key = (v: unknown) => JSON.stringify(normalised(v, readItems, sentItems));
      const wanted = new Set(want.map(key));
      const have = new Set(got.map(key));
      if (wanted.size !== have.size || [...wanted].some((k) => !have.has(k))) differences.push({ field, want, got });
      return;
    }
    if (want.length !== got.length || !readItems) {
      if (want.length !== got.length || !sameValue(want, got)) differences.push({ field, want, got });
      return;
    }
    for (const [i, item] of want.entries()) compareValue(doc, item, got[i], readItems, sentItems, `${field}[${i}]`, decision, differences, options);
    return;
  }
  // A value the read's schema does not enumerate is in another vocabulary, not another value of
  // this one: response_schema_conformance reports it once, with the decision of the enum if any.
  const enumerated = keywordOf(read, 'enum')?.value;
  if (Array.isArray(enumerated) && !enumerated.some((value) => sameValue(value, got))) return;
  if (!sameValue(normalised(want, read, sent), normalised(got, read, sent))) differences.push({ field, want, got });
}

/** A string in the stored form its schemas give it (D46), any other value as it is. */
function normalised(value: unknown, read: SchemaView | undefined, sent: SchemaView | undefined): unknown {
  if (typeof value !== 'string') return value;
  const normalise = normaliserOf(sent) ?? normaliserOf(read);
  return normalise ? normalise(value) : value;
}

/**
 * A difference in words, naming the field, the value read and the value expected:
 * `` `successUrl` reads "…/pagamento-falhou" (the value sent as `failedUrl`), sent "…/obrigado" ``,
 * `` `externalId` reads "pedido-2026", the first 11 of the 34 characters sent "pedido-2026-…" ``.
 * `expectedAs` says where the expected value comes from: `sent`, `the create answered`.
 */
export function describeDifference(d: Difference, expectedAs: string): string {
  if (d.got === undefined) return `the read lacks \`${d.field}\` (${expectedAs} ${show(d.want)})`;
  const read = `\`${d.field}\` reads ${show(d.got)}`;
  if (d.swappedWith) return `${read} (the value ${expectedAs} as \`${d.swappedWith}\`), ${expectedAs} ${show(d.want)}`;
  if (typeof d.got === 'string' && typeof d.want === 'string' && d.got.length < d.want.length && d.want.startsWith(d.got))
    return `${read}, the first ${d.got.length} of the ${d.want.length} characters ${expectedAs} ${show(d.want)}`;
  return `${read}, ${expectedAs} ${show(d.want)}`;
}

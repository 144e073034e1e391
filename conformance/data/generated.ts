/**
 * Values drawn from a request field's schema (fast-check arbitraries), for the generated
 * round trip (checks/generated.ts): what a fixed example never sends. Nothing here knows a field
 * name; what a field gets is read off its schema:
 *
 * - `format: email`: mixed case on both sides of the `@` (`Ana.SOUZA_3@Exemplo.Com.br`);
 * - `format: cpf-cnpj`: CPFs and CNPJs with valid check digits, digits only or punctuated
 *   (`529.982.247-25`, `11.222.333/0001-81`: D46 lets a request punctuate them), from a fixed
 *   pool and the valid body's own (`taxNumber`: a payment link's customer reuses the client
 *   with its number, D48);
 * - `format: phone-br`: area code and number, 10 or 11 digits, bare or written the usual ways;
 * - `format: cep`: eight digits, bare or `00000-000`;
 * - `format: brl` (money): reais with 0, 1 or 2 decimals, within the schema's bounds;
 * - a string with no format, pattern or enum: letters with accents and other non-ASCII letters
 *   (precomposed, no leading or trailing space), of the boundary lengths (`minLength` or 1, and
 *   `maxLength`) and between.
 *
 * - a whole number of an array item (a quantity): from the valid body's value up to `maximum`.
 *
 * A field with an enum, a `const`, a pattern or another format (ids, URLs, dates) is left as the
 * valid body has it: its valid values are not free text.
 */
import fc from 'fast-check';
import type { JsonObject } from '../../lib/contract/bundled.js';
import { isPlainObject, itemsOf, keywordOf, propertiesOf, typesOf, viewOf, type SchemaView } from './schema.js';

/** Letters a person's name, a street or a note may hold in Brazil and elsewhere: ASCII, accented, and a few other scripts. */
const letters = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', ...'áàâãäçéêëíîïñóôõöúûüÁÀÂÃÄÇÉÊËÍÎÏÑÓÔÕÖÚÛÜßøåæœ', ...'ЖжΩωשׁ日本語한국'];
const inner = [...letters, ' ', "'", '-', '.', ',', 'º', 'ª'];

/** A string of `length` code points: letters at both ends, anything of `inner` between. */
function textOf(length: number): fc.Arbitrary<string> {
  if (length <= 0) return fc.constant('');
  const edge = fc.constantFrom(...letters);
  if (length === 1) return edge;
  if (length === 2) return fc.tuple(edge, edge).map(([a, b]) => a + b);
  return fc
    .tuple(edge, fc.array(fc.constantFrom(...inner), { minLength: length - 2, maxLength: length - 2 }), edge)
    .map(([a, middle, b]) => a + middle.join('') + b);
}

/** Free text within `[min, max]` code points: both boundaries often, lengths between otherwise. */
export function freeText(min: number, max: number): fc.Arbitrary<string> {
  const low = Math.max(min, 1);
  const high = Math.max(low, max);
  const between = fc.integer({ min: low, max: Math.min(high, low + 40) });
  const arbitrary = fc.oneof(fc.constant(low), fc.constant(high), between).chain((length) => textOf(length));
  longestOf.set(arbitrary, textOf(high));
  return arbitrary;
}

/**
 * The longest values of a free-text arbitrary (its `maxLength`): when no drawn body fails, one more
 * holds every free text at it, so that a value cut on store is found whatever the seed (drawn at
 * random, a field reaches its `maxLength` in a third of the bodies only).
 */
const longestOf = new WeakMap<fc.Arbitrary<unknown>, fc.Arbitrary<unknown>>();

/** Mixed-case e-mail addresses: what a person types, not what a test usually sends. */
export function email(max = 254): fc.Arbitrary<string> {
  const word = (min: number, most: number) =>
    fc.array(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'), { minLength: min, maxLength: most }).map((c) => c.join(''));
  return fc
    .tuple(word(1, 12), fc.constantFrom('', '.', '_', '+'), word(1, 8), word(2, 12), fc.constantFrom('com', 'COM', 'com.br', 'Com.Br', 'org'))
    .map(([a, sep, b, domain, tld]) => `${a}${sep}${sep ? b : ''}@${domain}.${tld}`)
    .filter((value) => value.length <= max && /[A-Z]/.test(value) && /[a-z]/.test(value));
}

function checkDigit(digits: number[], weights: number[]): number {
  const sum = digits.reduce((acc, d, i) => acc + d * weights[i]!, 0);
  const rest = sum % 11;
  return rest < 2 ? 0 : 11 - rest;
}

/** CPFs with valid check digits, bare or `000.000.000-00`. */
export function cpf(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 9, maxLength: 9 }), fc.boolean())
    .filter(([d]) => new Set(d).size > 1)
    .map(([d, punctuated]) => {
      const first = checkDigit(d, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
      const all = [...d, first, checkDigit([...d, first], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2])].join('');
      return punctuated ? `${all.slice(0, 3)}.${all.slice(3, 6)}.${all.slice(6, 9)}-${all.slice(9)}` : all;
    });
}

/** CNPJs with valid check digits, bare or `00.000.000/0000-00`. */
export function cnpj(): fc.Arbitrary<string> {
  const w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  return fc
    .tuple(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 8, maxLength: 8 }), fc.integer({ min: 1, max: 9 }), fc.boolean())
    .filter(([d]) => new Set(d).size > 1)
    .map(([d, branch, punctuated]) => {
      const base = [...d, 0, 0, 0, branch];
      const first = checkDigit(base, w1);
      const all = [...base, first, checkDigit([...base, first], [6, ...w1])].join('');
      return punctuated ? `${all.slice(0, 2)}.${all.slice(2, 5)}.${all.slice(5, 8)}/${all.slice(8, 12)}-${all.slice(12)}` : all;
    });
}

/** A CPF (9 digits) or CNPJ (8 digits and a branch) with its check digits, bare. */
function withCheckDigits(digits: string): string {
  const d = [...digits].map(Number);
  if (d.length === 9) {
    const first = checkDigit(d, [10, 9, 8, 7, 6, 5, 4, 3, 2]);
    return [...d, first, checkDigit([...d, first], [11, 10, 9, 8, 7, 6, 5, 4, 3, 2])].join('');
  }
  const w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
  const first = checkDigit(d, w1);
  return [...d, first, checkDigit([...d, first], [6, ...w1])].join('');
}

/**
 * The tax numbers a run draws besides the valid body's own: the same few in every run, two CPFs
 * and two CNPJs. A payment link's customer whose tax number the company already has reuses that
 * client (D48), so a run adds no client for them once one run has (and none for the valid body's
 * number, the run's own client's); the forms vary (`taxNumber`).
 */
export const taxNumberPool: readonly string[] = ['123456789', '987654321', '112223330001', '475839200001'].map(withCheckDigits);

/** A tax number of the fixed pool or `own` (the valid body's, first: shrinking goes to it), bare or punctuated (D46 lets a request punctuate it). */
export function taxNumber(own?: string): fc.Arbitrary<string> {
  const digits = own?.replace(/\D/g, '');
  const pool = [...new Set([...(digits && /^(\d{11}|\d{14})$/.test(digits) ? [digits] : []), ...taxNumberPool])];
  return fc.tuple(fc.constantFrom(...pool), fc.boolean()).map(([all, punctuated]) => {
    if (!punctuated) return all;
    return all.length === 11
      ? `${all.slice(0, 3)}.${all.slice(3, 6)}.${all.slice(6, 9)}-${all.slice(9)}`
      : `${all.slice(0, 2)}.${all.slice(2, 5)}.${all.slice(5, 8)}/${all.slice(8, 12)}-${all.slice(12)}`;
  });
}

/** Brazilian phones: a DDD and a landline (8 digits) or mobile (9, starting with 9), bare or written the usual ways. */
export function phone(): fc.Arbitrary<string> {
  const ddd = fc.integer({ min: 11, max: 99 }).filter((n) => n % 10 !== 0);
  const number = fc.oneof(
    fc.integer({ min: 20_000_000, max: 59_999_999 }).map(String),
    fc.integer({ min: 90_000_000, max: 99_999_999 }).map((n) => `9${n}`),
  );
  return fc.tuple(ddd, number, fc.integer({ min: 0, max: 3 })).map(([area, n, style]) => {
    const head = n.slice(0, -4);
    const tail = n.slice(-4);
    if (style === 1) return `(${area}) ${head}-${tail}`;
    if (style === 2) return `+55 ${area} ${head}-${tail}`;
    if (style === 3) return `${area} ${head}.${tail}`;
    return `${area}${n}`;
  });
}

/** CEPs: eight digits, bare or `00000-000`. */
export function cep(): fc.Arbitrary<string> {
  return fc.tuple(fc.integer({ min: 1_000_000, max: 99_999_999 }), fc.boolean()).map(([n, dashed]) => {
    const digits = String(n).padStart(8, '0');
    return dashed ? `${digits.slice(0, 5)}-${digits.slice(5)}` : digits;
  });
}

/** Amounts in reais with the precision the `brl` format allows (two decimals), within the bounds. */
export function money(min: number, max: number): fc.Arbitrary<number> {
  const lowCents = Math.ceil(Math.max(min, 0) * 100);
  const highCents = Math.floor(Math.min(max, 1_000_000) * 100);
  return fc
    .oneof(
      fc.integer({ min: lowCents, max: highCents }),
      fc.integer({ min: Math.ceil(lowCents / 100), max: Math.floor(highCents / 100) }).map((n) => n * 100),
      fc.integer({ min: Math.ceil(lowCents / 10), max: Math.floor(highCents / 10) }).map((n) => n * 10),
    )
    .map((cents) => cents / 100);
}

/** The arbitrary for one field, from its schema; undefined when the field's valid values are not drawn (enum, pattern, ids, URLs …). */
export function arbitraryFor(view: SchemaView, money$: { drawMoney: boolean }, current?: unknown): fc.Arbitrary<unknown> | undefined {
  if (keywordOf(view, 'enum') || keywordOf(view, 'const') || keywordOf(view, 'oneOf') || keywordOf(view, 'anyOf')) return undefined;
  const types = typesOf(view);
  const format = keywordOf(view, 'format')?.value;
  const num = (k: string) => {
    const v = keywordOf(view, k)?.value;
    return typeof v === 'number' ? v : undefined;
  };
  if (types.includes('number') && format === 'brl' && money$.drawMoney) {
    // An exclusive bound (a price `> 0`) is the next cent past it.
    const exclusiveMin = num('exclusiveMinimum');
    const exclusiveMax = num('exclusiveMaximum');
    const min = Math.max(num('minimum') ?? 0, exclusiveMin === undefined ? 0 : exclusiveMin + 0.01);
    const max = Math.min(num('maximum') ?? 1_000_000, exclusiveMax === undefined ? 1_000_000 : exclusiveMax - 0.01);
    return money(min, max);
  }
  if (!types.includes('string') || types.length !== 1) return undefined;
  const maxLength = num('maxLength') ?? 255;
  if (format === 'email') return email(maxLength);
  if (format === 'cpf-cnpj') return taxNumber(typeof current === 'string' ? current : undefined);
  if (format === 'phone-br') return phone();
  if (format === 'cep') return cep();
  if (format !== undefined || keywordOf(view, 'pattern')) return undefined;
  return freeText(num('minLength') ?? 1, maxLength);
}

/** A field of a body the generator draws, by its place in the body (an array item's place is its index). */
export interface DrawnField {
  path: Array<string>;
  arbitrary: fc.Arbitrary<unknown>;
  /** Where the field is free text: its values at `maxLength` (the body tried when no drawn one fails). */
  longest?: fc.Arbitrary<unknown>;
}

/**
 * The fields of `body` (a valid body, walked with its schema) whose values are drawn: strings and
 * money of objects, nested objects and array items alike (a payment link's customer, an order's
 * items), none of `keep` (the values naming the run's records) and none named in `unique` (the
 * identifiers a service may hold unique per company, which the run numbers: templates.ts). Every
 * money field is drawn; where amounts depend on each other (an order's subtotal, discount, shipping
 * cost and total, D29) the check makes them add up again after drawing (bodies.ts
 * `withDomainRules`), so an order's discount and shipping cost take drawn values. A whole number of an array item (an item's quantity) is drawn only where the body
 * sends no money at all (an amount would have to follow it), from the value the valid body has
 * upward (fewer units could take a computed total under its minimum; `wholeFrom`).
 */
export function drawnFields(
  doc: JsonObject,
  schema: unknown,
  body: unknown,
  keep: ReadonlySet<unknown>,
  unique: ReadonlySet<string> = new Set(),
): DrawnField[] {
  const fields: DrawnField[] = [];
  const moneyFields = countMoney(doc, viewOf(doc, schema), body);
  const walkValue = (prop: SchemaView, v: unknown, path: string[], name: string, inArray: boolean) => {
    if (keep.has(v) || unique.has(name)) return;
    if (isPlainObject(v)) walk(prop, v, path, inArray);
    else if (Array.isArray(v)) {
      const items = itemsOf(doc, prop);
      if (items)
        v.forEach((item, i) => {
          walkValue(items, item, [...path, String(i)], name, true);
        });
    } else if (typeof v === 'string' || typeof v === 'number') {
      const arbitrary =
        inArray && Number.isInteger(v) && typesOf(prop).includes('integer') && moneyFields === 0
          ? wholeFrom(prop, v as number)
          : arbitraryFor(prop, { drawMoney: moneyFields >= 1 }, v);
      const longest = arbitrary ? longestOf.get(arbitrary) : undefined;
      if (arbitrary) fields.push({ path, arbitrary, ...(longest ? { longest } : {}) });
    }
  };
  const walk = (view: SchemaView, value: unknown, path: string[], inArray: boolean) => {
    if (!isPlainObject(value)) return;
    const props = propertiesOf(doc, view);
    for (const [name, v] of Object.entries(value)) {
      const prop = props.get(name);
      if (prop) walkValue(prop, v, [...path, name], name, inArray);
    }
  };
  walk(viewOf(doc, schema), body, [], false);
  return fields;
}

/**
 * Whole numbers from `from` to the schema's `maximum` or a hundred times `from`, whichever is less
 * (both ends often): a total computed from them must stay under its own maximum too. None when
 * the schema sets no maximum or holds an enum.
 */
function wholeFrom(view: SchemaView, from: number): fc.Arbitrary<number> | undefined {
  const maximum = keywordOf(view, 'maximum')?.value;
  if (typeof maximum !== 'number' || keywordOf(view, 'enum') || keywordOf(view, 'const')) return undefined;
  const high = Math.min(Math.floor(maximum), Math.max(from, 1) * 100);
  if (high <= from) return undefined;
  return fc.oneof(fc.constant(from), fc.constant(high), fc.integer({ min: from, max: high }));
}

function countMoney(doc: JsonObject, view: SchemaView, value: unknown): number {
  if (Array.isArray(value)) {
    const items = itemsOf(doc, view);
    return items ? value.reduce((n: number, item) => n + countMoney(doc, items, item), 0) : 0;
  }
  if (!isPlainObject(value)) return 0;
  const props = propertiesOf(doc, view);
  let n = 0;
  for (const [name, v] of Object.entries(value)) {
    const prop = props.get(name);
    if (!prop) continue;
    if (isPlainObject(v) || Array.isArray(v)) n += countMoney(doc, prop, v);
    else if (typeof v === 'number' && keywordOf(prop, 'format')?.value === 'brl') n += 1;
  }
  return n;
}

/** `body` with each drawn value put at its path. */
export function withValues(body: unknown, fields: readonly DrawnField[], values: readonly unknown[]): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  fields.forEach((field, i) => {
    let holder = copy;
    for (const key of field.path.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
    holder[field.path.at(-1)!] = values[i];
  });
  return copy;
}

/**
 * Only the drawn fields of `body`, at their places: what a round trip of generated values
 * compares. An array keeps its length, its items holding only what was drawn in them, so that
 * each item is compared with the item read at its place.
 */
export function drawnOnly(body: unknown, fields: readonly DrawnField[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    let from = body as Record<string, unknown>;
    let to = out;
    for (const key of field.path.slice(0, -1)) {
      from = from[key] as Record<string, unknown>;
      to[key] ??= Array.isArray(from) ? Array.from({ length: from.length }, () => ({})) : {};
      to = to[key] as Record<string, unknown>;
    }
    const last = field.path.at(-1)!;
    to[last] = from[last];
  }
  return out;
}

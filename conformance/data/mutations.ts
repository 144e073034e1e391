import type { ErrorObject } from 'ajv';
import type { JsonObject } from '../../lib/contract/bundled.js';
import { RunContext } from '../engine/context.js';
import { devModeField } from './bodies.js';
import type { ParameterView } from './contract-view.js';
import {
  getAt,
  isPlainObject,
  itemsOf,
  keywordOf,
  propertiesOf,
  requiredOf,
  sampleValue,
  toPointer,
  typesOf,
  viewOf,
  withAt,
  type HeaderParameter,
  type SchemaView,
} from './schema.js';

/**
 * Invalid variants of a valid request, read from the operation's request body schema and
 * header and query parameters in the bundled contract: every required property dropped, a wrong
 * JSON type, numbers and strings just past each limit, patterns, enums and formats broken, an
 * unknown property where none is allowed, an `anyOf` with no branch met, a dependent
 * property sent with what excludes it, and header and query values breaking their schema (a
 * number out of range, a word where a number is expected, a malformed cursor).
 *
 * Each mutation says whether it breaks the SEED (the request is invalid under `ctx.seed`,
 * the contract without its decisions) or only a DECISION (valid under the seed, invalid
 * under the full contract; the decision id comes from the failing keyword's
 * `x-decided`/`x-decision`). A variant the full contract still accepts is discarded.
 */
export type Breaks = 'seed' | 'decision';

export interface Mutation {
  /** `<JSON pointer>: <what is broken>`, e.g. `/customer/taxId: wrong check digit`; unique per operation. */
  name: string;
  /** The body to send (a valid body when only a header is broken). */
  body: unknown;
  /** Headers to send with it (header mutations only). */
  headers?: Record<string, string>;
  /** Query parameters to send with it (query mutations only). */
  query?: Record<string, string>;
  breaks: Breaks;
  /** The decision broken, when `breaks` is `decision`. */
  decision?: string;
}

/** At most this many mutations per operation, so a whole run stays fast. */
export const mutationLimit = 60;

/** An unknown property name, for `additionalProperties: false`. */
export const unknownProperty = 'conformanceUnknownField';

/** A query parameter no operation of the contract declares. */
export const unknownParameter = 'conformanceUnknownParameter';

interface Candidate {
  rank: number;
  name: string;
  body: unknown;
  headers?: Record<string, string>;
  query?: Record<string, string>;
  /** The parameter broken, when it is a header or query mutation. */
  parameter?: HeaderParameter;
  /** Where the intended error is (instance path) and its keyword. */
  at: string;
  keyword: string;
  /** The decision the broken keyword rests on, as the schema view tells it. */
  hint?: string;
}

/** Ranks: what is tried first when the limit cuts the list. */
const RANK = { required: 0, structure: 1, header: 1, query: 1, limit: 2, type: 3 } as const;

/**
 * The mutations of an operation, from each of the given valid bodies (in order), ranked
 * (required, structure and headers, limits and formats, types), de-duplicated by name
 * and cut at `limit`.
 */
export function mutationsFor(ctx: RunContext, operationId: string, validBodies: readonly unknown[], limit = mutationLimit): Mutation[] {
  const operation = ctx.view(operationId);
  const info = operation.requestBody;
  const candidates: Candidate[] = [];
  if (info) {
    const { view, validate } = info;
    const breaks = (body: unknown, at: string, keyword: string, only = false): boolean => {
      if (validate(body)) return false;
      const here = (validate.errors ?? []).filter((e) => e.instancePath === at);
      return here.some((e) => e.keyword === keyword) && (!only || here.every((e) => e.keyword === keyword));
    };
    for (const body of validBodies) new BodyMutator(ctx.contract, body, breaks, candidates).walk(view, []);
  }
  const headers = operation.headerParameters;
  if (headers.length > 0 && (validBodies.length > 0 || !info)) candidates.push(...parameterCandidates(ctx, headers, validBodies[0], 'header'));
  const query = operation.queryParameters;
  if (query.length > 0 && (validBodies.length > 0 || !info)) candidates.push(...parameterCandidates(ctx, query, validBodies[0], 'query'));

  const ordered = candidates.map((c, i) => ({ c, i })).sort((a, b) => a.c.rank - b.c.rank || a.i - b.i);
  // Safety against live services: a mutation is sent in the hope it is refused, so one that
  // touches `devMode` (`"true"`, dropped) could create a real charge on a lax target. When the
  // valid bodies are development charges, every mutation stays one.
  const devCharges = validBodies.some((body) => isPlainObject(body) && body[devModeField] === true);
  const keepsDevMode = (body: unknown) => !devCharges || (isPlainObject(body) && body[devModeField] === true);
  const seen = new Set<string>();
  const result: Mutation[] = [];
  for (const { c } of ordered) {
    if (result.length >= limit) break;
    if (seen.has(c.name) || !keepsDevMode(c.body)) continue;
    const mutation = c.parameter ? classifyParameter(ctx, c) : info ? classifyBody(ctx, info.pointer, c) : undefined;
    if (!mutation) continue;
    seen.add(c.name);
    result.push(mutation);
  }
  return result;
}

function classifyBody(ctx: RunContext, pointer: string, c: Candidate): Mutation | undefined {
  const full = ctx.full.at(pointer);
  if (full(c.body)) return undefined; // still valid: not a mutation
  const errors = [...(full.errors ?? [])];
  if (!ctx.seed.at(pointer)(c.body)) return { name: c.name, body: c.body, breaks: 'seed' };
  return { name: c.name, body: c.body, breaks: 'decision', ...decisionField(decisionOfErrors(errors, c.at) ?? c.hint) };
}

function classifyParameter(ctx: RunContext, c: Candidate): Mutation | undefined {
  const parameter = c.parameter!;
  const raw = (c.headers ?? c.query)?.[parameter.name];
  const value = raw === undefined ? undefined : parameterValue(ctx, parameter, raw);
  if (value !== undefined && ctx.full.at(parameter.pointer)(value)) return undefined;
  const errors = value !== undefined ? [...(ctx.full.at(parameter.pointer).errors ?? [])] : [];
  // A parameter whose schema (or whole self) is a decision says nothing the seed requires.
  const decided = RunContext.decisionOf(parameter.parameter, c.keyword === 'required' ? 'required' : 'schema');
  const seedValid = value === undefined ? !parameter.required : ctx.seed.at(parameter.pointer)(value);
  const base = { name: c.name, body: c.body, ...(c.headers ? { headers: c.headers } : {}), ...(c.query ? { query: c.query } : {}) };
  if (!decided && !seedValid) return { ...base, breaks: 'seed' };
  return { ...base, breaks: 'decision', ...decisionField(decided ?? decisionOfErrors(errors, c.at) ?? c.hint) };
}

function decisionField(decision: string | undefined): { decision?: string } {
  return decision ? { decision } : {};
}

/** The decision marked on the schema of a failing keyword: first at the mutated place, else anywhere. */
function decisionOfErrors(errors: readonly ErrorObject[], at: string): string | undefined {
  const marked = (e: ErrorObject) => RunContext.decisionOf(e.parentSchema, e.keyword);
  return (
    errors
      .filter((e) => e.instancePath === at)
      .map(marked)
      .find(Boolean) ?? errors.map(marked).find(Boolean)
  );
}

type Breaker = (body: unknown, at: string, keyword: string, only?: boolean) => boolean;

/** Walks one valid body along its schema, proposing a mutation for every rule it can break. */
class BodyMutator {
  constructor(
    private readonly doc: JsonObject,
    private readonly root: unknown,
    private readonly breaks: Breaker,
    private readonly out: Candidate[],
  ) {}

  /** Proposes the first alternative body that breaks `keyword` at `at` (preferring one that breaks nothing else there). */
  private propose(rank: number, name: string, at: string, keyword: string, hint: string | undefined, alternatives: unknown[]): void {
    const chosen = alternatives.find((body) => this.breaks(body, at, keyword, true)) ?? alternatives.find((body) => this.breaks(body, at, keyword));
    if (chosen !== undefined) this.out.push({ rank, name, body: chosen, at, keyword, ...(hint ? { hint } : {}) });
  }

  /** Alternatives of the whole body with the value at `path` replaced by each of `values`. */
  private replacing(path: string[], values: unknown[]): unknown[] {
    return values.map((value) => withAt(this.root, path, value));
  }

  walk(view: SchemaView, path: string[]): void {
    const value = getAt(this.root, path);
    const at = toPointer(path);
    const label = at || '/';
    if (path.length > 0) this.wrongType(view, path, value);
    if (isPlainObject(value)) this.object(view, path, value, at, label);
    else if (Array.isArray(value)) this.array(view, path, value, at);
    else if (typeof value === 'number') this.number(view, path, value, at);
    else if (typeof value === 'string') this.string(view, path, value, at);
  }

  private wrongType(view: SchemaView, path: string[], value: unknown): void {
    const type = keywordOf(view, 'type');
    if (!type) return;
    const at = toPointer(path);
    const values =
      typeof value === 'string'
        ? [12345, true]
        : typeof value === 'number'
          ? [String(value), true]
          : typeof value === 'boolean'
            ? [String(value), 1]
            : Array.isArray(value)
              ? [{}, 'x']
              : [[], 'x'];
    const chosen = values.find((v) => this.breaks(withAt(this.root, path, v), at, 'type'));
    if (chosen === undefined) return;
    this.out.push({
      rank: RANK.type,
      name: `${at}: ${jsonType(chosen)} instead of ${jsonType(value)}`,
      body: withAt(this.root, path, chosen),
      at,
      keyword: 'type',
      ...(type.decision ? { hint: type.decision } : {}),
    });
  }

  private object(view: SchemaView, path: string[], value: JsonObject, at: string, label: string): void {
    for (const [name, decision] of requiredOf(view)) {
      if (value[name] === undefined) continue;
      this.propose(RANK.required, `${toPointer([...path, name])}: required property missing`, at, 'required', decision, [
        withAt(this.root, [...path, name], undefined),
      ]);
    }
    const additional = keywordOf(view, 'additionalProperties');
    if (additional?.value === false) {
      this.propose(RANK.structure, `${label}: unknown property`, at, 'additionalProperties', additional.decision, [
        withAt(this.root, [...path, unknownProperty], 'x'),
      ]);
    }
    const minProperties = keywordOf(view, 'minProperties');
    if (typeof minProperties?.value === 'number' && minProperties.value > 0) {
      const required = requiredOf(view);
      const keys = Object.keys(value).sort((a, b) => Number(required.has(b)) - Number(required.has(a)));
      const reduced = Object.fromEntries(keys.slice(0, minProperties.value - 1).map((k) => [k, value[k]]));
      this.propose(RANK.structure, `${label}: fewer than ${minProperties.value} properties`, at, 'minProperties', minProperties.decision, [
        withAt(this.root, path, reduced),
      ]);
    }
    for (const part of view.parts) {
      // An anyOf of `required` branches (e.g. total or items): send none of them.
      const branches = part.schema.anyOf;
      if (!Array.isArray(branches) || !branches.every((b) => isPlainObject(b) && Array.isArray(b.required))) continue;
      const names = [...new Set(branches.flatMap((b) => (b as JsonObject).required as string[]))];
      if (!names.some((n) => value[n] !== undefined)) continue;
      const reduced = Object.fromEntries(Object.entries(value).filter(([k]) => !names.includes(k)));
      this.propose(RANK.structure, `${label}: none of ${names.join(', ')}`, at, 'anyOf', RunContext.decisionOf(part.schema, 'anyOf') ?? part.decision, [
        withAt(this.root, path, reduced),
      ]);
    }
    const properties = propertiesOf(this.doc, view);
    for (const part of view.parts) {
      // dependentSchemas forbidding a property (`properties: {p: false}`): send both.
      const dependent = part.schema.dependentSchemas;
      if (!isPlainObject(dependent)) continue;
      const decision = RunContext.decisionOf(part.schema, 'dependentSchemas') ?? part.decision;
      for (const [key, schema] of Object.entries(dependent)) {
        if (!isPlainObject(schema) || !isPlainObject(schema.properties)) continue;
        for (const [excluded, sub] of Object.entries(schema.properties)) {
          if (sub !== false) continue;
          const name = `${label}: ${excluded} together with ${key}`;
          const missing =
            value[key] !== undefined && value[excluded] === undefined ? excluded : value[excluded] !== undefined && value[key] === undefined ? key : undefined;
          const missingView = missing ? properties.get(missing) : undefined;
          const sample = missingView ? sampleValue(this.doc, missingView) : undefined;
          if (missing && sample !== undefined)
            this.propose(RANK.structure, name, toPointer([...path, excluded]), 'false schema', decision, [withAt(this.root, [...path, missing], sample)]);
        }
      }
    }
    for (const key of Object.keys(value)) {
      const property = properties.get(key);
      if (property) this.walk(property, [...path, key]);
    }
  }

  private array(view: SchemaView, path: string[], value: unknown[], at: string): void {
    const minItems = keywordOf(view, 'minItems');
    if (typeof minItems?.value === 'number' && minItems.value > 0 && value.length >= minItems.value) {
      this.propose(
        RANK.limit,
        `${at}: fewer than ${minItems.value} items`,
        at,
        'minItems',
        minItems.decision,
        this.replacing(path, [value.slice(0, minItems.value - 1)]),
      );
    }
    const maxItems = keywordOf(view, 'maxItems');
    if (typeof maxItems?.value === 'number' && value.length > 0) {
      this.propose(
        RANK.limit,
        `${at}: more than ${maxItems.value} items`,
        at,
        'maxItems',
        maxItems.decision,
        this.replacing(path, [Array.from({ length: maxItems.value + 1 }, () => value[0])]),
      );
    }
    const items = itemsOf(this.doc, view);
    if (items && value.length > 0) this.walk(items, [...path, '0']);
  }

  private number(view: SchemaView, path: string[], value: number, at: string): void {
    const limit = (keyword: string, what: string, values: (n: number) => number[]) => {
      const found = keywordOf(view, keyword);
      if (typeof found?.value === 'number')
        this.propose(RANK.limit, `${at}: ${what} ${found.value}`, at, keyword, found.decision, this.replacing(path, values(found.value)));
    };
    limit('minimum', 'below minimum', (n) => [n - 1]);
    limit('maximum', 'above maximum', (n) => [n + 1]);
    limit('exclusiveMinimum', 'not above exclusiveMinimum', (n) => [n]);
    limit('exclusiveMaximum', 'not below exclusiveMaximum', (n) => [n]);
    if (typesOf(view).includes('integer') && !typesOf(view).includes('number')) {
      this.propose(RANK.limit, `${at}: fraction for integer`, at, 'type', keywordOf(view, 'type')?.decision, this.replacing(path, [value + 0.5]));
    }
    this.format(view, path, value, at);
  }

  private string(view: SchemaView, path: string[], value: string, at: string): void {
    const maxLength = keywordOf(view, 'maxLength');
    // A string whose pattern, format or enum already bounds it gets those broken instead (D49 put a
    // maxLength on every string; over it, such a value breaks the pattern first).
    const boundedOtherwise = ['pattern', 'format', 'enum'].some((keyword) => keywordOf(view, keyword) !== undefined);
    if (typeof maxLength?.value === 'number' && !boundedOtherwise) {
      const pad = 'x'.repeat(Math.max(maxLength.value + 1 - value.length, 1));
      this.propose(
        RANK.limit,
        `${at}: over maxLength ${maxLength.value}`,
        at,
        'maxLength',
        maxLength.decision,
        this.replacing(path, [value + pad, pad + value, 'x'.repeat(maxLength.value + 1)]),
      );
    }
    const minLength = keywordOf(view, 'minLength');
    if (typeof minLength?.value === 'number' && minLength.value > 0) {
      this.propose(
        RANK.limit,
        `${at}: under minLength ${minLength.value}`,
        at,
        'minLength',
        minLength.decision,
        this.replacing(path, [value.slice(0, minLength.value - 1)]),
      );
    }
    const pattern = keywordOf(view, 'pattern');
    if (typeof pattern?.value === 'string') {
      const regex = new RegExp(pattern.value, 'u');
      const values = [`${value}!`, `!${value}`, `${value} x`, '', 'x'].filter((v) => !regex.test(v));
      this.propose(RANK.limit, `${at}: breaks pattern`, at, 'pattern', pattern.decision, this.replacing(path, values));
    }
    const values = keywordOf(view, 'enum');
    if (Array.isArray(values?.value)) {
      const allowed = values.value;
      const outside = [value.toLowerCase(), `${value}_X`, 'X'].filter((v) => !allowed.includes(v));
      this.propose(RANK.limit, `${at}: not in enum`, at, 'enum', values.decision, this.replacing(path, outside));
    }
    this.format(view, path, value, at);
  }

  private format(view: SchemaView, path: string[], value: string | number, at: string): void {
    const format = keywordOf(view, 'format');
    if (typeof format?.value !== 'string') return;
    const breaker = formatBreakers[format.value];
    if (!breaker) return;
    this.propose(RANK.limit, `${at}: ${breaker.name}`, at, 'format', format.decision, this.replacing(path, breaker.values(value as never)));
  }
}

/**
 * Values that break a format while staying close to a valid one. The formats are standards
 * (RFC 5322 e-mail, RFC 3339 date-time, RFC 3986 URI) and the contract's own: `cpf-cnpj`
 * (Receita Federal mod-11 check digits, D23), `phone-br` and `cep` (10–11 and 8 digits once
 * punctuation is ignored, D24, D46) and `brl` (at most two decimal places, D17).
 */
const formatBreakers: Record<string, { name: string; values: (value: never) => unknown[] }> = {
  'cpf-cnpj': { name: 'wrong check digit', values: (v: string) => [`${v.slice(0, -1)}${(Number(v.at(-1)) + 1) % 10}`] },
  // Too many digits: still only characters the request pattern allows (D46), so the format alone is broken.
  'phone-br': { name: 'too many digits for a phone', values: (v: string) => [`${v}00`] },
  cep: { name: 'nine digits for a CEP', values: (v: string) => [`${v}0`] },
  brl: { name: '3 decimal places', values: (v: number) => [Math.round(v * 100) / 100 + 0.001, 1.001] },
  email: { name: 'not an e-mail address', values: (v: string) => [v.replace('@', ''), 'not-an-email'] },
  'date-time': { name: 'not a date-time', values: (v: string) => [v.replace(/^(\d{4})-\d\d/, '$1-13'), '21/11/2026 14:30'] },
  date: { name: 'not a date', values: (v: string) => [v.replace(/^(\d{4})-\d\d/, '$1-13'), '21/11/2026'] },
  uri: { name: 'not a URI', values: (v: string) => [v.replace('://', '://exa mple.'), 'http://[x', 'not a uri'] },
  uuid: { name: 'not a UUID', values: () => ['not-a-uuid'] },
};

/**
 * What a parameter's schema sees of a value sent as text: a number where the schema wants a
 * number and the text is one, `true`/`false` where it wants a boolean, else the text (so `ten`
 * for an integer breaks `type`, as a server reading the parameter by its schema finds).
 */
export function parameterValue(ctx: RunContext, parameter: HeaderParameter & { view?: SchemaView }, raw: string): unknown {
  const types = typesOf(parameter.view ?? viewOf(ctx.contract, parameter.schema));
  if ((types.includes('integer') || types.includes('number')) && /^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  if (types.includes('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

/** `limit=0`, `after="…"`: a parameter and the value sent, quoted unless plain, shortened in the middle when long. */
function shownParameter(name: string, value: string): string {
  const long = value.length > 40;
  const cut = long ? `${value.slice(0, 16)}…${value.slice(-8)}` : value;
  return `${name}=${/^[\w.-]+$/.test(cut) ? cut : JSON.stringify(cut)}${long ? ` (${value.length} characters)` : ''}`;
}

/**
 * Header or query parameters: a required one left out, and values breaking the schema (past a
 * number's limits, a word where a number is expected, a pattern, a length or an enum broken).
 */
function parameterCandidates(ctx: RunContext, parameters: readonly ParameterView[], body: unknown, location: 'header' | 'query'): Candidate[] {
  const out: Candidate[] = [];
  for (const parameter of parameters) {
    const label = `${location} ${parameter.name}`;
    const base = { rank: RANK[location], body, parameter, at: '' };
    if (parameter.required) out.push({ ...base, name: `${label}: missing`, keyword: 'required' });
    const { view } = parameter;
    const sample = parameter.example ?? sampleValue(ctx.contract, view);
    const example = typeof sample === 'string' ? sample : typeof sample === 'number' && location === 'query' ? String(sample) : undefined;
    if (example === undefined) continue;
    const validate = ctx.full.at(parameter.pointer);
    const propose = (what: string, keyword: string, values: string[]) => {
      // Values must stay sendable: printable ASCII, no line breaks.
      const value = values.find(
        (v) => /^[\x20-\x7e]*$/.test(v) && !validate(parameterValue(ctx, parameter, v)) && (validate.errors ?? []).some((e) => e.keyword === keyword),
      );
      if (value === undefined) return;
      const hint = keywordOf(view, keyword)?.decision;
      const sent =
        location === 'header'
          ? { name: `${label}: ${what}`, headers: { [parameter.name]: value } }
          : { name: `query ${shownParameter(parameter.name, value)}: ${what}`, query: { [parameter.name]: value } };
      out.push({ ...base, ...sent, keyword, ...(hint ? { hint } : {}) });
    };
    const types = typesOf(view);
    if (types.length > 0 && !types.includes('string')) {
      for (const [keyword, what, shift] of [
        ['minimum', 'below minimum', -1],
        ['maximum', 'above maximum', 1],
        ['exclusiveMinimum', 'not above exclusiveMinimum', 0],
        ['exclusiveMaximum', 'not below exclusiveMaximum', 0],
      ] as const) {
        const limit = keywordOf(view, keyword)?.value;
        if (typeof limit === 'number') propose(`${what} ${limit}`, keyword, [String(limit + shift)]);
      }
      if (types.includes('integer') && !types.includes('number')) propose('fraction for integer', 'type', [`${example}.5`]);
      propose(`a word instead of ${types.join(' or ')}`, 'type', ['ten']);
    }
    const pattern = keywordOf(view, 'pattern')?.value;
    if (typeof pattern === 'string') propose('breaks pattern', 'pattern', [`${example} x`, `${example}!`, `!${example}`, '"', 'x x']);
    const maxLength = keywordOf(view, 'maxLength')?.value;
    if (typeof maxLength === 'number') propose(`over maxLength ${maxLength}`, 'maxLength', [example + 'x'.repeat(Math.max(maxLength + 1 - example.length, 1))]);
    const minLength = keywordOf(view, 'minLength')?.value;
    if (typeof minLength === 'number' && minLength > 0) propose(`under minLength ${minLength}`, 'minLength', [example.slice(0, minLength - 1)]);
    const values = keywordOf(view, 'enum')?.value;
    if (Array.isArray(values))
      propose(
        'not in enum',
        'enum',
        [example.toLowerCase(), `${example}_X`].filter((v) => !values.includes(v)),
      );
  }
  return out;
}

function jsonType(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'object' ? 'object' : typeof value;
}

/**
 * The forms of an operation's request body that the contract alone gives (bodies.ts makes each
 * the run's own): every request example, each with only the fields it needs, each with every
 * optional field the schema offers a value for, the first of those with its enumerated values
 * shifted along their `enum`s, and with its numbers written the Brazilian way (D46). They depend
 * on nothing the run learns, so a run works them out once per operation (contract-view.ts).
 */
import type { Validate } from '../../lib/contract/ajv.js';
import type { JsonObject } from '../../lib/contract/bundled.js';
import { isDeprecated, isPlainObject, itemsOf, keywordOf, propertiesOf, requiredOf, sampleValue, type RequestBodyInfo, type SchemaView } from './schema.js';

/** One form of a request body, as the contract gives it (the contract's example ids, no run-id tags). */
export interface BodyTemplate {
  name: string;
  body: unknown;
  /** The decision the form rests on: fields left out that only a decision makes optional, values only a decision admits. */
  decision?: string;
  /** One of the contract's examples as it is (sent unchanged against a stateless target). */
  example: boolean;
}

/**
 * The fields that carry the run id, and how (issue 4: "tagged with a run id (names,
 * `externalId`)"; a product's `sku` and `displayId` too). The identifier-like ones also get a
 * number of their own: a service may hold them unique per company, and the run sends the same
 * example many times, so a correct service could otherwise refuse a valid body as a duplicate.
 */
export const tagFormats = new Map<string, (value: string, tag: string, next: () => number) => string>([
  ['name', (value, tag) => `${value} ${tag}`],
  ['externalId', (value, tag, next) => `${value}-${tag}-${next()}`],
  ['sku', (value, tag, next) => `${value}-${tag}-${next()}`],
  ['displayId', (value, tag, next) => `${value}-${tag}-${next()}`],
]);

/**
 * The forms, in the order they are sent:
 * 1. every request example of the operation in the contract;
 * 2. each example with only the fields it needs (optional fields dropped while the body
 *    stays valid, so a schema `anyOf` such as a payment link's total-or-items keeps one);
 * 3. each example with every optional field the schema offers a value for added (from the
 *    schema's own `examples` / `enum` / `default`), while the body stays valid;
 * 4. variants of (3) with every enumerated value moved 1, 2 … places along its `enum`, until
 *    every value of the longest enum has been sent once;
 * 5. (3) with every CPF/CNPJ, phone and CEP written as Brazilian forms write them (D46).
 */
export function bodyTemplates(doc: JsonObject, validate: Validate, info: RequestBodyInfo, view: SchemaView): BodyTemplate[] {
  const templates: BodyTemplate[] = info.examples.map((example) => ({ name: `example ${example.name}`, body: example.value, example: true }));
  const optionalityDecision = ['required', 'allOf', 'anyOf', 'oneOf', 'minProperties', 'dependentSchemas']
    .map((k) => keywordOf(view, k)?.decision)
    .find(Boolean);
  for (const example of info.examples) {
    const minimal = structuredClone(example.value);
    stripOptional(doc, validate, minimal, minimal, view);
    // A record the run creates must carry the run id even in its smallest form (issue 4): the
    // example's top-level tag fields stay, so a minimal payment link or order is still findable.
    if (isPlainObject(example.value) && isPlainObject(minimal)) {
      for (const key of tagFormats.keys()) if (minimal[key] === undefined && typeof example.value[key] === 'string') minimal[key] = example.value[key];
    }
    templates.push({
      name: `example ${example.name}, required fields only`,
      body: minimal,
      example: false,
      ...(optionalityDecision ? { decision: optionalityDecision } : {}),
    });
  }
  const filled: unknown[] = [];
  for (const example of info.examples) {
    const full = structuredClone(example.value);
    fillOptional(doc, validate, full, full, view);
    filled.push(full);
    templates.push({ name: `example ${example.name}, every optional field`, body: full, example: false });
  }
  // Every value of every enumerated field is sent once: as many shifts as the longest enum has other values.
  const shifts = filled[0] === undefined ? 0 : longestEnum(doc, filled[0], view) - 1;
  for (let k = 1; k <= shifts; k++) {
    templates.push({ name: `every optional field, enumerated values shifted by ${k}`, body: shiftEnums(doc, filled[0], view, k), example: false });
  }
  if (filled[0] !== undefined) {
    // D46: the same body with every CPF/CNPJ, phone and CEP written as Brazilian forms write them.
    const written = writtenTheBrazilianWay(doc, filled[0], view);
    if (written)
      templates.push({
        name: 'every optional field, numbers written the Brazilian way',
        body: written.body,
        example: false,
        ...(written.decision ? { decision: written.decision } : {}),
      });
  }
  return templates;
}

/** Drops every optional property (at every level present) whose removal keeps the whole body valid. */
export function stripOptional(doc: JsonObject, validate: Validate, root: unknown, node: unknown, view: SchemaView): void {
  if (Array.isArray(node)) {
    const items = itemsOf(doc, view);
    if (items)
      node.forEach((item) => {
        stripOptional(doc, validate, root, item, items);
      });
    return;
  }
  if (!isPlainObject(node)) return;
  const required = requiredOf(view);
  for (const key of Object.keys(node)) {
    if (required.has(key)) continue;
    const saved = node[key];
    delete node[key];
    if (!validate(root)) node[key] = saved;
  }
  const properties = propertiesOf(doc, view);
  for (const [key, value] of Object.entries(node)) {
    const property = properties.get(key);
    if (property) stripOptional(doc, validate, root, value, property);
  }
}

/** Adds every absent, not deprecated property the schema offers a value for, while the whole body stays valid. */
export function fillOptional(doc: JsonObject, validate: Validate, root: unknown, node: unknown, view: SchemaView): void {
  if (Array.isArray(node)) {
    const items = itemsOf(doc, view);
    if (items)
      node.forEach((item) => {
        fillOptional(doc, validate, root, item, items);
      });
    return;
  }
  if (!isPlainObject(node)) return;
  const properties = propertiesOf(doc, view);
  for (const [key, property] of properties) {
    if (node[key] !== undefined || isDeprecated(property)) continue;
    const value = sampleValue(doc, property);
    if (value === undefined) continue;
    node[key] = value;
    if (!validate(root)) delete node[key];
  }
  for (const [key, value] of Object.entries(node)) {
    const property = properties.get(key);
    if (property) fillOptional(doc, validate, root, value, property);
  }
}

/** A copy of `body` with each value that is neither an array nor an object replaced by `leaf(value, its schema)`. */
function mapLeaves(doc: JsonObject, body: unknown, view: SchemaView, leaf: (node: unknown, nodeView: SchemaView) => unknown): unknown {
  const visit = (node: unknown, nodeView: SchemaView): unknown => {
    if (Array.isArray(node)) {
      const items = itemsOf(doc, nodeView);
      return items ? node.map((item) => visit(item, items)) : node;
    }
    if (isPlainObject(node)) {
      const properties = propertiesOf(doc, nodeView);
      return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, properties.has(key) ? visit(value, properties.get(key)!) : value]));
    }
    return leaf(node, nodeView);
  };
  return visit(structuredClone(body), view);
}

/** The length of the longest `enum` among the values of `body` (0 when none is enumerated). */
function longestEnum(doc: JsonObject, body: unknown, view: SchemaView): number {
  let longest = 0;
  mapLeaves(doc, body, view, (node, nodeView) => {
    const values = keywordOf(nodeView, 'enum')?.value;
    if (Array.isArray(values) && values.includes(node)) longest = Math.max(longest, values.length);
    return node;
  });
  return longest;
}

/** A copy with every enumerated string moved `k` places along its `enum`. */
function shiftEnums(doc: JsonObject, body: unknown, view: SchemaView, k: number): unknown {
  return mapLeaves(doc, body, view, (node, nodeView) => {
    const values = keywordOf(nodeView, 'enum')?.value;
    return Array.isArray(values) && values.length > 1 && values.includes(node) ? values[(values.indexOf(node) + k) % values.length] : node;
  });
}

/**
 * The usual Brazilian masks of the formats whose values a service stores as digits (D46):
 * CPF `000.000.000-00`, CNPJ `00.000.000/0000-00`, phone `+55 (00) 00000-0000`, CEP `00000-000`.
 */
const brazilianMasks: Record<string, (digits: string) => string | undefined> = {
  'cpf-cnpj': (d) =>
    /^\d{11}$/.test(d)
      ? `${d.slice(0, 3)}.${d.slice(3, 6)}.${d.slice(6, 9)}-${d.slice(9)}`
      : /^\d{14}$/.test(d)
        ? `${d.slice(0, 2)}.${d.slice(2, 5)}.${d.slice(5, 8)}/${d.slice(8, 12)}-${d.slice(12)}`
        : undefined,
  'phone-br': (d) => (/^\d{10,11}$/.test(d) ? `+55 (${d.slice(0, 2)}) ${d.slice(2, -4)}-${d.slice(-4)}` : undefined),
  cep: (d) => (/^\d{8}$/.test(d) ? `${d.slice(0, 5)}-${d.slice(5)}` : undefined),
};

/**
 * A copy of `body` with every value of a masked format written with its mask, and the decision
 * that admits the masked form (the one the request pattern rests on); undefined when the body
 * has no such value.
 */
function writtenTheBrazilianWay(doc: JsonObject, body: unknown, view: SchemaView): { body: unknown; decision?: string } | undefined {
  let decision: string | undefined;
  let changed = false;
  const written = mapLeaves(doc, body, view, (node, nodeView) => {
    const format = keywordOf(nodeView, 'format')?.value;
    const masked = typeof node === 'string' && typeof format === 'string' ? brazilianMasks[format]?.(node) : undefined;
    if (masked === undefined) return node;
    changed = true;
    decision ??= keywordOf(nodeView, 'pattern')?.decision;
    return masked;
  });
  return changed ? { body: written, ...(decision ? { decision } : {}) } : undefined;
}

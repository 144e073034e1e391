import { deref, isJsonObject as isObject, resolvePointer, type JsonObject } from './bundled.js';
import { formatNormaliser } from './formats.js';

/**
 * Puts a valid request body into the form the service stores (D46), as the contract says:
 * every string whose schema names a custom format with a normal form (`cpf-cnpj`,
 * `phone-br`, `cep`; see formats.ts) is replaced by that form. Nothing here knows a field
 * name, so a new field needs only its format in the contract.
 *
 * The walk follows what request schemas use: `$ref`, `allOf`, `properties` and `items`.
 */
export type Normaliser = (value: unknown) => unknown;

interface Plan {
  normalise?: (value: string) => string;
  properties?: Map<string, Plan>;
  items?: Plan;
}

/** The normaliser of the schema at `pointer` in `doc`; the identity when nothing in it has a normal form. */
export function contractNormaliser(doc: JsonObject, pointer: string): Normaliser {
  const plan = planOf(doc, [resolvePointer(doc, pointer)], new Map());
  return plan ? (value) => apply(plan, value) : (value) => value;
}

/** The schemas and everything that applies with them through `$ref` and `allOf`. */
function partsOf(doc: JsonObject, schemas: readonly unknown[]): JsonObject[] {
  const parts: JsonObject[] = [];
  const visit = (node: unknown): void => {
    if (!isObject(node) || parts.includes(node)) return;
    parts.push(node);
    if (typeof node.$ref === 'string') visit(deref(doc, { $ref: node.$ref }));
    if (Array.isArray(node.allOf)) node.allOf.forEach(visit);
  };
  schemas.forEach(visit);
  return parts;
}

/** What to do with a value that all of `schemas` apply to, or undefined when nothing in it changes. */
function planOf(doc: JsonObject, schemas: readonly unknown[], memo: Map<unknown, Plan | undefined>): Plan | undefined {
  // A schema that refers back to itself is walked once: the inner reference gets the plan
  // being built, which is complete by the time a value is normalised.
  const key = schemas.length === 1 ? schemas[0] : undefined;
  if (key !== undefined && memo.has(key)) return memo.get(key);
  const plan: Plan = {};
  if (key !== undefined) memo.set(key, plan);
  const properties = new Map<string, unknown[]>();
  const items: unknown[] = [];
  for (const part of partsOf(doc, schemas)) {
    const normalise = typeof part.format === 'string' ? formatNormaliser(part.format) : undefined;
    if (normalise) plan.normalise ??= normalise;
    if (isObject(part.properties)) {
      for (const [name, sub] of Object.entries(part.properties)) properties.set(name, [...(properties.get(name) ?? []), sub]);
    }
    if (isObject(part.items)) items.push(part.items);
  }
  for (const [name, subs] of properties) {
    const sub = planOf(doc, subs, memo);
    if (!sub) continue;
    plan.properties ??= new Map();
    plan.properties.set(name, sub);
  }
  if (items.length > 0) {
    const sub = planOf(doc, items, memo);
    if (sub) plan.items = sub;
  }
  const result = plan.normalise || plan.properties || plan.items ? plan : undefined;
  if (key !== undefined) memo.set(key, result);
  return result;
}

function apply(plan: Plan, value: unknown): unknown {
  if (typeof value === 'string') return plan.normalise ? plan.normalise(value) : value;
  if (Array.isArray(value)) {
    if (plan.items) for (let i = 0; i < value.length; i++) value[i] = apply(plan.items, value[i]);
    return value;
  }
  if (isObject(value) && plan.properties) {
    for (const [name, sub] of plan.properties) {
      if (value[name] !== undefined) value[name] = apply(sub, value[name]);
    }
  }
  return value;
}

import type { JsonObject } from '../../lib/contract/bundled.js';

/**
 * The contract as the `seed` profile sees it: what the source document requires, without
 * what the contract decided. Schema keywords named in `x-decided` are removed (an
 * `integer` narrowed from the seed's `number` goes back to `number`), and every schema
 * marked `x-decision` as a whole accepts anything. Validating a response against both
 * views tells a seed failure (wrong in both) from a departure from a decision (wrong in
 * the full contract only).
 */
export function seedView(contract: JsonObject): JsonObject {
  return strip(structuredClone(contract), false) as JsonObject;
}

/** Keywords whose removal changes what a schema accepts; others (`description`, `default`) are left alone. */
function strip(node: unknown, inSchema: boolean): unknown {
  if (Array.isArray(node)) return node.map((item) => strip(item, inSchema));
  if (!node || typeof node !== 'object') return node;
  const object = node as JsonObject;
  if (inSchema && typeof object['x-decision'] === 'string') {
    // The whole schema is a decision: the seed says nothing about this value.
    return { description: object.description, 'x-decision': object['x-decision'] };
  }
  const decided = object['x-decided'];
  if (inSchema && decided && typeof decided === 'object') {
    for (const keyword of Object.keys(decided as JsonObject)) {
      if (keyword === 'type' && object.type === 'integer') object.type = 'number';
      else if (keyword !== 'description' && keyword !== 'default') delete object[keyword];
    }
  }
  for (const [key, value] of Object.entries(object)) {
    if (key === 'x-decided' || key === 'examples' || key === 'example') continue;
    object[key] = strip(value, inSchema || isSchemaSlot(key));
  }
  return object;
}

/** Keys under which OpenAPI puts a schema (or a map or list of them). */
function isSchemaSlot(key: string): boolean {
  return key === 'schema' || key === 'schemas';
}

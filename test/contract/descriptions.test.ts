/**
 * Docs readers see a description for every field: on the property itself, on the
 * schema it references, or on the first `allOf` member that has one.
 */
import { describe, expect, test } from 'vitest';
import { deref, loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';

function describedBy(doc: JsonObject, property: JsonObject): string | undefined {
  const own = property.description ?? deref<JsonObject>(doc, property).description;
  if (typeof own === 'string' && own.trim() !== '') return own;
  const members = Array.isArray(property.allOf) ? (property.allOf as unknown[]) : [];
  return members.map((member) => deref<JsonObject>(doc, member).description).find((d): d is string => typeof d === 'string');
}

function undescribedProperties(doc: JsonObject): string[] {
  const schemas = ((doc.components as JsonObject).schemas ?? {}) as Record<string, JsonObject>;
  return Object.entries(schemas).flatMap(([name, schema]) =>
    Object.entries((schema.properties ?? {}) as Record<string, JsonObject>)
      .filter(([, property]) => !describedBy(doc, property))
      .map(([property]) => `${name}.${property}`),
  );
}

describe('undescribedProperties', () => {
  const base = (property: JsonObject): JsonObject => ({
    components: { schemas: { Thing: { properties: { field: property } }, Ref: { type: 'string', description: 'from ref' } } },
  });
  const cases: Array<[string, { given: JsonObject; want: string[] }]> = [
    ['own description', { given: base({ type: 'string', description: 'd' }), want: [] }],
    ['through $ref', { given: base({ $ref: '#/components/schemas/Ref' }), want: [] }],
    ['through allOf', { given: base({ type: 'string', allOf: [{ $ref: '#/components/schemas/Ref' }] }), want: [] }],
    ['none', { given: base({ type: 'string' }), want: ['Thing.field'] }],
    ['blank', { given: base({ type: 'string', description: '  ' }), want: ['Thing.field'] }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(undescribedProperties(given)).toEqual(want);
  });
});

test('every property of every schema of the contract has a description', () => {
  expect(undescribedProperties(loadBundledContract())).toEqual([]);
});

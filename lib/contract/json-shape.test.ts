/**
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deref, type JsonObject, loadBundledContract, listOperations, requestBodySchemaPointer } from './bundled.js';
import { scanJsonShape, shapeLimits, type ShapeLimits } from './json-shape.js';
import { splitPointer } from './pointer.js';

const contract = loadBundledContract();

/** How deep a parsed value nests, and its widest object: the scan's two measures, the slow way. */
function measure(value: unknown): { depth: number; members: number } {
  if (value === null || typeof value !== 'object') return { depth: 0, members: 0 };
  const children = Object.values(value).map(measure);
  return {
    depth: 1 + Math.max(0, ...children.map((c) => c.depth)),
    members: Math.max(Array.isArray(value) ? 0 : Object.keys(value).length, ...children.map((c) => c.members)),
  };
}

function at(value: unknown, pointer: string): unknown {
  return splitPointer(pointer).reduce<unknown>((node, token) => (node as Record<string, unknown>)[token], value);
}

describe('shapeLimits', () => {
  it('lets through every example request body of the contract', () => {
    const limits = shapeLimits(contract);
    const bodies = listOperations(contract).flatMap((op) => {
      if (requestBodySchemaPointer(contract, op) === undefined) return [];
      const body = deref<JsonObject>(contract, op.operation.requestBody);
      const media = deref<JsonObject>(contract, (body.content as JsonObject)['application/json']);
      return Object.values((media.examples ?? {}) as JsonObject).map((example) => deref<JsonObject>(contract, example).value);
    });
    expect(bodies.length).toBeGreaterThan(5);
    for (const body of bodies) expect(scanJsonShape(JSON.stringify(body), limits)).toBeUndefined();
    expect(limits.maxDepth).toBeLessThanOrEqual(32);
    expect(limits.maxMembers).toBeLessThanOrEqual(1024);
  });

  it('bounds depth by the deepest request schema, not by the ceiling', () => {
    // The contract's request bodies are closed objects a few levels deep (D49).
    expect(shapeLimits(contract).maxDepth).toBeLessThan(16);
  });

  it('sets the ceiling where a request schema allows any depth', () => {
    const open = {
      openapi: '3.1.0',
      paths: { '/x': { post: { operationId: 'x', requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } } } },
    };
    expect(shapeLimits(open)).toEqual({ maxDepth: 32, maxMembers: 1024 });
  });
});

describe('scanJsonShape', () => {
  const limits: ShapeLimits = { maxDepth: 3, maxMembers: 4 };

  it.each([
    ['a scalar', '"[[[[[["', undefined],
    ['brackets inside strings', '{"a":"[[[[{{{{","b\\"[[[[":1}', undefined],
    ['three levels', '{"a":[{"b":1}]}', undefined],
    ['four levels', '{"a":[{"b":[1]}]}', { kind: 'depth', pointer: '/a/0/b' }],
    ['four levels in the second item', '[1,[2,[3,[4]]]]', { kind: 'depth', pointer: '/1/1/1' }],
    ['an escaped key on the way', '{"a\\/b~c":[[[1]]]}', { kind: 'depth', pointer: '/a~1b~0c/0/0' }],
    ['four fields', '{"a":1,"b":2,"c":3,"d":4}', undefined],
    ['five fields', '{"a":1,"b":2,"c":3,"d":4,"e":5}', { kind: 'members', pointer: '' }],
    ['five fields one level down', '{"x":[{"a":1,"b":2,"c":3,"d":4,"e":5}]}', { kind: 'members', pointer: '/x/0' }],
    ['five colons in strings', '{"a":"::::::","b:":":"}', undefined],
    ['not JSON at all', '}}]]{', undefined],
  ])('%s', (_name, text, expected) => {
    const breach = scanJsonShape(text, limits);
    if (expected === undefined) expect(breach).toBeUndefined();
    else expect(breach).toMatchObject(expected);
  });

  it('says where and what in words a person can act on', () => {
    expect(scanJsonShape('[[[[[]]]]]', limits)?.detail).toBe('this value nests deeper than the 3 levels any request of this API may have');
    expect(scanJsonShape('{"a":1,"b":2,"c":3,"d":4,"e":5}', limits)?.detail).toBe(
      'the body has more than the 4 fields any object of a request of this API may have',
    );
  });

  it('refuses exactly the values past a bound, and points at a container that is', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 }), (value, maxDepth, maxMembers) => {
        const text = JSON.stringify(value);
        const breach = scanJsonShape(text, { maxDepth, maxMembers });
        const { depth, members } = measure(value);
        expect(breach === undefined).toBe(depth <= maxDepth && members <= maxMembers);
        if (breach) {
          const target = at(value, breach.pointer);
          expect(typeof target).toBe('object');
          if (breach.kind === 'members') expect(Object.keys(target as object).length).toBeGreaterThan(maxMembers);
          else expect(splitPointer(breach.pointer).length + 1).toBe(maxDepth + 1);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('scans a megabyte of nesting or of fields without parsing it', () => {
    const contractLimits = shapeLimits(contract);
    const deep = `{"url":"https://a.invalid/","name":"n","events":${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
    expect(scanJsonShape(deep, contractLimits)).toMatchObject({ kind: 'depth', keyword: 'maxDepth' });
    const wide = `{${Array.from({ length: 100_000 }, (_, i) => `"k${i}":0`).join(',')}}`;
    expect(scanJsonShape(wide, contractLimits)).toMatchObject({ kind: 'members', pointer: '' });
  });
});

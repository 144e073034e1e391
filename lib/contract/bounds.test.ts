import { describe, expect, test } from 'vitest';
import { boundsGuard } from './bounds.js';

/** A contract with one schema: a closed object whose field `a/b` is a short list of objects with a short name. */
const contract = {
  components: {
    schemas: {
      Body: {
        type: 'object',
        additionalProperties: false,
        properties: {
          'a/b': { type: 'array', maxItems: 2, items: { $ref: '#/components/schemas/Item' } },
          note: { type: 'string', maxLength: 4 },
        },
      },
      Item: { type: 'object', properties: { 'na~me': { type: 'string', maxLength: 3 } } },
    },
  },
};

describe('boundsGuard', () => {
  const guard = boundsGuard(contract, '/components/schemas/Body');

  test('a value within its bounds: no breach, the value as it was', () => {
    const value = { 'a/b': [{ 'na~me': 'abc' }, { 'na~me': 'de' }], note: 'ok' };
    expect(guard(value)).toEqual({ errors: [], omitted: 0 });
    expect(value).toEqual({ 'a/b': [{ 'na~me': 'abc' }, { 'na~me': 'de' }], note: 'ok' });
  });

  test('each breach is reported at its pointer, its tokens escaped, and cut to just past its bound', () => {
    const value = { note: 'too long', 'a/b': [{ 'na~me': 'abc' }, { 'na~me': 'abcdef' }, {}, {}] };
    expect(guard(value).errors).toEqual([
      { pointer: '/note', detail: 'must have at most 4 characters (has 8)', keyword: 'maxLength' },
      { pointer: '/a~1b', detail: 'must have at most 2 items (has 4)', keyword: 'maxItems' },
      { pointer: '/a~1b/1/na~0me', detail: 'must have at most 3 characters (has 6)', keyword: 'maxLength' },
    ]);
    expect(value).toEqual({ note: 'too l', 'a/b': [{ 'na~me': 'abc' }, { 'na~me': 'abcd' }, {}] });
  });
});

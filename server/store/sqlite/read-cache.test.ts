import { describe, expect, test } from 'vitest';
import { ReadCache, tableWritten } from './read-cache.js';
import type { AnyStatement, Op } from '../sql/step.js';

const statement = (sql: string): AnyStatement => ({ sql });
const page = (text: string) => ({ json: Buffer.from(text) });

describe('tableWritten', () => {
  test.for([
    ['an insert', { given: 'INSERT INTO charges (id) VALUES (?)', want: 'charges' }],
    ['an insert or ignore', { given: 'INSERT OR IGNORE INTO Charges (id) VALUES (?)', want: 'charges' }],
    ['an update over lines', { given: '\n  UPDATE charges\n SET doc = ?', want: 'charges' }],
    ['a delete', { given: 'DELETE FROM webhooks WHERE id = ?', want: 'webhooks' }],
    ['a read', { given: 'SELECT doc FROM charges WHERE id = ?', want: undefined }],
  ] as const)('%s', ([, { given, want }]) => {
    expect(tableWritten(given)).toBe(want);
  });
});

describe('ReadCache', () => {
  const getCharge = statement('SELECT doc FROM charges WHERE company_id = ? AND id = ?');
  const getWebhook = statement('SELECT doc FROM webhooks WHERE company_id = ? AND id = ?');
  const op = (s: AnyStatement, ...params: string[]): Op => ({ kind: 'get', statement: s, params });

  test('keeps the rows of its reads, "no such row" included, until the table is written', () => {
    const cache = new ReadCache([getCharge]);
    expect(cache.lookup(op(getCharge, 'a', '1'))).toBeUndefined();
    cache.keep(op(getCharge, 'a', '1'), { doc: '{}' });
    cache.keep(op(getCharge, 'a', '2'), undefined);
    expect(cache.lookup(op(getCharge, 'a', '1'))).toEqual({ row: { doc: '{}' } });
    expect(cache.lookup(op(getCharge, 'a', '2'))).toEqual({ row: undefined });
    // Another company's key is another row.
    expect(cache.lookup(op(getCharge, 'b', '1'))).toBeUndefined();
    cache.written('webhooks');
    expect(cache.lookup(op(getCharge, 'a', '1'))).toBeDefined();
    cache.written('charges');
    expect(cache.lookup(op(getCharge, 'a', '1'))).toBeUndefined();
  });

  test('keeps nothing of other statements, and clear forgets everything', () => {
    const cache = new ReadCache([getCharge]);
    cache.keep(op(getWebhook, 'a', '1'), { doc: '{}' });
    expect(cache.lookup(op(getWebhook, 'a', '1'))).toBeUndefined();
    cache.keep(op(getCharge, 'a', '1'), { doc: '{}' });
    cache.clear();
    expect(cache.lookup(op(getCharge, 'a', '1'))).toBeUndefined();
  });

  test('refuses a read it could not invalidate', () => {
    expect(() => new ReadCache([statement('SELECT c.doc FROM charges c JOIN orders o ON o.id = c.id')])).toThrow(/one table/);
  });

  test('keeps a value made from a table until the table is written, and not one made across a write', () => {
    const cache = new ReadCache([]);
    const before = cache.version('clients');
    cache.keepDerived('clients', 'list a', page('[1]'), before);
    expect(cache.lookupDerived('clients', 'list a')).toEqual(page('[1]'));
    cache.written('orders');
    expect(cache.lookupDerived('clients', 'list a')).toEqual(page('[1]'));
    cache.written('clients');
    expect(cache.lookupDerived('clients', 'list a')).toBeUndefined();
    // Made from rows read before that write: not kept.
    cache.keepDerived('clients', 'list a', page('[1]'), before);
    expect(cache.lookupDerived('clients', 'list a')).toBeUndefined();
    cache.keepDerived('clients', 'list a', page('[1,2]'), cache.version('clients'));
    cache.clear();
    expect(cache.lookupDerived('clients', 'list a')).toBeUndefined();
  });
});

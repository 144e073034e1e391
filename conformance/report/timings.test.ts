import { describe, expect, test } from 'vitest';
import type { Exchange } from '../engine/types.js';
import { formatTimings, operationTimings } from './timings.js';

const exchange = (operationId: string, ms: number): Exchange => ({ operationId, request: { method: 'GET', url: 'http://h/x', headers: {} }, ms });

describe('per-operation response times', () => {
  test('p50, p95 and max by nearest rank, in the order of the operations given, only for operations with answers', () => {
    const exchanges = [...Array.from({ length: 100 }, (_, i) => exchange('listClients', i + 1)), exchange('getOrder', 3000)];
    expect(operationTimings(exchanges, ['getOrder', 'createOrder', 'listClients'])).toEqual([
      { operationId: 'getOrder', count: 1, p50: 3000, p95: 3000, max: 3000 },
      { operationId: 'listClients', count: 100, p50: 50, p95: 95, max: 100 },
    ]);
  });

  test('printed as a table, one line per operation', () => {
    const text = formatTimings({ timings: operationTimings([exchange('getOrder', 12.4), exchange('getOrder', 3000)], ['getOrder']) });
    expect(text.split('\n')).toEqual([
      'Response times (2 answers)',
      expect.stringMatching(/^ {2}operation\s+n\s+p50\s+p95\s+max$/),
      expect.stringMatching(/^ {2}getOrder\s+2\s+12 ms\s+3000 ms\s+3000 ms$/),
    ]);
    expect(formatTimings({})).toBe('');
  });
});

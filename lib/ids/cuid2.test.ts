import { init, isCuid } from '@paralleldrive/cuid2';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { base36Head, createId, cuid2Generator } from './cuid2.js';

/** The same sequence of "random" numbers for both generators. */
function sequence(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('cuid2', () => {
  const inputs: Array<[string, { given: { seed: number; time: string; count: number; fingerprint: string; length?: number } }]> = [
    ['a first id', { given: { seed: 1, time: '2026-11-21T14:30:00.000Z', count: 0, fingerprint: 'a'.repeat(32) } }],
    ['another time and counter', { given: { seed: 7, time: '2031-01-02T03:04:05.678Z', count: 476_782_366, fingerprint: 'x9'.repeat(16) } }],
    ['a longer id', { given: { seed: 42, time: '2026-11-21T14:30:00.000Z', count: 12, fingerprint: 'fp', length: 32 } }],
    ['a short id', { given: { seed: 3, time: '2026-11-21T14:30:00.000Z', count: 5, fingerprint: 'fp', length: 10 } }],
  ];

  test.each(inputs)('%s: the same id as @paralleldrive/cuid2 from the same inputs', (_name, { given }) => {
    const at = Date.parse(given.time);
    vi.useFakeTimers({ now: at, toFake: ['Date'] });
    let theirCount = given.count;
    const theirs = init({
      random: sequence(given.seed),
      counter: () => theirCount++,
      fingerprint: given.fingerprint,
      ...(given.length ? { length: given.length } : {}),
    });
    let ourCount = given.count;
    const ours = cuid2Generator({
      random: sequence(given.seed),
      counter: () => ourCount++,
      fingerprint: given.fingerprint,
      now: () => at,
      ...(given.length ? { length: given.length } : {}),
    });
    const want = [theirs(), theirs(), theirs()];
    expect([ours(), ours(), ours()]).toEqual(want);
    expect(want[0]).toHaveLength(given.length ?? 24);
  });

  test('ids of the default generator are cuid2s, distinct, and start with a letter', () => {
    const ids = Array.from({ length: 5_000 }, () => createId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^[a-z][0-9a-z]{23}$/);
      expect(isCuid(id)).toBe(true);
    }
  });

  test('base36Head is the first digits of the whole base-36 text, at every length', () => {
    const values = [0n, 1n, 35n, 36n, 36n ** 24n - 1n, 36n ** 24n, 36n ** 25n, 2n ** 512n - 1n, 36n ** 99n - 1n];
    let x = 0x9e3779b97f4a7c15n;
    for (let i = 0; i < 200; i++) {
      x = (x * 6364136223846793005n + 1442695040888963407n) % 2n ** 512n;
      values.push(x >> BigInt(i * 2));
    }
    for (const value of values) {
      for (const digits of [1, 10, 25, 33]) expect(base36Head(value, digits)).toBe(value.toString(36).slice(0, digits));
    }
  });
});

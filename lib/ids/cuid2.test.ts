import { init, isCuid } from '@paralleldrive/cuid2';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { createId, cuid2Generator } from './cuid2.js';

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
});

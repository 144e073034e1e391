import { hash as nodeHash, randomFillSync } from 'node:crypto';

/**
 * cuid2 ids (https://github.com/paralleldrive/cuid2, D13): a random lower-case letter, then the
 * base-36 SHA3-512 of time, a random salt, a counter and a host fingerprint, 24 characters in
 * all. The same algorithm as `@paralleldrive/cuid2` (the tests compare the two on the same
 * inputs), with Node's native SHA3 and BigInt and random numbers drawn from a pooled CSPRNG:
 * the package's pure-JS hash and big-number arithmetic take about 200 µs an id, which was the
 * largest single cost of creating a charge; this takes a few µs.
 */
export interface Cuid2Options {
  /** A number in [0, 1); default a CSPRNG. */
  random?: () => number;
  counter?: () => number;
  fingerprint?: string;
  length?: number;
  now?: () => number;
}

const DEFAULT_LENGTH = 24;
const BIG_LENGTH = 32;
/** The package's bound for the random start of the counter. */
const INITIAL_COUNT_MAX = 476_782_367;
const alphabet = 'abcdefghijklmnopqrstuvwxyz';

export function cuid2Generator(options: Cuid2Options = {}): () => string {
  const random = options.random ?? pooledRandom();
  const counter = options.counter ?? startCounter(Math.floor(random() * INITIAL_COUNT_MAX));
  const length = options.length ?? DEFAULT_LENGTH;
  const now = options.now ?? Date.now;
  const fingerprint = options.fingerprint ?? hash(Object.keys(globalThis).toString() + entropy(BIG_LENGTH, random)).substring(0, BIG_LENGTH);
  // Ids made in the same millisecond (an order makes five) share its base-36 text, written once.
  let lastNow = Number.NaN;
  let time = '';
  return () => {
    const firstLetter = alphabet[Math.floor(random() * alphabet.length)]!;
    const at = now();
    if (at !== lastNow) {
      lastNow = at;
      time = at.toString(36);
    }
    const sequence = counter().toString(36);
    const salt = entropy(length, random);
    // hash(...).substring(1, length): the hash's base-36 digits 2 to length, so only its first length + 1 are made.
    return firstLetter + base36Head(sha3(time + salt + sequence + fingerprint), length + 1).substring(2);
  };
}

function startCounter(start: number): () => number {
  let count = start;
  return () => count++;
}

/** The base-36 SHA3-512 of the text, without its first digit (which is biased). */
function hash(input: string): string {
  return sha3(input).toString(36).slice(1);
}

function sha3(input: string): bigint {
  return BigInt(`0x${nodeHash('sha3-512', input)}`);
}

/** 36 ** k for every k a SHA3-512 has digits (at most 100 in base 36), and one more. */
const powersOf36 = Array.from({ length: 102 }, (_, k) => 36n ** BigInt(k));

/**
 * The first `digits` digits of `value` written in base 36 (all of them if it has fewer): the
 * quotient by the power of 36 that drops the others, so that the whole hundred digits of a
 * SHA3-512 are never written out (a third of the time of making an id).
 */
export function base36Head(value: bigint, digits: number): string {
  // Its number of digits: the least length (1 to the table's last) whose power of 36 exceeds
  // it, found by halving (seven comparisons of big numbers where counting up took a hundred).
  let low = 1;
  let high = powersOf36.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (value >= powersOf36[middle]!) low = middle + 1;
    else high = middle;
  }
  const length = low;
  return (length <= digits ? value : value / powersOf36[length - digits]!).toString(36);
}

/** The base-36 digits, so that a random digit is a lookup, not a number written in base 36 (a call into V8's runtime). */
const digits36 = '0123456789abcdefghijklmnopqrstuvwxyz';

function entropy(length: number, random: () => number): string {
  let out = '';
  while (out.length < length) out += digits36[Math.floor(random() * 36)];
  return out;
}

/** Uniform numbers in [0, 1) from a CSPRNG, 32 bits each, drawn a thousand at a time. */
function pooledRandom(): () => number {
  const pool = new Uint32Array(1024);
  let next = pool.length;
  return () => {
    if (next === pool.length) {
      randomFillSync(pool);
      next = 0;
    }
    return pool[next++]! / 0x1_0000_0000;
  };
}

/** A cuid2 from this process's generator. */
export const createId: () => string = cuid2Generator();

import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createId } from '../../lib/ids/cuid2.js';
import type { ApiKeyRecord } from '../store/types.js';

/**
 * API keys look like `sk_<keyId>_<secret>`. The key id finds the record; only the
 * SHA-256 of the secret is stored (D04), and it is compared in constant time. The
 * secret has 256 bits of entropy, so a fast hash is enough: there is nothing to guess.
 */
const KEY_FORM = 'sk_([a-z0-9]{24})_([A-Za-z0-9_-]{43})';
const KEY_PATTERN = new RegExp(`^${KEY_FORM}$`);

/** A key anywhere in a text (what `npm start` or `npm run keys` printed), its id and secret captured. */
export const API_KEY_IN_TEXT = new RegExp(KEY_FORM);

export interface IssuedKey {
  /** The key to hand to the company, shown once. */
  apiKey: string;
  record: ApiKeyRecord;
}

export function issueApiKey(companyId: string, now: Date): IssuedKey {
  const keyId = createId();
  const secret = randomBytes(32).toString('base64url');
  return {
    apiKey: `sk_${keyId}_${secret}`,
    record: { id: keyId, companyId, secretHash: hashSecret(secret), createdAt: now.toISOString() },
  };
}

export function parseApiKey(apiKey: string): { keyId: string; secret: string } | undefined {
  const match = KEY_PATTERN.exec(apiKey);
  return match ? { keyId: match[1]!, secret: match[2]! } : undefined;
}

/** How a key is named where it is listed or revoked (D04): its id, the part before the secret, which is safe to show. */
export function keyLabel(keyId: string): string {
  return `sk_${keyId}_…`;
}

/**
 * The key id that a person names a key by: the id itself, its `sk_<key id>_…` label (with or
 * without the ellipsis), or the whole key; undefined for anything else.
 */
export function keyIdOf(named: string): string | undefined {
  const text = named.trim();
  const whole = parseApiKey(text);
  if (whole) return whole.keyId;
  return /^(?:sk_)?([a-z0-9]{24})(?:_(?:…|\.\.\.)?)?$/.exec(text)?.[1];
}

/** The stored hash of a key's secret as bytes, as `secretMatches` compares it (made once per key read, not per request). */
export function secretHashBytes(record: ApiKeyRecord): Buffer {
  return Buffer.from(record.secretHash, 'hex');
}

export function secretMatches(secret: string, storedHash: Buffer): boolean {
  // One-shot hash: no Hash object per request (it was a twelfth of a simple GET).
  const given = hash('sha256', secret, 'buffer');
  return given.length === storedHash.length && timingSafeEqual(given, storedHash);
}

function hashSecret(secret: string): string {
  return hash('sha256', secret);
}

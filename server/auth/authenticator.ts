import type { ApiKeyRecord, CompanyRecord, Store } from '../store/types.js';
import { parseApiKey, secretMatches } from './api-keys.js';

export interface Authenticated {
  company: CompanyRecord;
  keyId: string;
}

/** How long a key's record and company are kept in memory after being read. */
export const KEY_CACHE_MS = 60_000;
/** Most keys kept; past it the memory starts over (a bound, not an LRU: keys in use come back in one read). */
const MAX_CACHED_KEYS = 10_000;

/**
 * Who a presented API key belongs to (D04). A key's record and its company are read from the
 * store once a minute at most instead of on every request: two reads were a third of the work
 * of a simple GET. The secret is still hashed and compared in constant time on every request;
 * only keys that exist are kept, so unknown keys cannot fill the memory.
 */
export class Authenticator {
  private readonly known = new Map<string, { record: ApiKeyRecord; company: CompanyRecord; until: number }>();

  constructor(
    private readonly store: Store,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The company and key id of a valid key; undefined for a missing, malformed, unknown or wrong one. */
  async authenticate(presented: string | undefined): Promise<Authenticated | undefined> {
    const parsed = presented ? parseApiKey(presented.trim()) : undefined;
    if (!parsed) return undefined;
    const now = this.clock();
    let entry = this.known.get(parsed.keyId);
    if (!entry || entry.until <= now) {
      const record = await this.store.findApiKey(parsed.keyId);
      const company = record && (await this.store.getCompany(record.companyId));
      if (!record || !company) return undefined;
      if (this.known.size >= MAX_CACHED_KEYS) this.known.clear();
      entry = { record, company, until: now + KEY_CACHE_MS };
      this.known.set(parsed.keyId, entry);
    }
    return secretMatches(parsed.secret, entry.record) ? { company: entry.company, keyId: entry.record.id } : undefined;
  }
}

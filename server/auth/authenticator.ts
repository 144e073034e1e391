import { timingSafeEqual } from 'node:crypto';
import type { ApiKeyRecord, CompanyRecord, Store } from '../store/types.js';
import { parseApiKey, secretHashBytes, secretMatches } from './api-keys.js';

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
 * of a simple GET. The secret is hashed and compared in constant time; only keys that exist are
 * kept, so unknown keys cannot fill the memory.
 *
 * A connection that presents again the key it presented last, while that key's entry is kept,
 * is answered from the connection's memory: the two keys are compared as bytes, in constant
 * time (behind a proxy one connection may carry many callers' requests, so the comparison must
 * leak nothing of the key kept), without parsing or hashing the key again. A client sends its
 * key on every request of a connection, so this is most requests.
 */
export class Authenticator {
  private readonly known = new Map<string, { record: ApiKeyRecord; hash: Buffer; company: CompanyRecord; until: number }>();
  private readonly connections = new WeakMap<object, { key: Buffer; authenticated: Authenticated; until: number }>();
  /** Where a presented key is encoded to be compared with a connection's last one. */
  private readonly scratch = Buffer.alloc(256);

  constructor(
    private readonly store: Store,
    private readonly clock: () => number = Date.now,
  ) {}

  /**
   * The company and key id of a valid key; undefined for a missing, malformed, unknown or wrong
   * one. `connection` is what the request came on (its socket), when there is one.
   */
  async authenticate(presented: string | undefined, connection?: object): Promise<Authenticated | undefined> {
    if (!presented) return undefined;
    const now = this.clock();
    const last = connection && this.fromConnection(presented, connection, now);
    if (last) return last;
    const parsed = parseApiKey(presented.trim());
    if (!parsed) return undefined;
    let entry = this.known.get(parsed.keyId);
    if (!entry || entry.until <= now) {
      const record = await this.store.findApiKey(parsed.keyId);
      const company = record && (await this.store.getCompany(record.companyId));
      if (!record || !company) return undefined;
      if (this.known.size >= MAX_CACHED_KEYS) this.known.clear();
      entry = { record, hash: secretHashBytes(record), company, until: now + KEY_CACHE_MS };
      this.known.set(parsed.keyId, entry);
    }
    if (!secretMatches(parsed.secret, entry.hash)) return undefined;
    const authenticated = { company: entry.company, keyId: entry.record.id };
    if (connection) this.connections.set(connection, { key: Buffer.from(presented), authenticated, until: entry.until });
    return authenticated;
  }

  /**
   * The company and key id of `presented` when it is the key `connection` presented last and that
   * key's entry is still kept (compared as bytes, in constant time); undefined otherwise, for
   * `authenticate` to tell. Answers at once: most requests are this, and need no promise.
   */
  fromConnection(presented: string, connection: object, now = this.clock()): Authenticated | undefined {
    const last = this.connections.get(connection);
    if (last === undefined || last.until <= now) return undefined;
    // Encoded into one buffer kept for it, not a new one per request (a key that does not fit is not the one kept).
    if (Buffer.byteLength(presented) !== last.key.length || last.key.length > this.scratch.length) return undefined;
    const given = this.scratch.subarray(0, this.scratch.write(presented));
    return timingSafeEqual(given, last.key) ? last.authenticated : undefined;
  }
}

import type { Context } from 'hono';
import { Authenticator } from '../auth/authenticator.js';
import type { AppEnv, Deps, RateLimitFields } from '../deps.js';
import { clientAddress } from './client-address.js';
import { ProblemError } from './problems.js';
import { isStamped } from './request-id.js';

/** Counts one request of a counter (a company, an address) in the window starting at `windowStart` and returns the window's count (`Store.countRequest`). */
export type RequestCounter = (key: string, windowStart: number) => Promise<number>;

/**
 * Whose quota a request spends: its company's, whichever of the company's API keys it carries (a
 * company with N keys has one quota, not N), or a client address's when it carries no valid key.
 */
export type Caller = { companyId: string } | { address: string };

export type { RateLimitFields };

interface Policy {
  /** The policy's name in the fields: `"default"` for a company's keys, `"anonymous"` for addresses. */
  name: string;
  limit: number;
}

/**
 * Fixed-window quotas (D11), counted by the store so that every instance on one database shares
 * them: `limit` requests per company (all its API keys together) per window of `windowSeconds`, and `anonymousLimit` per
 * client address for requests without a valid key (missing, malformed, unknown or wrong). A limit
 * of 0 turns that quota off; a key limit of 0 turns both off. Exceeding a quota is a 429 problem
 * with `Retry-After`; every answer counted carries the IETF `RateLimit` and `RateLimit-Policy`
 * fields, so a client sees its quota before it runs out.
 */
export class RateLimiter {
  private readonly key: Policy;
  private readonly anonymous: Policy;

  constructor(
    limit: number,
    private readonly windowSeconds: number,
    private readonly count: RequestCounter,
    anonymousLimit = 0,
  ) {
    this.key = { name: 'default', limit };
    this.anonymous = { name: 'anonymous', limit: limit === 0 ? 0 : anonymousLimit };
  }

  /** Whether any quota is counted. */
  get enabled(): boolean {
    return this.key.limit > 0 || this.anonymous.limit > 0;
  }

  /**
   * Counts one request of `caller` at `nowMs` and says where its quota stands, over it or not
   * (undefined when its quota is off): what an answer that is refused anyway (a request Node
   * refused before the app) spends and carries.
   */
  async spend(caller: Caller, nowMs: number): Promise<{ fields: RateLimitFields; policy: Policy; used: number; reset: number } | undefined> {
    const policy = 'companyId' in caller ? this.key : this.anonymous;
    if (policy.limit === 0) return undefined;
    const windowMs = this.windowSeconds * 1000;
    const start = nowMs - (nowMs % windowMs);
    // Addresses start with `@`; company ids with `comp_`, so the two never share a counter.
    const used = await this.count('companyId' in caller ? caller.companyId : `@${caller.address}`, start);
    const reset = Math.max(1, Math.ceil((start + windowMs - nowMs) / 1000));
    const fields: RateLimitFields = {
      RateLimit: `"${policy.name}";r=${Math.max(0, policy.limit - used)};t=${reset}`,
      'RateLimit-Policy': `"${policy.name}";q=${policy.limit};w=${this.windowSeconds}`,
    };
    return { fields, policy, used, reset };
  }

  /**
   * Counts one request of `caller` at `nowMs`: the fields its answer carries (undefined when its
   * quota is off); throws the 429 problem when the request is over the quota.
   */
  async take(caller: Caller, nowMs: number): Promise<RateLimitFields | undefined> {
    const spent = await this.spend(caller, nowMs);
    if (spent === undefined) return undefined;
    const { fields, policy, used, reset } = spent;
    if (used <= policy.limit) return fields;
    const who = 'companyId' in caller ? "This company's API keys together" : 'This address, without a valid API key,';
    throw new ProblemError(
      'rateLimited',
      `${who} made more than ${policy.limit} requests in ${this.windowSeconds} second${this.windowSeconds === 1 ? '' : 's'}; retry after ${reset} second${reset === 1 ? '' : 's'}.`,
      { headers: { 'Retry-After': String(reset), ...fields } },
    );
  }
}

/**
 * Who is calling, and their quota, for every request (operations, docs, payment pages, unknown
 * paths): the `X-API-KEY` it presented (`readRequestHead`) is authenticated here once (the operation's checks read the
 * result: a secured operation without a company is a 401); a valid key spends its company's quota,
 * anything else the quota of its client address, so a flood of missing or wrong keys is refused
 * with 429 before it costs more. The answer, whatever it is, carries the RateLimit fields of the
 * quota it spent (`stampRateLimit`).
 */
export function callerIdentifier(deps: Deps): (c: Context<AppEnv>, presented: string | undefined) => Promise<void> | undefined {
  const { config } = deps;
  const limiter = rateLimiterOf(deps);
  const authenticator = new Authenticator(deps.store);
  const identify = async (c: Context<AppEnv>, presented: string | undefined) => {
    const authenticated = presented === undefined ? undefined : await authenticator.authenticate(presented, c.env?.incoming?.socket);
    if (authenticated) c.set('company', authenticated.company);
    if (limiter.enabled) {
      const caller: Caller = authenticated ? { companyId: authenticated.company.doc.id } : { address: clientAddress(c, config.trustedProxyHeader) };
      const fields = await limiter.take(caller, deps.now().getTime());
      if (fields) c.set('rateLimit', fields);
    }
  };
  // The key its connection presented last, with no quota to count: known at once (undefined,
  // nothing to wait for). Anything else is looked up, and counted, in turn.
  return (c, presented) => {
    const socket = c.env?.incoming?.socket;
    if (presented === undefined || socket === undefined || limiter.enabled) return identify(c, presented);
    const known = authenticator.fromConnection(presented, socket);
    if (known === undefined) return identify(c, presented);
    c.set('company', known.company);
    return undefined;
  };
}

/** The quotas of the configuration, counted by the store (so every limiter of a database shares them). */
export function rateLimiterOf({ config, store }: Pick<Deps, 'config' | 'store'>): RateLimiter {
  return new RateLimiter(
    config.rateLimitRequests,
    config.rateLimitWindowSeconds,
    (key, start) => store.countRequest(key, start),
    config.rateLimitAnonymousRequests,
  );
}

/**
 * What a request Node refused before the app spends (issue 34): the anonymous quota of its
 * address, the fields its answer carries; undefined when that quota is off or a trusted proxy
 * stands between (the socket's address is then the proxy's).
 */
export function anonymousSpender(deps: Pick<Deps, 'config' | 'store' | 'now'>): ((address: string) => Promise<RateLimitFields | undefined>) | undefined {
  if (deps.config.trustedProxyHeader !== undefined) return undefined;
  const limiter = rateLimiterOf(deps);
  if (!limiter.enabled) return undefined;
  return async (address) => (await limiter.spend({ address }, deps.now().getTime()))?.fields;
}

/** Adds the RateLimit fields to an answer that was not built with them (a page, a problem, the docs). */
export function stampRateLimit(response: Response, fields: RateLimitFields | undefined): void {
  if (fields === undefined || isStamped(response) || response.headers.has('RateLimit')) return;
  response.headers.set('RateLimit', fields.RateLimit);
  response.headers.set('RateLimit-Policy', fields['RateLimit-Policy']);
}

import type { Logger } from 'pino';
import type { ContractValidator } from '../lib/contract/ajv.js';
import type { Config } from './config.js';
import type { HostResolver } from './webhooks/url-policy.js';
import type { CompanyRecord, IdempotencyClaimInput, Store } from './store/types.js';

/** Everything the app is built from; tests pass their own (an in-memory store, a fixed clock). */
export interface Deps {
  config: Config;
  store: Store;
  logger: Logger;
  /** The request validator of the contract, compiled once (with the contract's defaults applied). */
  validator: ContractValidator;
  now: () => Date;
  /** Where webhook hosts are looked up (D40); the system resolver when absent. Tests give a table: no network. */
  resolveHost?: HostResolver;
}

/** The IETF RateLimit fields of an answer (draft-ietf-httpapi-ratelimit-headers). */
export type RateLimitFields = { RateLimit: string; 'RateLimit-Policy': string };

export interface AppEnv {
  /**
   * What @hono/node-server passes along (the request's raw header lines and the connection it
   * came on); absent where the app is called directly (`app.request` in tests).
   */
  Bindings: { incoming?: { rawHeaders: string[]; socket?: object } } | undefined;
  Variables: {
    /** The company of a valid `X-API-KEY`, set for every request that presents one (server/http/rate-limit.ts). */
    company: CompanyRecord;
    /** The RateLimit fields of the quota this request spent, when a quota is on (D11). */
    rateLimit: RateLimitFields;
    body: unknown;
    /** The operation's query parameters that were sent, valid and read as their schemas say. */
    query: Record<string, unknown>;
    requestId: string;
    /** The claim of the Idempotency-Key this request sent, when it sent one (server/http/idempotency.ts). */
    idempotency: IdempotencyClaimInput | undefined;
  };
}

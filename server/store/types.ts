import type { components } from '../../generated/openapi.js';
import type { DeploymentMode } from '../deployment-mode.js';

type Schemas = components['schemas'];

export type ClientDoc = Schemas['Client'];

/** A record's place in its list's order (`createdAt`, then `id`), where a page of the list starts after (D48). */
/** Read-only: a decoded cursor's position is kept and shared by the requests that send it again (server/domain/pages.ts). */
export interface ListPosition {
  readonly createdAt: string;
  readonly id: string;
}

/**
 * The tables of the paged lists (D48): each has the columns `company_id`, `created_at`, `id` and
 * `doc` (the list's item as its JSON text, holding its `createdAt` and `id`), and the index
 * `(company_id, created_at, id)`. A new paged list adds its table here; its SQL is made from the
 * name (`listStatements`, server/store/sql/statements.ts), and SQLite keeps its pages in memory
 * until the table is written, as it does every list's.
 */
export const pagedTables = ['clients'] as const;
export type PagedTable = (typeof pagedTables)[number];

/** A page of a list as one JSON array, and where the next page starts when one follows. */
export interface ListPage {
  /** The page's JSON array, as UTF-8 bytes. */
  json: Uint8Array;
  next?: ListPosition;
}
export type ProductDoc = Schemas['Product'];
export type SubscriptionDoc = Schemas['Subscription'];
export type ChargeDoc = Schemas['Charge'];
/**
 * A charge as stored. Its QR image (`brCodeBase64`) is rendered the first time the charge leaves
 * the server rather than when it is created (domain/charge-image.ts), so it may be missing.
 */
export type StoredCharge = Omit<ChargeDoc, 'brCodeBase64'> & { brCodeBase64?: string };
export type OrderDoc = Schemas['Order'];
export type WebhookDoc = Schemas['Webhook'];
export type CompanyDoc = Schemas['Company'];
export type WebhookDeliveryDoc = Schemas['WebhookDelivery'];
export type ChargeEventType = Schemas['WebhookEventType'];

/** An event to put in the outbox: its Standard Webhooks id, type and the exact body to send. */
export interface NewEvent {
  readonly id: string;
  readonly type: ChargeEventType;
  readonly createdAt: string;
  /** JSON text of `{type, timestamp, data}` (WebhookEvent), signed and sent as it is. */
  readonly body: string;
}

/** A delivery the worker may attempt now: the oldest undelivered event of its webhook. */
export interface DueDelivery {
  eventId: string;
  webhookId: string;
  companyId: string;
  type: ChargeEventType;
  body: string;
  /** Attempts made so far. */
  attempts: number;
  url: string;
  secret: string;
}

/** D14's fair share of a claim: how many attempts a company may have in flight, and how many each has now. */
export interface DeliveryShare {
  perCompany: number;
  /** Attempts in flight by company id (absent: none). */
  busy?: ReadonlyMap<string, number>;
}

/** What one attempt came to, recorded with the delivery's next state in one step. */
export interface AttemptOutcome {
  companyId: string;
  attempt: WebhookDeliveryDoc;
  /** DELIVERED (2xx), PENDING (retry at `attempt.nextAttemptAt`), FAILED (gave up). */
  state: 'DELIVERED' | 'PENDING' | 'FAILED';
  /** The endpoint answered 410 Gone: the registration becomes INACTIVE. */
  disableWebhook?: boolean;
}

/** A company with what charges need of it beyond its nested API form. */
export interface CompanyRecord {
  doc: CompanyDoc;
  /** City written into Pix codes (BR Code field 60). */
  city: string;
  /** Brand colour of the payment page. */
  color: string;
  /**
   * The company's own Pix key, which its live charges carry; without one every charge carries
   * the unpayable key (D43).
   */
  pixKey?: string;
}

export interface ApiKeyRecord {
  id: string;
  companyId: string;
  /** SHA-256 of the key's secret part, hex. */
  secretHash: string;
  createdAt: string;
}

/** How many records of each kind a sandbox reset deleted (D51). */
export interface CompanyReset {
  charges: number;
  clients: number;
  products: number;
  subscriptions: number;
  orders: number;
  webhooks: number;
}

export interface IdempotencyClaimInput {
  companyId: string;
  key: string;
  /** Hash of the request (method, path, body) the key was first used with. */
  fingerprint: string;
  now: string;
  /** Until when this claim blocks concurrent requests with the same key. */
  leaseUntil: string;
  /** Until when the key is remembered. */
  expiresAt: string;
}

export type IdempotencyClaim = { kind: 'claimed' } | { kind: 'replay'; status: number; body: string } | { kind: 'in-flight' } | { kind: 'mismatch' };

/** The answer to replay for a claimed key (D10), stored with the record the request made: the claim and the answer. */
export interface StoredResponse extends IdempotencyClaimInput {
  status: number;
  body: string;
}

/** What is stored with a charge, in its transaction. */
export interface ChargeExtras {
  /** The client of the payment link's `customer`: reused by tax number if the company has an ACTIVE one, else inserted (D48). */
  customer?: ClientDoc;
  response?: StoredResponse;
  events?: NewEvent[];
}

/**
 * Everything the handlers need from persistence. Each method is one atomic step of
 * the domain, so an adapter (SQLite or PostgreSQL) decides how to make it
 * atomic, and handlers never see SQL. Every read and write names the company.
 */
/** How a lookup's answer is used. */
export interface LookupOptions {
  /**
   * The record looked up only shapes a record written next (a charge's products, an order's
   * client), never an answer of its own: the lookup need not wait until what it read is on disk,
   * since the write it leads to is acknowledged only once it is, and what it read with it.
   */
  forWrite?: boolean;
}

export interface Store {
  countCompanies(): Promise<number>;
  /** The deployment mode recorded in the database (D51), or undefined when no server has recorded one yet. */
  deploymentMode(): Promise<DeploymentMode | undefined>;
  /**
   * Records `mode` when the database has none and returns the mode recorded after: the one already
   * there, unless `change` (the operator's deliberate `keys -- mode … --change`) replaces it.
   */
  recordDeploymentMode(mode: DeploymentMode, now: Date, options?: { change?: boolean }): Promise<DeploymentMode>;
  createCompany(company: CompanyRecord, key: ApiKeyRecord): Promise<void>;
  getCompany(companyId: string): Promise<CompanyRecord | undefined>;
  findApiKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  /** Every company, oldest first (the keys command's list). */
  listCompanies(): Promise<CompanyRecord[]>;
  /** A company's keys, oldest first: their ids and when they were made (the secrets are not stored). */
  listApiKeys(companyId: string): Promise<ApiKeyRecord[]>;
  /** Adds a key to an existing company (D04); false when there is no such company. */
  addApiKey(key: ApiKeyRecord): Promise<boolean>;
  /** Deletes a key: it no longer authenticates. The deleted key's record, or undefined when there was none. */
  revokeApiKey(keyId: string): Promise<ApiKeyRecord | undefined>;
  /**
   * A sandbox reset (D51): deletes every record of the company (clients, products, subscriptions,
   * orders, charges, webhook registrations with their outbox and attempts, idempotency keys) in one
   * transaction. The company and its keys stay. Undefined when there is no such company.
   */
  resetCompany(companyId: string): Promise<CompanyReset | undefined>;

  insertClient(client: ClientDoc): Promise<void>;
  getClient(companyId: string, id: string, options?: LookupOptions): Promise<ClientDoc | undefined>;
  /**
   * At most `limit` of the company's records of a paged list (D48), `table`'s, in the list's order
   * (`createdAt`, then `id`), from the start or after `after`, as one JSON array of UTF-8 bytes sent
   * as it is and never parsed, and where the next page starts if one follows. Every paged list
   * reads through it: a list adds its table to `pagedTables`, not a method.
   */
  listPageJson(table: PagedTable, companyId: string, limit: number, after?: ListPosition): Promise<ListPage>;
  /** The position of the company's `count`-th record of `table` when more follow it; undefined when it has `count` or fewer (D49's bound). */
  listPositionAt(table: PagedTable, companyId: string, count: number): Promise<ListPosition | undefined>;

  insertProduct(product: ProductDoc): Promise<void>;
  /** The company's products among `ids`; unknown or foreign ids are absent from the map. */
  getProducts(companyId: string, ids: readonly string[], options?: LookupOptions): Promise<Map<string, ProductDoc>>;

  insertSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void>;
  getSubscription(companyId: string, id: string): Promise<SubscriptionDoc | undefined>;
  replaceSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void>;

  /**
   * Stores the order under the company's next order number, which `build` receives; answers it
   * with the JSON text it was stored as (made once: the answer of its create is that text).
   */
  insertOrder(companyId: string, build: (orderNumber: number) => OrderDoc): Promise<{ order: OrderDoc; json: string }>;
  getOrder(companyId: string, id: string): Promise<OrderDoc | undefined>;

  /**
   * Stores a charge, the client of its `customer` (if any) and, for an idempotent request, the
   * response to replay: all or nothing. `customer` is inserted only when the company has no
   * ACTIVE client with its tax number, which is then reused as it is (D48).
   */
  insertCharge(charge: StoredCharge, companyId: string, extras: ChargeExtras): Promise<void>;
  getCharge(companyId: string, id: string): Promise<StoredCharge | undefined>;
  /** The stored charge as its JSON text, for answers that need not parse it. */
  getChargeJson(companyId: string, id: string): Promise<string | undefined>;
  /** Adds the QR image to a charge that has none; a charge that has one keeps it. */
  setChargeImage(companyId: string, id: string, brCodeBase64: string): Promise<void>;
  /** A charge by id alone, for its public payment page (the id is the link's secret). */
  findCharge(id: string): Promise<{ companyId: string; charge: StoredCharge } | undefined>;
  /**
   * Moves a charge: `apply` gets the stored charge and returns the new one and the events the
   * move emits (or throws to refuse it). The charge, the events and their deliveries to the
   * company's subscribed ACTIVE webhooks commit together, or not at all (the outbox, D14).
   * Undefined when the company has no such charge.
   */
  transitionCharge(
    companyId: string,
    id: string,
    apply: (charge: StoredCharge) => { charge: StoredCharge; events: NewEvent[] },
  ): Promise<StoredCharge | undefined>;
  /** Charges still OPEN whose `expiresAt` is at or before `now`. */
  openChargesDue(now: string, limit: number): Promise<Array<{ companyId: string; id: string }>>;

  /** Stores a registration unless its company already has `limit` of them (then false; D49). */
  insertWebhook(webhook: WebhookDoc, secret: string, limit?: number): Promise<boolean>;
  getWebhook(companyId: string, id: string): Promise<WebhookDoc | undefined>;
  /** The company's webhooks, oldest first. */
  listWebhooks(companyId: string): Promise<WebhookDoc[]>;
  replaceWebhook(companyId: string, webhook: WebhookDoc): Promise<void>;
  /** Deletes a webhook with its pending deliveries and attempts; false when there was none. */
  deleteWebhook(companyId: string, id: string): Promise<boolean>;
  /** The newest `limit` attempts of one webhook, newest first. */
  listDeliveryAttempts(companyId: string, webhookId: string, limit: number): Promise<WebhookDeliveryDoc[]>;

  /**
   * Deliveries due at `now`, at most one per webhook (its oldest undelivered event, so each
   * receiver gets events in order), of ACTIVE webhooks only. Claimed deliveries are not due
   * again before `leaseUntil`, so a second worker does not send them at the same time.
   * At most `limit`, taken in turns over the companies, and with `share` at most
   * `share.perCompany` of a company counting the `share.busy` it already has in flight (D14).
   */
  claimDueDeliveries(now: string, leaseUntil: string, limit: number, share?: DeliveryShare): Promise<DueDelivery[]>;
  recordAttempt(outcome: AttemptOutcome): Promise<void>;

  claimIdempotencyKey(input: IdempotencyClaimInput): Promise<IdempotencyClaim>;
  /** Frees a claimed key after a request that did not succeed, so it can be used again. */
  releaseIdempotencyKey(companyId: string, key: string): Promise<void>;

  /**
   * Counts one request of an API key in the rate-limit window that starts at `windowStart` (ms since the epoch) and
   * returns how many the window has had, this one included. Shared by every server instance on the same database.
   */
  countRequest(keyId: string, windowStart: number): Promise<number>;

  close(): Promise<void>;
}

import type { components } from '../../generated/openapi.js';

type Schemas = components['schemas'];

export type ClientDoc = Schemas['Client'];
export type ProductDoc = Schemas['Product'];
export type SubscriptionDoc = Schemas['Subscription'];
export type ChargeDoc = Schemas['Charge'];
export type OrderDoc = Schemas['Order'];
export type WebhookDoc = Schemas['Webhook'];
export type CompanyDoc = Schemas['Company'];

/** A company with what charges need of it beyond its nested API form. */
export interface CompanyRecord {
  doc: CompanyDoc;
  /** City written into Pix codes (BR Code field 60). */
  city: string;
  /** Brand colour of the payment page. */
  color: string;
}

export interface ApiKeyRecord {
  id: string;
  companyId: string;
  /** SHA-256 of the key's secret part, hex. */
  secretHash: string;
  createdAt: string;
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

export type IdempotencyClaim =
  | { kind: 'claimed' }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'in-flight' }
  | { kind: 'mismatch' };

export interface StoredResponse {
  companyId: string;
  key: string;
  status: number;
  body: string;
}

/**
 * Everything the handlers need from persistence. Each method is one atomic step of
 * the domain, so an adapter (SQLite now, PostgreSQL later) decides how to make it
 * atomic, and handlers never see SQL. Every read and write names the company.
 */
export interface Store {
  countCompanies(): Promise<number>;
  createCompany(company: CompanyRecord, key: ApiKeyRecord): Promise<void>;
  getCompany(companyId: string): Promise<CompanyRecord | undefined>;
  findApiKey(keyId: string): Promise<ApiKeyRecord | undefined>;

  insertClient(client: ClientDoc): Promise<void>;
  getClient(companyId: string, id: string): Promise<ClientDoc | undefined>;
  listClients(companyId: string): Promise<ClientDoc[]>;

  insertProduct(product: ProductDoc): Promise<void>;
  /** The company's products among `ids`; unknown or foreign ids are absent from the map. */
  getProducts(companyId: string, ids: readonly string[]): Promise<Map<string, ProductDoc>>;

  insertSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void>;
  getSubscription(companyId: string, id: string): Promise<SubscriptionDoc | undefined>;
  replaceSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void>;

  /** Stores the order under the company's next order number, which `build` receives. */
  insertOrder(companyId: string, build: (orderNumber: number) => OrderDoc): Promise<OrderDoc>;

  /**
   * Stores a charge, the client it creates (if any) and, for an idempotent request, the
   * response to replay: all or nothing.
   */
  insertCharge(charge: ChargeDoc, companyId: string, extras: { newClient?: ClientDoc; response?: StoredResponse }): Promise<void>;
  getCharge(companyId: string, id: string): Promise<ChargeDoc | undefined>;

  insertWebhook(webhook: WebhookDoc, secret: string): Promise<void>;
  getWebhook(companyId: string, id: string): Promise<WebhookDoc | undefined>;

  claimIdempotencyKey(input: IdempotencyClaimInput): Promise<IdempotencyClaim>;
  /** Frees a claimed key after a request that did not succeed, so it can be used again. */
  releaseIdempotencyKey(companyId: string, key: string): Promise<void>;

  close(): Promise<void>;
}

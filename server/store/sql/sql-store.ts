import type {
  ApiKeyRecord,
  AttemptOutcome,
  ChargeExtras,
  ClientDoc,
  ListPage,
  ListPosition,
  CompanyRecord,
  CompanyReset,
  DeliveryShare,
  DueDelivery,
  IdempotencyClaim,
  IdempotencyClaimInput,
  LookupOptions,
  NewEvent,
  OrderDoc,
  ProductDoc,
  Store,
  StoredCharge,
  SubscriptionDoc,
  WebhookDeliveryDoc,
  WebhookDoc,
  PagedTable,
} from '../types.js';
import { pagedTables } from '../types.js';
import { apiKeyOfRow, claimOfStoredKey, companyOfRow, docOf, dueDeliveryOf, type DueDeliveryRow } from './rows.js';
import { listStatements, sharedStatements, type Dialect, type ListStatements, type SharedStatements } from './statements.js';
import { all, column, get, lock, run, type AnyStatement, type Step } from './step.js';
import type { DeploymentMode } from '../../deployment-mode.js';

export interface ReadOptions {
  /**
   * The read only shapes a write made next (the products a charge is priced from): that write's
   * own commit covers what the read saw, so the read need not wait for the disk first (SQLite's
   * group commit; PostgreSQL reads only what is committed).
   */
  beforeWrite?: boolean;
}

export interface WriteOptions<T> {
  /** The step is one statement, atomic on its own: PostgreSQL needs no transaction for it. */
  single?: boolean;
  /**
   * False when the caller need not wait for the commit (SQLite's group commit then resolves at
   * once; the write is still seen by the requests that follow). PostgreSQL always commits first.
   */
  waitForCommit?: (result: T) => boolean;
}

/**
 * The Store over SQL, once for both engines: every statement, row mapping and rule (the outbox
 * fan-out, idempotency claims, attempt recording) is here. An engine supplies how a step runs
 * (`read`, `write`: its transactions and group commit), its dialect, and what only it has.
 */
export abstract class SqlStore implements Store {
  protected readonly sql: SharedStatements;
  /** Products parsed from rows an engine kept in memory (SQLite's read cache): parsed once while kept. */
  private readonly productsOfRows = new WeakMap<object, Map<string, ProductDoc>>();
  /** Each paged list's statements (D48), made from its table's name. */
  protected readonly lists: Record<PagedTable, ListStatements>;
  /** Whether the engine makes lists one JSON array itself (`Dialect.listsInSql`). */
  private readonly listsInSql: boolean;

  constructor(dialect: Dialect) {
    this.sql = sharedStatements(dialect);
    this.lists = Object.fromEntries(pagedTables.map((table) => [table, listStatements(dialect, table)])) as Record<PagedTable, ListStatements>;
    this.listsInSql = dialect.listsInSql;
  }

  /** Every statement the store runs: the shared ones and each list's. */
  protected statements(): AnyStatement[] {
    return [...Object.values<AnyStatement>(this.sql), ...Object.values(this.lists).flatMap((list) => Object.values<AnyStatement>(list))];
  }

  /** Runs a step that only reads. */
  protected abstract read<T>(step: Step<T>, options?: ReadOptions): Promise<T>;
  /** Runs a step that writes, all or nothing. */
  protected abstract write<T>(step: Step<T>, options?: WriteOptions<T>): Promise<T>;

  abstract countRequest(keyId: string, windowStart: number): Promise<number>;

  /** A claimed key's answer is written (in the open transaction): an engine that holds claims in memory lets go of it. */
  protected answered(_companyId: string, _key: string): void {}
  abstract close(): Promise<void>;

  async countCompanies(): Promise<number> {
    return (await this.read(get(this.sql.countCompanies)))?.n ?? 0;
  }

  async deploymentMode(): Promise<DeploymentMode | undefined> {
    return modeOf((await this.read(get(this.sql.getDeploymentMode)))?.mode);
  }

  async recordDeploymentMode(mode: DeploymentMode, now: Date, options: { change?: boolean } = {}): Promise<DeploymentMode> {
    const sql = this.sql;
    const recorded = await this.write(
      (function* (): Step<string | undefined> {
        yield* run(sql.insertDeploymentMode, mode, now.toISOString());
        if (options.change) yield* run(sql.changeDeploymentMode, mode, now.toISOString());
        return (yield* get(sql.getDeploymentMode))?.mode;
      })(),
    );
    return modeOf(recorded) ?? mode;
  }

  async createCompany(company: CompanyRecord, key: ApiKeyRecord): Promise<void> {
    await this.write(this.createCompanyStep(company, key));
  }

  async getCompany(companyId: string): Promise<CompanyRecord | undefined> {
    const row = await this.read(get(this.sql.getCompany, companyId));
    return row && companyOfRow(row);
  }

  async findApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.read(get(this.sql.findApiKey, keyId));
    return row && apiKeyOfRow(row);
  }

  async listCompanies(): Promise<CompanyRecord[]> {
    return (await this.read(all(this.sql.listCompanies))).map(companyOfRow);
  }

  async listApiKeys(companyId: string): Promise<ApiKeyRecord[]> {
    return (await this.read(all(this.sql.listApiKeys, companyId))).map(apiKeyOfRow);
  }

  async addApiKey(key: ApiKeyRecord): Promise<boolean> {
    return this.write(this.addApiKeyStep(key));
  }

  async revokeApiKey(keyId: string): Promise<ApiKeyRecord | undefined> {
    return this.write(this.revokeApiKeyStep(keyId));
  }

  async resetCompany(companyId: string): Promise<CompanyReset | undefined> {
    return this.write(this.resetCompanyStep(companyId));
  }

  async insertClient(client: ClientDoc): Promise<void> {
    await this.write(this.insertClientStep(client), { single: true });
  }

  async getClient(companyId: string, id: string, options: LookupOptions = {}): Promise<ClientDoc | undefined> {
    return docOf(await this.read(get(this.sql.getClient, companyId, id), { beforeWrite: options.forWrite }));
  }

  async listPageJson(table: PagedTable, companyId: string, limit: number, after?: ListPosition): Promise<ListPage> {
    return this.read(listPage(this.lists[table], this.listsInSql, companyId, limit, after));
  }

  async listPositionAt(table: PagedTable, companyId: string, count: number): Promise<ListPosition | undefined> {
    const rows = await this.read(all(this.lists[table].at, companyId, count - 1));
    return rows.length === 2 ? { createdAt: rows[0]!.created_at, id: rows[0]!.id } : undefined;
  }

  async insertProduct(product: ProductDoc): Promise<void> {
    await this.write(run(this.sql.insertProduct, product.id, product.companyId, JSON.stringify(product)), { single: true });
  }

  async getProducts(companyId: string, ids: readonly string[], options: LookupOptions = {}): Promise<Map<string, ProductDoc>> {
    // Ids are generated, so one with U+0000 names nothing; PostgreSQL's jsonb refuses the escape.
    const unique = [...new Set(ids)].filter((id) => !id.includes('\u0000'));
    const result = new Map<string, ProductDoc>();
    if (unique.length === 0) return result;
    const rows = await this.read(all(this.sql.productsAmong, companyId, JSON.stringify(unique)), { beforeWrite: options.forWrite });
    let found = this.productsOfRows.get(rows);
    if (!found) {
      // Frozen: a product read again from an engine's memory is the same object for every caller.
      found = new Map(rows.map((row) => [row.id, Object.freeze(JSON.parse(row.doc) as ProductDoc)]));
      this.productsOfRows.set(rows, found);
    }
    // In the order asked.
    for (const id of unique) {
      const product = found.get(id);
      if (product !== undefined) result.set(id, product);
    }
    return result;
  }

  async insertSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void> {
    await this.write(run(this.sql.insertSubscription, subscription.id, companyId, JSON.stringify(subscription)), { single: true });
  }

  async getSubscription(companyId: string, id: string): Promise<SubscriptionDoc | undefined> {
    return docOf(await this.read(get(this.sql.getSubscription, companyId, id)));
  }

  async replaceSubscription(companyId: string, subscription: SubscriptionDoc): Promise<void> {
    await this.write(run(this.sql.replaceSubscription, JSON.stringify(subscription), companyId, subscription.id), { single: true });
  }

  async insertOrder(companyId: string, build: (orderNumber: number) => OrderDoc): Promise<{ order: OrderDoc; json: string }> {
    return this.write(this.insertOrderStep(companyId, build));
  }

  async getOrder(companyId: string, id: string): Promise<OrderDoc | undefined> {
    return docOf(await this.read(get(this.sql.getOrder, companyId, id)));
  }

  async insertCharge(charge: StoredCharge, companyId: string, extras: ChargeExtras): Promise<void> {
    await this.write(this.insertChargeStep(charge, companyId, extras));
  }

  async getCharge(companyId: string, id: string): Promise<StoredCharge | undefined> {
    return docOf(await this.read(get(this.sql.getCharge, companyId, id)));
  }

  async getChargeJson(companyId: string, id: string): Promise<string | undefined> {
    return (await this.read(get(this.sql.getCharge, companyId, id)))?.doc;
  }

  async setChargeImage(companyId: string, id: string, brCodeBase64: string): Promise<void> {
    await this.write(run(this.sql.setChargeImage, JSON.stringify(brCodeBase64), companyId, id), { single: true });
  }

  async findCharge(id: string): Promise<{ companyId: string; charge: StoredCharge } | undefined> {
    const row = await this.read(get(this.sql.findCharge, id));
    return row && { companyId: row.company_id, charge: JSON.parse(row.doc) as StoredCharge };
  }

  async transitionCharge(
    companyId: string,
    id: string,
    apply: (charge: StoredCharge) => { charge: StoredCharge; events: NewEvent[] },
  ): Promise<StoredCharge | undefined> {
    return this.write(this.transitionChargeStep(companyId, id, apply));
  }

  async openChargesDue(now: string, limit: number): Promise<Array<{ companyId: string; id: string }>> {
    const rows = await this.read(all(this.sql.openChargesDue, now, limit));
    return rows.map((row) => ({ companyId: row.company_id, id: row.id }));
  }

  async insertWebhook(webhook: WebhookDoc, secret: string, limit = Number.POSITIVE_INFINITY): Promise<boolean> {
    return this.write(this.insertWebhookStep(webhook, secret, limit));
  }

  async getWebhook(companyId: string, id: string): Promise<WebhookDoc | undefined> {
    return docOf(await this.read(get(this.sql.getWebhook, companyId, id)));
  }

  async listWebhooks(companyId: string): Promise<WebhookDoc[]> {
    const rows = await this.read(all(this.sql.listWebhooks, companyId));
    return rows.map((row) => JSON.parse(row.doc) as WebhookDoc);
  }

  async replaceWebhook(companyId: string, webhook: WebhookDoc): Promise<void> {
    await this.write(run(this.sql.replaceWebhook, JSON.stringify(webhook), webhook.status, companyId, webhook.id), { single: true });
  }

  async deleteWebhook(companyId: string, id: string): Promise<boolean> {
    return this.write(this.deleteWebhookStep(companyId, id));
  }

  async listDeliveryAttempts(companyId: string, webhookId: string, limit: number): Promise<WebhookDeliveryDoc[]> {
    const rows = await this.read(all(this.sql.listAttempts, companyId, webhookId, limit));
    return rows.map((row) => JSON.parse(row.doc) as WebhookDeliveryDoc);
  }

  async claimDueDeliveries(now: string, leaseUntil: string, limit: number, share?: DeliveryShare): Promise<DueDelivery[]> {
    // Most polls find nothing due: a read says so without a write transaction (on SQLite, a
    // commit and an fsync four times a second, and reads waiting for them). Whatever it finds,
    // the claim reads the due deliveries again under its write.
    if (limit <= 0 || !(await this.read(get(this.sql.anyDueDelivery, now)))) return [];
    return this.write(this.claimDueDeliveriesStep(now, leaseUntil, limit, share ?? { perCompany: limit }));
  }

  async recordAttempt(outcome: AttemptOutcome): Promise<void> {
    await this.write(this.recordAttemptStep(outcome));
  }

  async claimIdempotencyKey(input: IdempotencyClaimInput): Promise<IdempotencyClaim> {
    return this.write(
      this.claimIdempotencyKeyStep(input),
      // A claim need only be seen by the requests that follow, and it is committed with or before
      // the charge whose response it guards. A replay repeats a response that must be committed.
      { waitForCommit: (claim) => claim.kind === 'replay' },
    );
  }

  async releaseIdempotencyKey(companyId: string, key: string): Promise<void> {
    // Not waited for either: lost in a crash, the claim frees itself when its lease ends.
    await this.write(run(this.sql.releaseIdempotency, companyId, key), { single: true, waitForCommit: () => false });
  }

  // The steps of the methods above that run more than one statement. Generator methods, not
  // generator closures made per call: V8 makes a closure of a generator function ten times slower.

  private *createCompanyStep(company: CompanyRecord, key: ApiKeyRecord): Step<void> {
    yield* run(this.sql.insertCompany, company.doc.id, company.city, company.color, company.pixKey ?? null, company.doc.createdAt, JSON.stringify(company.doc));
    yield* run(this.sql.insertApiKey, key.id, key.companyId, key.secretHash, key.createdAt);
  }

  private *addApiKeyStep(key: ApiKeyRecord): Step<boolean> {
    // Under the company's lock, so that a reset or a removal of the company cannot come between.
    if (!(yield* get(this.sql.lockCompany, key.companyId))) return false;
    yield* run(this.sql.insertApiKey, key.id, key.companyId, key.secretHash, key.createdAt);
    return true;
  }

  private *revokeApiKeyStep(keyId: string): Step<ApiKeyRecord | undefined> {
    const row = yield* get(this.sql.findApiKey, keyId);
    if (!row) return undefined;
    yield* run(this.sql.deleteApiKey, keyId);
    return apiKeyOfRow(row);
  }

  /** D51: every record of the company, in one transaction; the company and its keys stay. */
  private *resetCompanyStep(companyId: string): Step<CompanyReset | undefined> {
    // The company's lock keeps order numbers and event sequences of concurrent writes in step.
    if (!(yield* get(this.sql.lockCompany, companyId))) return undefined;
    // Registrations first, then their deliveries: the order in which the delivery worker locks
    // them when it records an attempt, so the two never wait for each other.
    const webhookIds = (yield* all(this.sql.companyWebhookIds, companyId)).map((row) => row.id);
    const webhooks = yield* run(this.sql.deleteCompanyWebhooks, companyId);
    yield* run(this.sql.deleteCompanyDeliveries, companyId);
    if (webhookIds.length > 0) yield* run(this.sql.deleteAttemptsOf, JSON.stringify(webhookIds));
    yield* run(this.sql.deleteCompanyEvents, companyId);
    yield* run(this.sql.deleteCompanyIdempotencyKeys, companyId);
    const charges = yield* run(this.sql.deleteCompanyCharges, companyId);
    const orders = yield* run(this.sql.deleteCompanyOrders, companyId);
    const subscriptions = yield* run(this.sql.deleteCompanySubscriptions, companyId);
    const products = yield* run(this.sql.deleteCompanyProducts, companyId);
    const clients = yield* run(this.sql.deleteCompanyClients, companyId);
    return { charges, clients, products, subscriptions, orders, webhooks };
  }

  private *insertWebhookStep(webhook: WebhookDoc, secret: string, limit: number): Step<boolean> {
    // Counted under the company's lock, so two registrations at the limit cannot both pass it.
    if (Number.isFinite(limit)) {
      yield* lock(this.sql.lockCompany, webhook.companyId);
      if (((yield* get(this.sql.countWebhooks, webhook.companyId))?.n ?? 0) >= limit) return false;
    }
    yield* run(this.sql.insertWebhook, webhook.id, webhook.companyId, secret, JSON.stringify(webhook), webhook.status, webhook.createdAt);
    return true;
  }

  private *insertOrderStep(companyId: string, build: (orderNumber: number) => OrderDoc): Step<{ order: OrderDoc; json: string }> {
    // Orders of one company are numbered one at a time, whichever instance stores them.
    yield* lock(this.sql.lockCompany, companyId);
    const orderNumber = (yield* get(this.sql.nextOrderNumber, companyId))?.n ?? 1;
    const order = build(orderNumber);
    const json = JSON.stringify(order);
    yield* run(this.sql.insertOrder, order.id, companyId, orderNumber, json);
    return { order, json };
  }

  private *insertChargeStep(charge: StoredCharge, companyId: string, extras: ChargeExtras): Step<void> {
    if (extras.customer) yield* this.customerClientStep(extras.customer);
    yield* run(this.sql.insertCharge, charge.id, companyId, charge.expiresAt, JSON.stringify(charge));
    yield* this.addEvents(companyId, extras.events ?? []);
    const r = extras.response;
    if (r) {
      yield* run(this.sql.completeIdempotency, r.companyId, r.key, r.fingerprint, r.leaseUntil, r.expiresAt, r.status, r.body);
      this.answered(r.companyId, r.key);
    }
  }

  private *transitionChargeStep(
    companyId: string,
    id: string,
    apply: (charge: StoredCharge) => { charge: StoredCharge; events: NewEvent[] },
  ): Step<StoredCharge | undefined> {
    const current = docOf<StoredCharge>(yield* get(this.sql.getChargeToMove, companyId, id));
    if (!current) return undefined;
    const { charge, events } = apply(current);
    yield* run(this.sql.replaceCharge, JSON.stringify(charge), charge.status === 'OPEN' ? 1 : 0, companyId, id);
    yield* this.addEvents(companyId, events);
    return charge;
  }

  private *deleteWebhookStep(companyId: string, id: string): Step<boolean> {
    if ((yield* run(this.sql.deleteWebhook, companyId, id)) === 0) return false;
    yield* run(this.sql.deleteWebhookDeliveries, id);
    yield* run(this.sql.deleteWebhookAttempts, id);
    return true;
  }

  private *claimDueDeliveriesStep(now: string, leaseUntil: string, limit: number, { perCompany, busy = new Map() }: DeliveryShare): Step<DueDelivery[]> {
    if (limit <= 0 || perCompany <= 0) return [];
    // Companies with every slot in use are left out by the query; one with some in use gets its
    // remaining turns here, so the query reads at most that many rows more than it may claim.
    const full: string[] = [];
    let partlyBusy = 0;
    for (const [companyId, n] of busy) {
      if (n >= perCompany) full.push(companyId);
      else partlyBusy += n;
    }
    const rows = yield* all(this.sql.dueDeliveries, now, JSON.stringify(full), perCompany, now, limit + partlyBusy);
    const taken = new Map<string, number>();
    const claimed: DueDeliveryRow[] = [];
    for (const row of rows) {
      if (claimed.length === limit) break;
      const inUse = (busy.get(row.company_id) ?? 0) + (taken.get(row.company_id) ?? 0);
      if (inUse >= perCompany) continue;
      taken.set(row.company_id, (taken.get(row.company_id) ?? 0) + 1);
      claimed.push(row);
    }
    for (const row of claimed) yield* run(this.sql.leaseDelivery, leaseUntil, row.event_id, row.webhook_id);
    return claimed.map(dueDeliveryOf);
  }

  private *recordAttemptStep({ attempt, companyId, state, disableWebhook }: AttemptOutcome): Step<void> {
    const webhook = docOf<WebhookDoc>(yield* get(this.sql.getWebhookToRecord, companyId, attempt.webhookId));
    // A webhook deleted while its attempt was in flight took its deliveries along: nothing to record.
    if (!webhook) return;
    yield* run(this.sql.updateDelivery, state, attempt.attempt, attempt.nextAttemptAt ?? attempt.requestedAt, attempt.eventId, attempt.webhookId);
    yield* run(this.sql.insertAttempt, attempt.id, companyId, attempt.webhookId, attempt.eventId, attempt.requestedAt, JSON.stringify(attempt));
    if (disableWebhook) {
      yield* run(
        this.sql.replaceWebhook,
        JSON.stringify({ ...webhook, status: 'INACTIVE', updatedAt: attempt.requestedAt }),
        'INACTIVE',
        companyId,
        webhook.id,
      );
    }
  }

  private *claimIdempotencyKeyStep(input: IdempotencyClaimInput): Step<IdempotencyClaim> {
    // A row released between the INSERT and the SELECT (by another instance) is claimed on the next round.
    for (;;) {
      if ((yield* run(this.sql.insertIdempotency, input.companyId, input.key, input.fingerprint, input.leaseUntil, input.expiresAt)) === 1)
        return { kind: 'claimed' };
      const row = yield* get(this.sql.getIdempotency, input.companyId, input.key);
      if (!row) continue;
      const stored = claimOfStoredKey(row, input.now, input.fingerprint);
      if (stored) return stored;
      // Taken over under the row lock: a concurrent claim waits for this commit and then sees the new claim.
      yield* run(this.sql.takeOverIdempotency, input.fingerprint, input.leaseUntil, input.expiresAt, input.companyId, input.key);
      return { kind: 'claimed' };
    }
  }

  private insertClientStep(client: ClientDoc): Step<number> {
    return run(this.sql.insertClient, client.id, client.companyId, client.taxId, client.createdAt, JSON.stringify(client));
  }

  /** D48: the company's ACTIVE client with the customer's tax number is kept as it is; only without one is the customer inserted. */
  private *customerClientStep(customer: ClientDoc): Step<void> {
    // Customers of one company are looked up one at a time, so two first charges of a new buyer make one client.
    yield* lock(this.sql.lockCompany, customer.companyId);
    if (!(yield* get(this.sql.reusableClient, customer.companyId, customer.taxId))) yield* this.insertClientStep(customer);
  }

  /** Puts events in the outbox, numbered per company, with a delivery per subscribed ACTIVE webhook. */
  private *addEvents(companyId: string, events: readonly NewEvent[]): Step<void> {
    if (events.length === 0) return;
    const rows = yield* all(this.sql.subscribers, companyId);
    const subscribers = rows.map((row) => ({ id: row.id, events: (JSON.parse(row.doc) as WebhookDoc).events }));
    // An event no webhook subscribes to would never be sent: it is not written (most charges
    // of a company without webhooks are created, read and left to expire).
    const wanted = events.filter((event) => subscribers.some((webhook) => webhook.events.includes(event.type)));
    if (wanted.length === 0) return;
    yield* lock(this.sql.lockCompany, companyId);
    let seq = (yield* get(this.sql.nextEventSeq, companyId))?.n ?? 1;
    for (const event of wanted) {
      yield* run(this.sql.insertEvent, event.id, companyId, seq, event.type, event.createdAt, event.body);
      for (const webhook of subscribers) {
        if (webhook.events.includes(event.type)) yield* run(this.sql.insertDelivery, event.id, webhook.id, seq, event.createdAt);
      }
      seq += 1;
    }
  }
}

/** D48: at most `limit` records of a list after `after` (or from the start), and where the next page starts if one follows. */
function* listPage(sql: ListStatements, listsInSql: boolean, companyId: string, limit: number, after?: ListPosition): Step<ListPage> {
  return listsInSql ? yield* pageMadeInSql(sql, companyId, limit, after) : yield* pageJoinedHere(sql, companyId, limit, after);
}

/** A page as one value the engine made, then its last record and the one after it, from the index. */
function* pageMadeInSql(sql: ListStatements, companyId: string, limit: number, after?: ListPosition): Step<ListPage> {
  const row = after ? yield* get(sql.after, companyId, after.createdAt, after.id, limit) : yield* get(sql.first, companyId, limit);
  if (!row) throw new Error('An aggregate read answered no row.');
  // A view, not a copy: the drivers hand over a Buffer.
  const json = new Uint8Array(row.json.buffer, row.json.byteOffset, row.json.byteLength);
  if (row.n < limit) return { json };
  // A next page exists when a record follows the page's last.
  const [last, following] = after ? yield* all(sql.atAfter, companyId, after.createdAt, after.id, limit - 1) : yield* all(sql.at, companyId, limit - 1);
  return last && following ? { json, next: { createdAt: last.created_at, id: last.id } } : { json };
}

/** A page read as its documents, one more than the page (then a next page exists), and joined here. */
function* pageJoinedHere(sql: ListStatements, companyId: string, limit: number, after?: ListPosition): Step<ListPage> {
  const docs = after ? yield* column(sql.docsAfter, companyId, after.createdAt, after.id, limit + 1) : yield* column(sql.firstDocs, companyId, limit + 1);
  const page = docs.length > limit ? docs.slice(0, limit) : docs;
  const json = Buffer.from(`[${page.join(',')}]`);
  if (page === docs) return { json };
  // The next page starts after the page's last record, whose document holds its position: a
  // paged list's row's created_at and id are written from it (`pagedTables`).
  const { createdAt, id } = JSON.parse(page[limit - 1]!) as ListPosition;
  return { json, next: { createdAt, id } };
}

/** A recorded mode as the server knows them; anything else (none) is undefined. */
function modeOf(value: string | undefined): DeploymentMode | undefined {
  return value === 'development' || value === 'production' ? value : undefined;
}

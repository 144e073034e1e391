/**
 * The contract's examples as one world: the same company, client, product, charge, order,
 * subscription and webhook registration wherever they appear, with ids that name each other and
 * sums that hold. Everything is read from the bundled contract; the checks are pure functions of
 * the examples, so each can be shown to fail on a small broken world (story.test.ts).
 */
import { deref, httpMethods, isJsonObject, type JsonObject } from '../../lib/contract/bundled.js';
import { type IdKind, idKindOf, idKinds } from '../../lib/contract/ids.js';

/** One example value and where it is used. */
export interface ExampleUse {
  /** For messages: `createOrder 201 "created"`. */
  where: string;
  value: unknown;
  role: 'request' | 'response' | 'parameter' | 'header' | 'schema';
  operationId?: string;
  /** The first request example of its operation, or the first example of its first 2xx answer: the pair a docs sample shows. */
  first?: boolean;
  /** An answer with a status of 400 or more: the ids it names are not records of the world. */
  error?: boolean;
  /** An answer's status. */
  status?: string;
  /** A header or parameter example: its name. */
  name?: string;
  /** A request the service sends (an event delivery to a webhook): it shows records, as an answer does. */
  event?: boolean;
}

/** Whether a use is what the service says: an answer, or an event it sends. */
const fromService = (use: ExampleUse) => use.role === 'response' || use.event === true;

/** An operation (or webhook) and the example ids of its path's id parameters. */
export interface StoryOperation {
  operationId: string;
  pathIds: Array<{ name: string; kind: IdKind; example: string }>;
}

export interface World {
  kinds: IdKind[];
  operations: StoryOperation[];
  uses: ExampleUse[];
}

/** Fields a record changes over its life (a charge is paid, a subscription cancelled): copies at other moments may differ in them. */
const lifecycleFields = new Set(['status', 'paymentStatus', 'paymentDate', 'updatedAt', 'cancelledAt']);

const cents = (amount: number) => Math.round(amount * 100);

function examplesOf(doc: JsonObject, holder: JsonObject): Array<{ name: string; value: unknown }> {
  if ('example' in holder) return [{ name: 'example', value: holder.example }];
  return Object.entries((holder.examples ?? {}) as JsonObject).flatMap(([name, raw]) => {
    const example = deref<JsonObject>(doc, raw);
    return 'value' in example ? [{ name, value: example.value }] : [];
  });
}

/** Every example of the contract with its use: operations' and webhooks' parameters, bodies, answers and headers, and schemas' `examples`. */
export function worldOf(doc: JsonObject): World {
  const kinds = idKinds(doc);
  const uses: ExampleUse[] = [];
  const operations: StoryOperation[] = [];
  const items = [
    ...Object.entries((doc.paths ?? {}) as JsonObject),
    ...Object.entries((doc.webhooks ?? {}) as JsonObject).map(([name, item]) => [`webhook ${name}`, item] as const),
  ];
  for (const [key, rawItem] of items) {
    const event = key.startsWith('webhook ');
    const item = deref<JsonObject>(doc, rawItem);
    for (const method of httpMethods) {
      const operation = item[method];
      if (!isJsonObject(operation)) continue;
      const operationId = String(operation.operationId);
      const pathIds: StoryOperation['pathIds'] = [];
      for (const raw of [...((item.parameters ?? []) as unknown[]), ...((operation.parameters ?? []) as unknown[])]) {
        const parameter = deref<JsonObject>(doc, raw);
        const name = String(parameter.name);
        for (const { value } of examplesOf(doc, parameter)) {
          uses.push({ where: `${operationId} parameter ${name}`, value, role: parameter.in === 'header' ? 'header' : 'parameter', operationId, name });
          const pattern = deref<JsonObject | undefined>(doc, parameter.schema)?.pattern;
          const kind = kinds.find((k) => k.pattern.source === pattern);
          if (parameter.in === 'path' && kind && typeof value === 'string') pathIds.push({ name, kind, example: value });
        }
      }
      operations.push({ operationId, pathIds });
      const body = deref<JsonObject | undefined>(doc, operation.requestBody);
      for (const media of Object.values((body?.content ?? {}) as Record<string, JsonObject>))
        examplesOf(doc, media).forEach(({ name, value }, index) => {
          uses.push({ where: `${operationId} request "${name}"`, value, role: 'request', operationId, first: index === 0, ...(event ? { event } : {}) });
        });
      const responses = Object.entries((operation.responses ?? {}) as JsonObject);
      const firstSuccess = responses.find(([status]) => /^2\d\d$/.test(status))?.[0];
      for (const [status, raw] of responses) {
        const response = deref<JsonObject>(doc, raw);
        const error = Number(status) >= 400;
        for (const media of Object.values((response.content ?? {}) as Record<string, JsonObject>))
          examplesOf(doc, media).forEach(({ name, value }, index) => {
            uses.push({
              where: `${operationId} ${status} "${name}"`,
              value,
              role: 'response',
              operationId,
              status,
              first: status === firstSuccess && index === 0,
              error,
            });
          });
        for (const [name, rawHeader] of Object.entries((response.headers ?? {}) as JsonObject))
          for (const { value } of examplesOf(doc, deref<JsonObject>(doc, rawHeader)))
            uses.push({ where: `${operationId} ${status} header ${name}`, value, role: 'header', operationId, error, name });
      }
    }
  }
  const schemaExamples = (node: unknown, at: string): void => {
    if (Array.isArray(node))
      node.forEach((item, i) => {
        schemaExamples(item, `${at}/${i}`);
      });
    if (!isJsonObject(node)) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'examples' && Array.isArray(value)) for (const example of value) uses.push({ where: `schema ${at}`, value: example, role: 'schema' });
      else schemaExamples(value, `${at}/${key}`);
    }
  };
  schemaExamples((doc.components as JsonObject | undefined)?.schemas, '#/components/schemas');
  return { kinds, operations, uses };
}

// ---------------------------------------------------------------------------------------------

/** Every object in a value, with its path. */
function objectsIn(value: unknown, at = ''): Array<{ at: string; object: JsonObject }> {
  if (Array.isArray(value)) return value.flatMap((item, i) => objectsIn(item, `${at}/${i}`));
  if (!isJsonObject(value)) return [];
  return [{ at: at || '/', object: value }, ...Object.entries(value).flatMap(([key, item]) => objectsIn(item, `${at}/${key}`))];
}

/**
 * Ids of `kinds` a value names (whole strings or inside them, as in a URL), but the `id` of a
 * record an answer shows: that is the record itself, not a reference to it.
 */
function references(kinds: readonly IdKind[], value: unknown, answer: boolean): Array<{ kind: IdKind; id: string }> {
  if (typeof value === 'string') return kinds.flatMap((kind) => [...value.matchAll(kind.token)].map((m) => ({ kind, id: m[0] })));
  if (Array.isArray(value)) return value.flatMap((item) => references(kinds, item, answer));
  if (!isJsonObject(value)) return [];
  return Object.entries(value)
    .filter(([key, item]) => !(answer && key === 'id' && idKindOf(kinds, item)))
    .flatMap(([, item]) => references(kinds, item, answer));
}

/** A record: an object of a world example whose `id` is an id of one of the contract's kinds. */
interface RecordCopy {
  id: string;
  where: string;
  object: JsonObject;
}

/** Records are what the service's answers and events show; in a request to it, an `id` names a record (an update's). */
function records(world: World): RecordCopy[] {
  return world.uses
    .filter((use) => fromService(use) && !use.error)
    .flatMap((use) =>
      objectsIn(use.value)
        .filter(({ object }) => idKindOf(world.kinds, object.id))
        .map(({ at, object }) => ({ id: String(object.id), where: `${use.where} ${at}`, object })),
    );
}

/** The copies of each record merged: each field as its first copy has it. */
function merged(world: World): Map<string, JsonObject> {
  const byId = new Map<string, JsonObject>();
  for (const { id, object } of records(world)) byId.set(id, { ...object, ...(byId.get(id) ?? {}) });
  return byId;
}

/** Where two values disagree on what both have: objects on their shared keys, arrays item by item; `skip`: keys not compared. */
function disagreements(a: unknown, b: unknown, skip: ReadonlySet<string>, at = ''): string[] {
  if (isJsonObject(a) && isJsonObject(b))
    return Object.keys(a)
      .filter((key) => key in b && !skip.has(key))
      .flatMap((key) => disagreements(a[key], b[key], skip, `${at}/${key}`));
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return [`${at || '/'}: ${a.length} items, ${b.length} items`];
    return a.flatMap((item, i) => disagreements(item, b[i], skip, `${at}/${i}`));
  }
  return Object.is(a, b) || JSON.stringify(a) === JSON.stringify(b) ? [] : [`${at || '/'}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`];
}

// --- the checks: each returns what is wrong, in words --------------------------------------------

/** Every copy of a record agrees with each other copy on the fields both have, but for those that change over its life. */
export function copiesDisagree(world: World): string[] {
  const earlier = new Map<string, RecordCopy[]>();
  const found: string[] = [];
  for (const copy of records(world)) {
    const others = earlier.get(copy.id) ?? [];
    for (const other of others)
      for (const d of disagreements(other.object, copy.object, lifecycleFields)) found.push(`${copy.id} in ${copy.where} and ${other.where}: ${d}`);
    earlier.set(copy.id, [...others, copy]);
  }
  return found;
}

/**
 * Every id an example refers to (but an error answer's) is a record of the story: for a kind of
 * record some operation creates (a `201` answer holding it), one that a create example answers, as a
 * docs reader who runs the samples in order has it (the order's product is the one the product
 * example created, not another); for a kind that only comes with another record or out of band
 * (an order's items, the company), one that an answer shows.
 */
export function danglingIds(world: World): string[] {
  const shown = new Set(records(world).map((r) => r.id));
  const made = new Set(
    world.uses
      .filter((use) => use.role === 'response' && use.status === '201')
      .map((use) => objectsIn(use.value).find(({ object }) => idKindOf(world.kinds, object.id))?.object.id)
      .filter((id): id is string => typeof id === 'string'),
  );
  const madeKinds = new Set([...made].map((id) => idKindOf(world.kinds, id)));
  return world.uses
    .filter((use) => !use.error)
    .flatMap((use) => references(world.kinds, use.value, fromService(use)).map(({ kind, id }) => ({ use, kind, id })))
    .filter(({ kind, id }) => !(madeKinds.has(kind) ? made : shown).has(id))
    .map(({ use, kind, id }) => {
      const what = kind.schema.replace(/Id$/, '').toLowerCase();
      return `${use.where} names ${id}, and ${madeKinds.has(kind) ? `no create example answers that ${what}` : `no example is that ${what}`}`;
    });
}

/** The first request example of an operation agrees with the record its first answer example holds (the record's other copies filling in). */
export function requestsDisagree(world: World): string[] {
  const all = merged(world);
  const found: string[] = [];
  for (const request of world.uses.filter((use) => use.role === 'request' && use.first)) {
    const answer = world.uses.find((use) => use.role === 'response' && use.first && use.operationId === request.operationId);
    const record = objectsIn(answer?.value).find(({ object }) => idKindOf(world.kinds, object.id))?.object;
    if (!answer || !record) continue;
    const view = { ...all.get(String(record.id)), ...record };
    for (const d of disagreements(request.value, view, new Set())) found.push(`${request.where} and the ${record.id} of ${answer.where}: ${d}`);
  }
  return found;
}

/** What the items of an object come to at their products' prices, in cents; undefined when it has none or a price is unknown. */
function itemsCents(object: JsonObject, prices: Map<string, number>): number | undefined {
  const items = (Array.isArray(object.items) ? object.items : Array.isArray(object.orderItems) ? object.orderItems : []).filter(isJsonObject);
  if (items.length === 0) return undefined;
  let sum = 0;
  for (const item of items) {
    const price = isJsonObject(item.product) && typeof item.product.price === 'number' ? item.product.price : prices.get(String(item.productId));
    if (price === undefined || typeof item.quantity !== 'number') return undefined;
    sum += cents(price) * item.quantity;
  }
  return sum;
}

/**
 * The sums the service checks or makes (D29, D30, seed §4.1), in every example: an order's
 * `total = subtotal − discount + shippingCost` and `subtotal = Σ price × quantity`; a charge's
 * `total` (cents) = Σ price × quantity of its items; a sale's `totalValue = value − fees` with
 * `value` its order's total.
 */
export function sumsThatFail(world: World): { checked: number; found: string[] } {
  const all = merged(world);
  const prices = new Map([...all].filter(([, r]) => typeof r.price === 'number').map(([id, r]) => [id, r.price as number]));
  const found: string[] = [];
  let checked = 0;
  const money = (value: unknown) => (typeof value === 'number' ? cents(value) : 0);
  for (const use of world.uses.filter((u) => (u.role === 'request' || u.role === 'response') && !u.error)) {
    for (const { at, object } of objectsIn(use.value)) {
      const where = `${use.where} ${at}`;
      const items = itemsCents(object, prices);
      if (typeof object.subtotal === 'number' && typeof object.total === 'number') {
        checked++;
        const expected = money(object.subtotal) - money(object.discount) + money(object.shippingCost);
        if (money(object.total) !== expected) found.push(`${where}: total ${object.total} ≠ subtotal − discount + shippingCost = ${expected / 100}`);
        if (items !== undefined && items !== money(object.subtotal)) found.push(`${where}: subtotal ${object.subtotal} ≠ Σ price × quantity = ${items / 100}`);
      } else if (typeof object.total === 'number' && items !== undefined) {
        checked++;
        if (object.total !== items) found.push(`${where}: total ${object.total} cents ≠ Σ price × quantity = ${items} cents`);
      }
      if (['value', 'totalValue', 'checkoutFee', 'gatewayFee'].every((key) => typeof object[key] === 'number')) {
        checked++;
        const net = money(object.value) - money(object.checkoutFee) - money(object.gatewayFee);
        if (money(object.totalValue) !== net) found.push(`${where}: totalValue ${object.totalValue} ≠ value − checkoutFee − gatewayFee = ${net / 100}`);
        const order = all.get(String(object.orderId));
        if (order && money(order.total) !== money(object.value)) found.push(`${where}: value ${object.value} ≠ the total ${order.total} of ${object.orderId}`);
      }
      if (typeof object.trialDays === 'number' && typeof object.createdAt === 'string' && typeof object.trialEndsAt === 'string') {
        checked++;
        const expected = new Date(Date.parse(object.createdAt) + object.trialDays * 86_400_000).toISOString();
        if (object.trialEndsAt !== expected) found.push(`${where}: trialEndsAt ${object.trialEndsAt} ≠ createdAt + ${object.trialDays} days = ${expected}`);
      }
    }
  }
  return { checked, found };
}

/** Every answer of an operation with an id in its path (errors too) names, of that kind, only the path parameter's example. */
export function answersNameOtherIds(world: World): string[] {
  const found: string[] = [];
  for (const op of world.operations)
    for (const { kind, example } of op.pathIds)
      for (const use of world.uses.filter((u) => u.operationId === op.operationId && u.role === 'response'))
        for (const { id } of references([kind], use.value, false)) if (id !== example) found.push(`${use.where} names ${id}, not the path's ${example}`);
  return found;
}

/**
 * Events and their deliveries: a delivery of an event whose id is a webhook's `webhook-id`
 * example has that webhook's body `type`, and every delivery's event is one its registration
 * subscribed to.
 */
export function eventsThatFail(world: World): { checked: number; found: string[] } {
  const all = merged(world);
  const found: string[] = [];
  let checked = 0;
  const deliveries = world.uses
    .filter((u) => u.role === 'response' && !u.error)
    .flatMap((use) => objectsIn(use.value).map(({ at, object }) => ({ where: `${use.where} ${at}`, object })))
    .filter(({ object }) => typeof object.eventId === 'string' && typeof object.eventType === 'string');
  for (const { where, object } of deliveries) {
    const registration = all.get(String(object.webhookId));
    checked++;
    if (!Array.isArray(registration?.events) || !registration.events.includes(object.eventType))
      found.push(`${where}: ${object.eventType} is not an event ${String(object.webhookId)} subscribed to`);
    const header = world.uses.find((u) => u.role === 'header' && u.value === object.eventId && u.operationId);
    if (!header) continue;
    const body = world.uses.find((u) => u.role === 'request' && u.operationId === header.operationId);
    checked++;
    if (!isJsonObject(body?.value) || body.value.type !== object.eventType)
      found.push(
        `${where}: event ${object.eventId} is ${String(object.eventType)}, its example body (${body?.where ?? 'none'}) is ${isJsonObject(body?.value) ? String(body.value.type) : 'missing'}`,
      );
  }
  return { checked, found };
}

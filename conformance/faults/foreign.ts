import { randomBytes, randomUUID } from 'node:crypto';
import { listOperations, loadBundledContract, resolvePointer } from '../../lib/contract/bundled.js';
import { idKinds } from '../../lib/contract/ids.js';
import { pathPattern } from '../../lib/contract/paths.js';
import { documentedResponse, schemaPointerFor } from '../../lib/contract/responses.js';
import { is, rewriteJson, withRequest } from '../checks/stateful-test-support.js';
import { isPlainObject as isObject, itemsOf, keywordOf, propertiesOf, type SchemaView, viewOf } from '../data/schema.js';
import { RunContext } from '../engine/context.js';
import type { CheckName } from '../engine/types.js';
import { decisionDepartures, type FetchLike } from './deployments.js';

/**
 * A fault-free deployment shaped like a live service built from the seed alone by someone who
 * decided everything differently from this contract: each answer is one the seed allows, and
 * none follows a decision where the seed leaves room. On top of the departures of
 * `decisionDepartures` (D01, D02, D10, D22, D28):
 *
 * - ids of the kinds whose form the contract decides (D13: the `*Id` schemas whose pattern is a
 *   decision) are UUIDs, plain numbers and upper-case base-32 strings; the kinds whose form the
 *   seed gives (`clnt_`, `comp_`, seed §2.4) keep it everywhere, as one service names one client
 *   or company one way. Ids in requests are mapped back through the same table, so the service
 *   stays consistent;
 * - every response object carries a field the contract does not know (D12 allows it);
 * - tax numbers, phones and CEPs are punctuated wherever the seed declares a plain string, not
 *   in a record the seed gives patterns for (an answer whose schema has a `pattern` no decision
 *   marks: the client's list form, seed §2.4, which the list and the read by id answer) (D23,
 *   D24, D46);
 * - timestamps carry a `-03:00` offset instead of `Z` (D35);
 * - order amounts written as decimal strings, as the seed's samples write them, are accepted
 *   (D17);
 * - the charge company's colour has no `#` (D47); the nested company has no `storeType`
 *   (D21) and says `needGatewaySetup: "no"` (D21); order numbers are `PED-1` (D29); the sales
 *   record charges no checkout fee (D30); a pending charge's `paymentStatus` is `WAITING`
 *   (D05); webhooks are `enabled`/`disabled` (D06).
 *
 * The `seed` profile must fail nothing on it: that is the proof it never cries wolf.
 */
export const foreignDeployment = {
  /** The decisions a `seed` run must name in its info findings (the fees, D30, and the offsets, D35, no check looks at). */
  decisions: ['D05', 'D06', 'D13', 'D17', 'D21', 'D23', 'D24', 'D29', 'D47', ...decisionDepartures.decisions],
  wrap: (inner: FetchLike): FetchLike => decisionDepartures.wrap(foreignShapes(inner)),
};

type Json = Record<string, unknown>;

const contract = loadBundledContract();
const operations = listOperations(contract).map((op) => ({ op, path: pathPattern(op.path) }));

/** The id kinds whose form is the contract's decision (D13), not the seed's: these get foreign forms. */
const decidedIdKinds = idKinds(contract).filter((kind) => RunContext.decisionOf(resolvePointer(contract, `/components/schemas/${kind.schema}`), 'pattern'));
const isDecidedId = (value: string) => decidedIdKinds.some((kind) => kind.pattern.test(value));

/** The schema of the answer the contract documents for a request's operation and status, if any. */
function answerView(method: string, path: string, response: Response): SchemaView | undefined {
  const found = operations.find(({ op, path: pattern }) => op.method === method.toLowerCase() && pattern.test(path));
  const documented = found ? documentedResponse(contract, found.op, response.status) : undefined;
  const pointer = documented ? schemaPointerFor(documented, response.headers.get('content-type') ?? undefined) : undefined;
  return pointer ? viewOf(contract, resolvePointer(contract, pointer)) : undefined;
}

/** Whether the seed gives the value's pattern (a `pattern` no decision marks). */
function seedFixed(view: SchemaView): boolean {
  const pattern = keywordOf(view, 'pattern');
  return pattern !== undefined && pattern.decision === undefined;
}
const utcTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const decimalString = /^-?\d+(\.\d+)?$/;
const orderAmounts = ['subtotal', 'total', 'discount', 'shippingCost'];

/** One foreign id per reference id and back: the mapping table that keeps the service consistent. */
class IdTable {
  private readonly foreign = new Map<string, string>();
  private readonly reference = new Map<string, string>();
  private counter = 1040;

  toForeign(id: string): string {
    let mapped = this.foreign.get(id);
    if (mapped === undefined) {
      mapped = this.newId(id.slice(0, 4));
      this.foreign.set(id, mapped);
      this.reference.set(mapped, id);
    }
    return mapped;
  }

  toReference(value: string): string {
    return this.reference.get(value) ?? value;
  }

  /** A different id form per kind of record, as services built on different stores have. */
  private newId(kind: string): string {
    if (kind === 'prod' || kind === 'oitm' || kind === 'ckpf') return String(++this.counter);
    if (kind === 'subs' || kind === 'wbhk') return base32(randomBytes(16)).slice(0, 26);
    return randomUUID();
  }
}

const crockford = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += crockford[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return out;
}

function foreignShapes(inner: FetchLike): FetchLike {
  const ids = new IdTable();
  return async (original) => {
    const url = new URL(original.url);
    url.pathname = url.pathname
      .split('/')
      .map((segment) => ids.toReference(decodeURIComponent(segment)))
      .map(encodeURIComponent)
      .join('/');
    const isOrder = is(original, 'POST', /^\/order$/);
    const request = await withRequest<unknown>(new Request(url, original), {
      body: (body) => {
        const mapped = mapStrings(body, (s) => ids.toReference(s));
        if (isOrder && isObject(mapped)) {
          for (const key of orderAmounts) {
            const amount = mapped[key];
            if (typeof amount === 'string' && decimalString.test(amount)) mapped[key] = Number(amount);
          }
        }
        return mapped;
      },
    });
    const response = await inner(request);
    if (!response.ok || !/json/.test(response.headers.get('content-type') ?? '')) return response;
    const view = answerView(request.method, url.pathname, response);
    return rewriteJson(response, (json) => foreignBody(json, ids, view));
  };
}

/** Every string in `value` (keys aside) passed through `f`. */
function mapStrings(value: unknown, f: (s: string) => string): unknown {
  if (typeof value === 'string') return f(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, f));
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapStrings(v, f)]));
  return value;
}

/** `2026-11-21T14:30:00.000Z` as the same instant in Brasília time, `2026-11-21T11:30:00.000-03:00`. */
function brasilia(timestamp: string): string {
  const shifted = new Date(Date.parse(timestamp) - 3 * 3600_000).toISOString();
  return `${shifted.slice(0, -1)}-03:00`;
}

function punctuateTaxId(digits: string): string {
  if (/^\d{11}$/.test(digits)) return `${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6, 9)}-${digits.slice(9)}`;
  if (/^\d{14}$/.test(digits)) return `${digits.slice(0, 2)}.${digits.slice(2, 5)}.${digits.slice(5, 8)}/${digits.slice(8, 12)}-${digits.slice(12)}`;
  return digits;
}

function punctuatePhone(digits: string): string {
  return /^\d{10,11}$/.test(digits) ? `(${digits.slice(0, 2)}) ${digits.slice(2, -4)}-${digits.slice(-4)}` : digits;
}

function punctuateCep(digits: string): string {
  return /^\d{8}$/.test(digits) ? `${digits.slice(0, 5)}-${digits.slice(5)}` : digits;
}

/**
 * `value` as the foreign service answers it, walked with the schema the contract gives it
 * (`view`). `seedForm`: the value is a field of a record the seed gives patterns for, kept as
 * the seed writes it.
 */
function foreignBody(value: unknown, ids: IdTable, view: SchemaView | undefined, key = '', seedForm = false): unknown {
  if (Array.isArray(value)) {
    const items = view ? itemsOf(contract, view) : undefined;
    return value.map((item) => foreignBody(item, ids, items, key, seedForm));
  }
  if (typeof value === 'string') return foreignString(value, ids, key, seedForm);
  if (!isObject(value)) return value;
  const properties = view ? propertiesOf(contract, view) : new Map<string, SchemaView>();
  const ownForm = [...properties.values()].some(seedFixed);
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) out[k] = foreignBody(v, ids, properties.get(k), k, ownForm);
  if (typeof out.storeType === 'string') {
    delete out.storeType;
    if (out.needGatewaySetup === 'false') out.needGatewaySetup = 'no';
  }
  if (typeof out.orderNumber === 'string') out.orderNumber = `PED-${Number(out.orderNumber)}`;
  if (typeof out.checkoutFee === 'number' && typeof out.value === 'number' && typeof out.gatewayFee === 'number') {
    out.checkoutFee = 0;
    out.totalValue = Math.round((out.value - out.gatewayFee) * 100) / 100;
  }
  if (typeof out.color === 'string') out.color = out.color.replace(/^#/, '');
  if (typeof out.brCode === 'string' && out.paymentStatus === 'PENDING') out.paymentStatus = 'WAITING';
  // A webhook registration (the one record with `events`).
  if (Array.isArray(out.events) && typeof out.status === 'string') out.status = out.status === 'ACTIVE' ? 'enabled' : 'disabled';
  out.legacyRevision = 7;
  return out;
}

function foreignString(value: string, ids: IdTable, key: string, seedForm: boolean): string {
  if (isDecidedId(value)) return ids.toForeign(value);
  if (utcTimestamp.test(value)) return brasilia(value);
  if (seedForm) return value;
  if (key === 'taxId' || key === 'cpfCnpj') return punctuateTaxId(value);
  if (key === 'phone') return punctuatePhone(value);
  if (key === 'postalCode') return punctuateCep(value);
  return value;
}

/**
 * The foreign deployment without the reads the contract adds to the seed (GET operations marked
 * `x-decision` as a whole: D37's products, orders and subscriptions by id, D41's deliveries),
 * answering them `404` as any path it does not serve. The `seed` profile must still fail nothing:
 * what goes wrong with an operation the seed does not list is information.
 */
export const foreignWithoutExtensionReads = (inner: FetchLike): FetchLike => {
  const added = listOperations(loadBundledContract())
    .filter((op) => op.method === 'get' && typeof op.operation['x-decision'] === 'string')
    .map((op) => pathPattern(op.path));
  const foreign = foreignDeployment.wrap(inner);
  return async (request) =>
    request.method === 'GET' && added.some((path) => path.test(new URL(request.url).pathname)) ? new Response('Not Found', { status: 404 }) : foreign(request);
};

/**
 * Real seed violations on top of the foreign deployment: the `seed` profile must still fail each
 * on the named check, so its tolerance of other shapes is not blindness.
 */
export const foreignSeedViolations: Array<{
  name: string;
  expect: { operationId: string; check: CheckName };
  only: string[];
  wrap: (inner: FetchLike) => FetchLike;
}> = [
  {
    name: "client list ids without the seed's clnt_ form (seed §2.4)",
    expect: { operationId: 'listClients', check: 'response_schema_conformance' },
    only: ['listClients', 'createClient'],
    wrap: (inner) =>
      answers(
        foreignDeployment.wrap(inner),
        (r) => is(r, 'GET', /^\/client$/),
        (list: Json[]) => list.map((client) => ({ ...client, id: randomUUID() })),
      ),
  },
  {
    name: "an order status outside the seed's enum (seed §2.7)",
    expect: { operationId: 'createOrder', check: 'response_schema_conformance' },
    only: ['createOrder'],
    wrap: (inner) =>
      answers(
        foreignDeployment.wrap(inner),
        (r) => is(r, 'POST', /^\/order$/),
        (order: Json) => ({ ...order, status: 'NEW' }),
      ),
  },
  {
    name: 'a product price as a decimal string in a response (seed §2.5: number)',
    expect: { operationId: 'createProduct', check: 'response_schema_conformance' },
    only: ['createProduct'],
    wrap: (inner) =>
      answers(
        foreignDeployment.wrap(inner),
        (r) => is(r, 'POST', /^\/product$/),
        (product: Json) => ({ ...product, price: String(product.price) }),
      ),
  },
];

/** `inner` with the successful JSON answers to requests `which` selects rewritten by `edit`. */
function answers<T>(inner: FetchLike, which: (request: Request) => boolean, edit: (json: T) => unknown): FetchLike {
  return async (request) => {
    const response = await inner(request);
    return which(request) && response.ok ? rewriteJson(response, edit) : response;
  };
}

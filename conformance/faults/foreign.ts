import { randomBytes, randomUUID } from 'node:crypto';
import { listOperations, loadBundledContract } from '../../lib/contract/bundled.js';
import { pathPattern } from '../../lib/contract/paths.js';
import { is, rewriteJson, withRequest } from '../checks/stateful-test-support.js';
import { isPlainObject as isObject } from '../data/schema.js';
import type { CheckName } from '../engine/types.js';
import { decisionDepartures, type FetchLike } from './deployments.js';

/**
 * A fault-free deployment shaped like a live service built from the seed alone by someone who
 * decided everything differently from this contract: each answer is one the seed allows, and
 * none follows a decision where the seed leaves room. On top of the departures of
 * `decisionDepartures` (D01, D02, D10, D22, D28):
 *
 * - ids are UUIDs, plain numbers and upper-case base-32 strings (D13); only the client list's
 *   `id` and `companyId` keep the `clnt_`/`comp_` forms the seed fixes (seed §2.4), so client
 *   ids stay `clnt_` everywhere (they are the same clients) while company ids elsewhere are
 *   UUIDs. Ids in requests are mapped back through the same table, so the service stays
 *   consistent;
 * - every response object carries a field the contract does not know (D12 allows it);
 * - tax numbers, phones and CEPs are punctuated wherever the seed declares a plain string (not
 *   in the client list, whose patterns are the seed's) (D23, D24, D46);
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

/** Ids of the reference server other than clients' (`clnt_`), which the seed fixes wherever they occur. */
const referenceId = /^(char|prod|subs|ordr|oitm|sale|ckpf|wbhk|comp)_[a-z][0-9a-z]+$/;
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
    const listClients = is(request, 'GET', /^\/client$/);
    const webhooks = /^\/webhook/.test(url.pathname);
    return rewriteJson(response, (json) => foreignBody(json, ids, { listClients, webhooks }));
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

interface Where {
  /** The body of `GET /client`, whose ids, tax numbers and phones the seed fixes. */
  listClients: boolean;
  /** A webhook registration (or a list of them). */
  webhooks: boolean;
}

function foreignBody(value: unknown, ids: IdTable, where: Where, key = ''): unknown {
  if (Array.isArray(value)) return value.map((item) => foreignBody(item, ids, where, key));
  if (typeof value === 'string') return foreignString(value, ids, where, key);
  if (!isObject(value)) return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) out[k] = foreignBody(v, ids, where, k);
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
  if (where.webhooks && Array.isArray(out.events) && typeof out.status === 'string') out.status = out.status === 'ACTIVE' ? 'enabled' : 'disabled';
  out.legacyRevision = 7;
  return out;
}

function foreignString(value: string, ids: IdTable, where: Where, key: string): string {
  if (referenceId.test(value)) return where.listClients && key === 'companyId' ? value : ids.toForeign(value);
  if (utcTimestamp.test(value)) return brasilia(value);
  if (where.listClients) return value;
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

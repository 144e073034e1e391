import QRCode from 'qrcode';
import { Webhook } from 'standardwebhooks';
import { unknownProperty } from '../data/mutations.js';
import { is, rewriteEachJson, rewriteJson, withRequest } from '../checks/stateful-test-support.js';
import type { CheckName, ConformanceOptions } from '../engine/types.js';
import { crc16CcittFalse, parseTlv } from '../pix/brcode-check.js';
import { createId } from '../../lib/ids/cuid2.js';
import { OWN_DEFAULT_RESPONSE_TIME_MS } from '../options.js';
import type { Config } from '../../server/config.js';

/**
 * Deliberately broken deployments: each wraps the reference server's `fetch` and breaks
 * one thing a payment API must get right. The fault-injection test runs the suite against
 * each and expects the named check to fail on the named operation, which proves the suite
 * catches it (other checks may fail too: a 5xx is also a refused valid body).
 */
export interface Fault {
  name: string;
  /**
   * The check that must fail, the operation it must fail on and, where several faults fail the
   * same check, what one of its failures must say (the field, the value sent and the value read).
   */
  expect: { operationId: string; check: CheckName; message?: RegExp };
  /** Operations the run covers (`--only`), to keep each run short. */
  only: string[];
  wrap: (inner: FetchLike, keys: { apiKey: string; otherApiKey: string }) => FetchLike;
  /**
   * Breaks the webhook deliveries instead: wraps the `fetch` the server's delivery worker sends
   * them with. `secrets` maps each registered URL to its secret, for faults that re-sign what
   * they change (so that only the broken property fails).
   */
  deliveries?: (send: typeof fetch, secrets: ReadonlyMap<string, string>) => typeof fetch;
  /** Run options the check needs to be on (`--max-response-time`). */
  options?: Partial<ConformanceOptions>;
  /** The reference server's configuration the fault needs (its rate limit on, which tests turn off). */
  config?: Partial<Config>;
}

export type FetchLike = (request: Request) => Promise<Response>;

type Json = Record<string, unknown>;

const isListClients = (r: Request) => is(r, 'GET', /^\/client$/);
const isCreateClient = (r: Request) => is(r, 'POST', /^\/client$/);
const isGetCharge = (r: Request) => is(r, 'GET', /^\/charge\/[^/]+$/);
const isCreatePaymentLink = (r: Request) => is(r, 'POST', /^\/charge\/payment-link$/);

const pagedClients = (r: Request) => isListClients(r) && new URL(r.url).search !== '';

/** Paging broken (paging_walked): each breaks one thing D48 promises of a walk through `GET /client`'s pages. */
export const pagingFaults: Fault[] = [
  {
    name: '`limit` ignored (every page is the whole list)',
    expect: { operationId: 'listClients', check: 'paging_walked', message: /holds \d+ records, more than the \d+ asked for/ },
    only: ['listClients', 'createClient'],
    wrap: (inner) => async (request) => (pagedClients(request) ? inner(new Request(`${new URL(request.url).origin}/client`, request)) : inner(request)),
  },
  {
    name: "a next page repeating the previous page's last client (`after` taken as inclusive)",
    expect: { operationId: 'listClients', check: 'paging_walked', message: /is on page \d+ and again on page \d+/ },
    only: ['listClients', 'createClient'],
    wrap: (inner) => {
      let last: Json | undefined;
      return async (request) => {
        const response = await inner(request);
        if (!pagedClients(request) || !response.ok) return response;
        const after = new URL(request.url).searchParams.has('after');
        return rewriteJson(response, (page: Json[]) => {
          const shown = after && last ? [last, ...page] : page;
          last = page.at(-1);
          return shown;
        });
      };
    },
  },
  {
    name: 'the last page still links onward (to an empty page)',
    expect: { operationId: 'listClients', check: 'paging_walked', message: /links onward, to a page with no records/ },
    only: ['listClients', 'createClient'],
    wrap: (inner) => async (request) => {
      const url = new URL(request.url);
      if (pagedClients(request) && url.searchParams.get('after') === 'zzend') return Response.json([]);
      const response = await inner(request);
      if (!pagedClients(request) || !response.ok || response.headers.has('link')) return response;
      const headers = new Headers(response.headers);
      headers.set('Link', `</client?limit=${url.searchParams.get('limit') ?? 100}&after=zzend>; rel="next"`);
      return new Response(response.body, { status: response.status, headers });
    },
  },
  {
    name: 'pages out of order (each page newest first)',
    expect: { operationId: 'listClients', check: 'paging_walked', message: /list's order|oldest first/ },
    only: ['listClients', 'createClient'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      return pagedClients(request) && response.ok ? rewriteJson(response, (page: Json[]) => [...page].reverse()) : response;
    },
  },
];

/** A security header of every answer (D50) missing: response_headers_conformance. */
export const securityHeaderFaults: Fault[] = [
  {
    name: 'X-Content-Type-Options: nosniff missing from every answer',
    expect: {
      operationId: 'createClient',
      check: 'response_headers_conformance',
      message: /no X-Content-Type-Options header; every answer says nosniff \(D50\)/,
    },
    only: ['listClients', 'createClient'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      const headers = new Headers(response.headers);
      headers.delete('X-Content-Type-Options');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    },
  },
];

/** A record's INACTIVE status ignored when a request names it (D45): negative_data_rejection. */
export const inactiveFaults: Fault[] = [
  {
    name: 'an INACTIVE product or client sold all the same (a payment link naming one is created)',
    expect: {
      operationId: 'createPaymentLink',
      check: 'negative_data_rejection',
      message: /a request naming `\/\S+` \(an INACTIVE (client|product)\).* was accepted \(20\d\); an INACTIVE record cannot be sold or billed \(D45\)/,
    },
    only: ['createPaymentLink', 'createClient', 'createProduct'],
    wrap: (inner) => async (request) => {
      if (!isCreatePaymentLink(request)) return inner(request);
      const body = (await request.clone().json()) as Json;
      const refused = await inner(request);
      if (refused.status !== 422) return refused;
      const problem = (await refused.clone().json()) as { errors?: Json[] };
      if (!problem.errors?.length || !problem.errors.every((e) => e.keyword === 'active')) return refused;
      // As a service that never looks at the status: the same link without the records it names.
      const { customerId: _client, items: _items, ...rest } = body;
      return inner(new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify({ ...rest, total: 1000 }) }));
    },
  },
];

/** Reuse by tax number (D48) broken: ensure_resource_availability. */
export const reuseFaults: Fault[] = [
  {
    name: "a payment link's customer always made a new client (no reuse by tax number)",
    expect: { operationId: 'createPaymentLink', check: 'ensure_resource_availability', message: /made [23] new clients with it, where the company had/ },
    only: ['createPaymentLink', 'listClients', 'getCharge'],
    wrap: (inner) => async (request) => {
      if (!isCreatePaymentLink(request)) return inner(request);
      const { customer } = (await request.clone().json()) as { customer?: Json };
      if (customer) {
        const client = { name: customer.name, cpfCnpj: customer.taxId, email: customer.email, phone: customer.phone, status: 'ACTIVE' };
        await inner(new Request(`${new URL(request.url).origin}/client`, { method: 'POST', headers: request.headers, body: JSON.stringify(client) }));
      }
      return inner(request);
    },
  },
];

/** Values changed on store that fixed examples never reach (generated_values_kept). */
export const generatedFaults: Fault[] = [
  {
    name: 'e-mails lower-cased on store',
    expect: { operationId: 'createClient', check: 'generated_values_kept', message: /`email` reads "[^"A-Z]+", sent "[^"]*[A-Z]/ },
    only: ['createClient', 'listClients', 'getClient'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!response.ok || !/^\/client(\/[^/]+)?$/.test(new URL(request.url).pathname)) return response;
      const lower = (c: Json) => (typeof c.email === 'string' ? { ...c, email: c.email.toLowerCase() } : c);
      return rewriteEachJson(response, lower);
    },
  },
  {
    name: 'accents dropped by an update (PATCH /webhook/{id} stores `name` without its accents)',
    expect: { operationId: 'updateWebhook', check: 'generated_values_kept', message: /PATCH \/webhook\/\S+: `name` reads "[^"]*"?, sent "[^"]*[^\x00-\x7f]/ },
    only: ['createWebhook', 'getWebhook', 'listWebhooks', 'updateWebhook', 'deleteWebhook'],
    wrap: (inner) => async (request) => {
      if (!is(request, 'PATCH', /^\/webhook\/[^/]+$/)) return inner(request);
      // Composed again (NFD splits a Hangul syllable into letters that are no marks: a name could grow
      // past its maxLength); a name of marks only would be left empty (minLength 1): a letter stands in.
      const plain = (text: string) => text.normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC') || 'a';
      return inner(await withRequest<Json>(request, { body: (body) => (typeof body.name === 'string' ? { ...body, name: plain(body.name) } : body) }));
    },
  },
  {
    name: "an update that drops a price's cents (PUT /subscription stores whole reais)",
    expect: { operationId: 'updateSubscription', check: 'generated_values_kept', message: /PUT \/subscription: `price` reads \d+, sent \d+\.\d+/ },
    only: ['createProduct', 'createClient', 'createSubscription', 'getSubscription', 'updateSubscription'],
    wrap: (inner) => async (request) => {
      if (!is(request, 'PUT', /^\/subscription$/)) return inner(request);
      return inner(
        await withRequest<Json>(request, { body: (body) => (typeof body.price === 'number' ? { ...body, price: Math.max(1, Math.trunc(body.price)) } : body) }),
      );
    },
  },
  {
    name: 'product names cut to 100 characters on store (a shorter column than maxLength), caught whatever the seed',
    expect: { operationId: 'createProduct', check: 'generated_values_kept', message: /`name` reads ".*, the first 100 of the \d+ characters sent/ },
    only: ['createProduct', 'getProduct'],
    wrap: (inner) => async (request) =>
      is(request, 'POST', /^\/product$/)
        ? inner(
            await withRequest<Json>(request, {
              body: (body) => (typeof body.name === 'string' ? { ...body, name: [...body.name].slice(0, 100).join('') } : body),
            }),
          )
        : inner(request),
  },
  {
    name: "an order's discount not stored (every answer shows a discount of 0)",
    expect: { operationId: 'createOrder', check: 'generated_values_kept', message: /POST \/order: `discount` reads 0\b/ },
    only: ['createProduct', 'createClient', 'createOrder', 'getOrder'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!response.ok || !/^\/order(\/[^/]+)?$/.test(new URL(request.url).pathname)) return response;
      return rewriteJson(response, (order: Json) => ({ ...order, discount: 0 }));
    },
  },
  {
    name: "an item's quantity truncated to two digits (a payment link for 100 units stores 10)",
    expect: { operationId: 'createPaymentLink', check: 'generated_values_kept', message: /`items\[0\]\.quantity` reads \d{1,2}, sent \d{3,}/ },
    only: ['createProduct', 'createPaymentLink', 'getCharge'],
    // A seed that draws a quantity of three digits within the default examples, so that the proof does not rest on chance.
    options: { seed: 5 },
    wrap: (inner) => async (request) => {
      if (!isCreatePaymentLink(request)) return inner(request);
      // Only the quantities the contract accepts: one it refuses is still refused.
      const inRange = (n: number) => Number.isInteger(n) && n >= 100 && n <= 10_000;
      const cut = (item: unknown) =>
        typeof item === 'object' && item !== null && typeof (item as Json).quantity === 'number' && inRange((item as Json).quantity as number)
          ? { ...(item as Json), quantity: Number(String((item as Json).quantity).slice(0, 2)) }
          : item;
      return inner(await withRequest<Json>(request, { body: (body) => (Array.isArray(body.items) ? { ...body, items: body.items.map(cut) } : body) }));
    },
  },
];

/** A read slower than the budget (response_time, with `--max-response-time`). */
export const slowFaults: Fault[] = [
  {
    // Every read of an order is slow (about a dozen in a run): 0.7 s each, over a 0.5 s budget.
    name: 'GET /order/{id} answering twice after 0.7 s (budget 0.5 s)',
    expect: {
      operationId: 'getOrder',
      check: 'response_time',
      message: /^GET \/order\/\{id\}: 2 of \d+ answers slower than the 500 ms budget \(--max-response-time\), the slowest ([7-9]\d\d|1\d\d\d) ms$/,
    },
    only: ['createOrder', 'getOrder'],
    options: { maxResponseTimeMs: 500 },
    // The first two reads are slow (a whole run of reads at 0.7 s each takes ten seconds): two
    // answers over the budget, the others within it.
    wrap: (inner) => {
      let slowed = 0;
      return async (request) => {
        if (slowed < 2 && is(request, 'GET', /^\/order\/[^/]+$/)) {
          slowed++;
          await new Promise((resolve) => setTimeout(resolve, 700));
        }
        return inner(request);
      };
    },
  },
  {
    // What `--profile own` sets when no --max-response-time is given (options.ts): no flag needed.
    name: "GET /product/{id} answering once after 1.6 s, --profile own's default budget",
    expect: {
      operationId: 'getProduct',
      check: 'response_time',
      message:
        /^GET \/product\/\{id\}: 1 of \d+ answers slower than the 1000 ms budget \(--profile own's default; --max-response-time MS sets another\), the slowest 1[6-9]\d\d ms$/,
    },
    only: ['createProduct', 'getProduct'],
    options: { maxResponseTimeMs: OWN_DEFAULT_RESPONSE_TIME_MS, maxResponseTimeDefault: true },
    wrap: (inner) => {
      let slowed = false;
      return async (request) => {
        if (!slowed && is(request, 'GET', /^\/product\/[^/]+$/)) {
          slowed = true;
          await new Promise((resolve) => setTimeout(resolve, 1_600));
        }
        return inner(request);
      };
    },
  },
];

/** A problem whose `status` member is not the answer's status (the Problem schema, D02): response_schema_conformance. */
export const problemFaults: Fault[] = [
  {
    name: "a problem's `status` member other than the answer's status (every 404 says 400)",
    expect: {
      operationId: 'getClient',
      check: 'response_schema_conformance',
      message: /the problem's `status` member is 400, not the answer's status 404/,
    },
    only: ['createClient', 'getClient'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (response.status !== 404 || !/problem\+json/.test(response.headers.get('content-type') ?? '')) return response;
      return rewriteJson(response, (problem: Json) => ({ ...problem, status: 400 }));
    },
  },
];

/** A webhook registration's signing secret returned by reads and lists, not only by its create (D40): response_schema_conformance. */
export const secretFaults: Fault[] = [
  {
    name: "a webhook registration's secret returned again by GET /webhook/{id} and GET /webhook",
    expect: {
      operationId: 'getWebhook',
      check: 'response_schema_conformance',
      message:
        /^GET \/webhook\/\S+ → 200: a `secret` member \(at \/\) where the documented schema has none; a signing secret is returned only by the request that creates it \(D40\)$/m,
    },
    only: ['createWebhook', 'getWebhook', 'listWebhooks', 'deleteWebhook'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!is(request, 'GET', /^\/webhook(\/[^/]+)?$/) || !response.ok) return response;
      const leak = (w: Json) => ({ ...w, secret: `whsec_${Buffer.from(String(w.id)).toString('base64')}` });
      return rewriteEachJson(response, leak);
    },
  },
];

/** Timestamps written in local time without milliseconds, not as D35 writes them: response_schema_conformance. */
export const timestampFaults: Fault[] = [
  {
    name: 'timestamps written at -03:00 without milliseconds (the same instants)',
    expect: {
      operationId: 'createClient',
      check: 'response_schema_conformance',
      message: /^POST \/client → 201: timestamps not written in UTC with milliseconds and Z, as 2026-11-21T14:30:00\.000Z \(D35\)$/m,
    },
    only: ['createClient', 'getClient', 'listClients'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!/^\/client(\/[^/]+)?$/.test(new URL(request.url).pathname) || !response.ok) return response;
      const local = (text: unknown) =>
        typeof text === 'string' && text.endsWith('Z') ? `${new Date(Date.parse(text) - 3 * 3_600_000).toISOString().slice(0, 19)}-03:00` : text;
      const shift = (c: Json) => ({ ...c, createdAt: local(c.createdAt), updatedAt: local(c.updatedAt) });
      return rewriteEachJson(response, shift);
    },
  },
];

/**
 * A product's INACTIVE status looked at only once the client's has refused the request (D45):
 * negative_data_rejection, by the request naming an INACTIVE product alone with an ACTIVE client.
 */
export const inactiveAloneFaults: Fault[] = [
  {
    name: 'an INACTIVE product sold when the client is ACTIVE (its status looked at only when the client is refused)',
    expect: {
      operationId: 'createPaymentLink',
      check: 'negative_data_rejection',
      message: /a request naming `\/items\/0\/productId` \(an INACTIVE product\) was accepted \(20\d\); an INACTIVE record cannot be sold or billed \(D45\)/,
    },
    only: ['createPaymentLink', 'createClient', 'createProduct'],
    wrap: (inner) => async (request) => {
      if (!isCreatePaymentLink(request)) return inner(request);
      const body = (await request.clone().json()) as Json;
      const refused = await inner(request);
      if (refused.status !== 422) return refused;
      const problem = (await refused.clone().json()) as { errors?: Json[] };
      const onlyProducts = problem.errors?.length && problem.errors.every((e) => e.keyword === 'active' && e.pointer !== '/customerId');
      if (!onlyProducts) return refused;
      // The client is ACTIVE, so the products are never looked at: the link is made all the same.
      const { customerId: _client, items: _items, ...rest } = body;
      return inner(new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify({ ...rest, total: 1000 }) }));
    },
  },
];

export const faults: Fault[] = [
  ...inactiveAloneFaults,
  ...timestampFaults,
  ...secretFaults,
  ...problemFaults,
  ...pagingFaults,
  ...securityHeaderFaults,
  ...inactiveFaults,
  ...reuseFaults,
  ...generatedFaults,
  ...slowFaults,
  {
    // The request's `items` is the answer's `orderItems` (x-also-named): what each line was sent is what it keeps.
    name: "an order's lines stored with quantity 1 (orderItems[].quantity, whatever `items` sent)",
    expect: {
      operationId: 'createOrder',
      check: 'ensure_resource_availability',
      message: /POST \/order: `orderItems\[\d+\]\.quantity` reads 1, sent (?!1\b)\d+[\s\S]*GET \/order\/\S+: `orderItems\[\d+\]\.quantity` reads 1/,
    },
    only: ['createProduct', 'createOrder', 'getOrder'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!response.ok || !/^\/order(\/[^/]+)?$/.test(new URL(request.url).pathname)) return response;
      return rewriteJson(response, (order: Json) =>
        Array.isArray(order.orderItems) ? { ...order, orderItems: order.orderItems.map((item: Json) => ({ ...item, quantity: 1 })) } : order,
      );
    },
  },
  {
    // The suite's requests stay far below the quota: only the fields are looked at.
    name: 'RateLimit fields on reads only, none on writes (rate limit on)',
    expect: {
      operationId: 'createProduct',
      check: 'response_headers_conformance',
      message:
        /^answers carry no RateLimit or RateLimit-Policy, though other answers of the run do \(first \w+'s\); every answer of a service that limits requests carries both \(D11\)$/,
    },
    only: ['createProduct', 'getProduct'],
    config: { rateLimitRequests: 1_000_000, rateLimitAnonymousRequests: 1_000_000 },
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (request.method === 'GET') return response;
      const headers = new Headers(response.headers);
      headers.delete('RateLimit');
      headers.delete('RateLimit-Policy');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    },
  },
  {
    name: 'schema-invalid JSON refused with 400, not 422 (POST /product)',
    expect: {
      operationId: 'createProduct',
      check: 'negative_data_rejection',
      message: /^a body that parses but breaks the schema refused with 400, not 422 \(a validation failure is 422, decision D02/,
    },
    only: ['createProduct'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      return is(request, 'POST', /^\/product$/) && response.status === 422 ? new Response(response.body, { status: 400, headers: response.headers }) : response;
    },
  },
  {
    name: 'a required field dropped (phone of listed clients)',
    expect: { operationId: 'listClients', check: 'response_schema_conformance' },
    only: ['listClients', 'createClient'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      return isListClients(request) && response.ok ? rewriteJson(response, (list: Json[]) => list.map(({ phone: _phone, ...client }) => client)) : response;
    },
  },
  {
    name: 'a field of the wrong type (product price as a string)',
    expect: { operationId: 'createProduct', check: 'response_schema_conformance' },
    only: ['createProduct'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      return is(request, 'POST', /^\/product$/) && response.ok ? rewriteJson(response, (p: Json) => ({ ...p, price: String(p.price) })) : response;
    },
  },
  {
    name: 'a new order not CREATED/PENDING (seed §3 rule 1)',
    expect: { operationId: 'createOrder', check: 'response_schema_conformance' },
    only: ['createOrder'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      return is(request, 'POST', /^\/order$/) && response.ok
        ? rewriteJson(response, (o: Json) => ({ ...o, status: 'PROCESSING', paymentStatus: 'PAID' }))
        : response;
    },
  },
  {
    name: 'a deleted webhook still readable (DELETE answers 204 and keeps it)',
    expect: { operationId: 'deleteWebhook', check: 'use_after_free' },
    only: ['deleteWebhook', 'getWebhook'],
    wrap: (inner) => async (request) => (is(request, 'DELETE', /^\/webhook\/[^/]+$/) ? new Response(null, { status: 204 }) : inner(request)),
  },
  {
    name: 'an undefined method answered 405 without Allow (POST /charge/{id})',
    expect: { operationId: 'getCharge', check: 'unsupported_method' },
    only: ['getCharge'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (response.status !== 405) return response;
      const headers = new Headers(response.headers);
      headers.delete('allow');
      return new Response(response.body, { status: response.status, headers });
    },
  },
  {
    name: 'a 5xx on some input (orders with notes)',
    expect: { operationId: 'createOrder', check: 'not_a_server_error' },
    only: ['createOrder'],
    wrap: (inner) => async (request) => {
      if (is(request, 'POST', /^\/order$/)) {
        const text = await request.clone().text();
        if (text.includes('"notes"')) return new Response('{"error":"boom"}', { status: 500, headers: { 'Content-Type': 'application/json' } });
      }
      return inner(request);
    },
  },
  {
    name: 'auth ignored (any request is served as the first company)',
    expect: { operationId: 'listClients', check: 'ignored_auth' },
    only: ['listClients'],
    wrap: (inner, keys) => async (request) => {
      const headers = new Headers(request.headers);
      if (headers.get('x-api-key') !== keys.otherApiKey) headers.set('X-API-KEY', keys.apiKey);
      return inner(new Request(request, { headers }));
    },
  },
  {
    name: 'a wrong status code (POST /client answers 200)',
    expect: { operationId: 'createClient', check: 'status_code_conformance' },
    only: ['createClient'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      return isCreateClient(request) && response.status === 201 ? new Response(response.body, { status: 200, headers: response.headers }) : response;
    },
  },
  {
    name: 'a wrong content type (GET /client as text/plain)',
    expect: { operationId: 'listClients', check: 'content_type_conformance' },
    only: ['listClients'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!isListClients(request) || !response.ok) return response;
      const headers = new Headers(response.headers);
      headers.set('Content-Type', 'text/plain');
      return new Response(response.body, { status: response.status, headers });
    },
  },
  {
    name: 'idempotency ignored (the Idempotency-Key header is dropped)',
    expect: { operationId: 'createPaymentLink', check: 'idempotency_replay' },
    only: ['createPaymentLink'],
    wrap: (inner) => async (request) => {
      const headers = new Headers(request.headers);
      headers.delete('idempotency-key');
      return inner(new Request(request, { headers }));
    },
  },
  {
    name: 'a created client missing from the list',
    expect: { operationId: 'createClient', check: 'ensure_resource_availability' },
    only: ['createClient', 'listClients'],
    wrap: (inner) => {
      const hidden = new Set<string>();
      return async (request) => {
        const response = await inner(request);
        if (isCreateClient(request) && response.status === 201) {
          const created = (await response.clone().json()) as Json;
          hidden.add(String(created.id));
        }
        return isListClients(request) && response.ok ? rewriteJson(response, (list: Json[]) => list.filter((c) => !hidden.has(String(c.id)))) : response;
      };
    },
  },
  {
    name: 'a bad BR Code CRC',
    expect: { operationId: 'getCharge', check: 'brcode_well_formed' },
    only: ['createPaymentLink', 'getCharge'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!isGetCharge(request) || !response.ok) return response;
      return rewriteJson(response, (envelope: { data: Json }) => {
        const code = String(envelope.data.brCode);
        const last = code.at(-1) === '0' ? '1' : '0';
        return { ...envelope, data: { ...envelope.data, brCode: code.slice(0, -1) + last } };
      });
    },
  },
  {
    name: 'a QR code that encodes another text',
    expect: { operationId: 'getCharge', check: 'qr_matches_brcode' },
    only: ['createPaymentLink', 'getCharge'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!isGetCharge(request) || !response.ok) return response;
      const other = await QRCode.toDataURL('https://example.com/not-the-pix-code');
      return rewriteJson(response, (envelope: { data: Json }) => ({ ...envelope, data: { ...envelope.data, brCodeBase64: other } }));
    },
  },
  {
    name: 'total below 500 accepted',
    expect: { operationId: 'createPaymentLink', check: 'negative_data_rejection' },
    only: ['createPaymentLink'],
    wrap: (inner) => async (request) => {
      if (!isCreatePaymentLink(request)) return inner(request);
      // The service raises a too-small total instead of refusing it.
      return inner(
        await withRequest<Json>(request, {
          body: (body) =>
            typeof body.total === 'number' && body.total < 500 && body.total >= 0 && Number.isInteger(body.total) ? { ...body, total: 500 } : body,
        }),
      );
    },
  },
  {
    name: 'a record of another company readable (GET /charge/{id} ignores the company)',
    expect: { operationId: 'getCharge', check: 'tenant_isolation' },
    only: ['createPaymentLink', 'getCharge'],
    wrap: (inner, keys) => async (request) => {
      if (!isGetCharge(request) || request.headers.get('x-api-key') !== keys.otherApiKey) return inner(request);
      const headers = new Headers(request.headers);
      headers.set('X-API-KEY', keys.apiKey);
      return inner(new Request(request, { headers }));
    },
  },
  {
    name: 'the Location header of a created payment link missing',
    expect: { operationId: 'createPaymentLink', check: 'response_headers_conformance' },
    only: ['createPaymentLink'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!isCreatePaymentLink(request)) return response;
      const headers = new Headers(response.headers);
      headers.delete('location');
      return new Response(response.body, { status: response.status, headers });
    },
  },
  {
    name: 'the Location header of a created payment link naming another path (/charges/{id})',
    expect: {
      operationId: 'createPaymentLink',
      check: 'ensure_resource_availability',
      message: /Location "\/charges\/char_\w+" does not name the record just created/,
    },
    only: ['createPaymentLink', 'getCharge'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      const location = response.headers.get('location');
      if (!isCreatePaymentLink(request) || !location) return response;
      const headers = new Headers(response.headers);
      headers.set('location', location.replace('/charge/', '/charges/'));
      return new Response(response.body, { status: response.status, headers });
    },
  },
  {
    name: 'a subscription cancelled without its cancelledAt (the status changes, no time is recorded)',
    expect: { operationId: 'createSubscription', check: 'ensure_resource_availability', message: /answers no `cancelledAt`: setting `status` to CANCELLED/ },
    only: ['createSubscription', 'updateSubscription', 'getSubscription'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!is(request, 'PUT', /^\/subscription$/) && !is(request, 'GET', /^\/subscription\/[^/]+$/)) return response;
      return response.ok ? rewriteJson(response, ({ cancelledAt: _dropped, ...subscription }: Json) => subscription) : response;
    },
  },
  {
    name: 'externalId truncated on the way in (kept as its first 20 characters, as a 20-character column would)',
    expect: {
      operationId: 'createPaymentLink',
      check: 'ensure_resource_availability',
      message: /`externalId` reads "[^"]*", the first 20 of the \d+ characters sent "/,
    },
    only: ['createPaymentLink', 'getCharge'],
    wrap: (inner) => async (request) =>
      isCreatePaymentLink(request)
        ? inner(
            await withRequest<Json>(request, {
              body: (body) => (typeof body.externalId === 'string' ? { ...body, externalId: body.externalId.slice(0, 20) } : body),
            }),
          )
        : inner(request),
  },
  {
    name: 'successUrl and failedUrl stored the wrong way round',
    expect: {
      operationId: 'createPaymentLink',
      check: 'ensure_resource_availability',
      message: /`successUrl` reads "[^"]+" \(the value sent as `failedUrl`\), sent "/,
    },
    only: ['createPaymentLink', 'getCharge'],
    wrap: (inner) => async (request) =>
      isCreatePaymentLink(request)
        ? inner(await withRequest<Json>(request, { body: ({ successUrl, failedUrl, ...body }) => ({ ...body, successUrl: failedUrl, failedUrl: successUrl }) }))
        : inner(request),
  },
  {
    name: 'GET /client lists a record of a third company',
    expect: { operationId: 'listClients', check: 'tenant_isolation', message: /lists client clnt_\w+ of company comp_\w+/ },
    only: ['listClients', 'createClient'],
    wrap: (inner) => {
      // A client of a company that is neither the run's key nor its second key, as a list whose
      // query lost its company filter would show it: valid in every other respect.
      const stranger = {
        id: `clnt_${createId()}`,
        taxId: '11444777000161',
        name: 'Cliente de outra empresa',
        email: 'financeiro@outra.example.com',
        phone: '1133334444',
        status: 'ACTIVE',
        companyId: `comp_${createId()}`,
        createdAt: '2026-01-05T12:00:00.000Z',
        updatedAt: '2026-01-05T12:00:00.000Z',
      };
      return async (request) => {
        const response = await inner(request);
        return isListClients(request) && response.ok ? rewriteJson(response, (list: Json[]) => [stranger, ...list]) : response;
      };
    },
  },
  {
    name: 'total in reais instead of cents',
    expect: { operationId: 'createPaymentLink', check: 'total_in_cents' },
    only: ['createPaymentLink', 'getCharge'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      if (!isCreatePaymentLink(request) || !response.ok) return response;
      return rewriteJson(response, (envelope: { data: Json }) => ({ ...envelope, data: { ...envelope.data, total: Number(envelope.data.total) / 100 } }));
    },
  },
];

/** One delivery as the worker sends it: the URL, the headers and the body (a string). */
interface Outgoing {
  url: string;
  init: RequestInit;
  headers: Record<string, string>;
  body: string;
}

const outgoing = (input: Parameters<typeof fetch>[0], init: RequestInit = {}): Outgoing => ({
  url: String(input),
  init,
  headers: { ...(init.headers as Record<string, string>) },
  body: String(init.body),
});
const eventType = (body: string): unknown => (JSON.parse(body) as Json).type;
/** Sends a changed delivery, signed again with the registration's secret when `secret` is given. */
function resend(send: typeof fetch, out: Outgoing, secret: string | undefined): Promise<Response> {
  const headers = { ...out.headers };
  if (secret) headers['webhook-signature'] = new Webhook(secret).sign(headers['webhook-id']!, new Date(Number(headers['webhook-timestamp']) * 1000), out.body);
  return send(out.url, { ...out.init, headers, body: out.body });
}
const webhookRun = ['createWebhook', 'createPaymentLink', 'simulatePayment', 'deleteWebhook'];
const passThrough = (inner: FetchLike): FetchLike => inner;

/** Deliveries broken in the ways an integrator cannot detect without checking: each must fail its webhook check. */
export const deliveryFaults: Fault[] = [
  {
    name: 'deliveries signed with another secret',
    expect: { operationId: 'createWebhook', check: 'webhook_signature' },
    only: webhookRun,
    wrap: passThrough,
    deliveries: (send) => async (input, init) => {
      const out = outgoing(input, init);
      return resend(send, out, `whsec_${Buffer.from('not the secret of this registration').toString('base64')}`);
    },
  },
  {
    name: 'a retry under a new webhook-id',
    expect: { operationId: 'createWebhook', check: 'webhook_delivery' },
    only: webhookRun,
    wrap: passThrough,
    deliveries: (send, secrets) => {
      const seen = new Set<string>();
      return async (input, init) => {
        const out = outgoing(input, init);
        const id = out.headers['webhook-id']!;
        if (seen.has(id)) out.headers['webhook-id'] = `${id}_again`;
        seen.add(id);
        return resend(send, out, secrets.get(out.url));
      };
    },
  },
  {
    name: 'an event never sent (charge.paid reported delivered)',
    expect: { operationId: 'createWebhook', check: 'webhook_delivery' },
    only: webhookRun,
    wrap: passThrough,
    deliveries: (send) => async (input, init) =>
      eventType(outgoing(input, init).body) === 'charge.paid' ? new Response(null, { status: 204 }) : send(input, init),
  },
  {
    name: 'events out of order (charge.processing sent after charge.paid)',
    expect: { operationId: 'createWebhook', check: 'webhook_delivery' },
    only: webhookRun,
    wrap: passThrough,
    deliveries: (send) => {
      let held: Outgoing | undefined;
      return async (input, init) => {
        const out = outgoing(input, init);
        const type = eventType(out.body);
        if (type === 'charge.processing') {
          held = out;
          return new Response(null, { status: 204 });
        }
        const response = await send(input, init);
        if (type === 'charge.paid' && held) {
          await (await resend(send, held, undefined)).body?.cancel();
          held = undefined;
        }
        return response;
      };
    },
  },
  {
    name: 'a payload off the contract (the charge total as a string)',
    expect: { operationId: 'createWebhook', check: 'webhook_schema' },
    only: webhookRun,
    wrap: passThrough,
    deliveries: (send, secrets) => async (input, init) => {
      const out = outgoing(input, init);
      const event = JSON.parse(out.body) as { data: Json };
      out.body = JSON.stringify({ ...event, data: { ...event.data, total: String(event.data.total) } });
      return resend(send, out, secrets.get(out.url));
    },
  },
];

/** A TLV data object as text: tag, two-digit length, value. */
const tlv = (tag: string, value: string): string => `${tag}${String(value.length).padStart(2, '0')}${value}`;

/**
 * The BR Code of a dynamic Pix charge, as the BCB manual's example has it: the merchant
 * account holds the URL of the charge's payload (sub-tag 25) and there is no amount (field
 * 54, which the payload carries instead).
 */
function dynamicBrCode(brCode: string): string {
  const account = tlv('00', 'br.gov.bcb.pix') + tlv('25', 'pix.example.com/qr/v2/cobv-0001');
  const body = parseTlv(brCode)
    .filter((t) => t.tag !== '54' && t.tag !== '63')
    .map((t) => (t.tag === '26' ? tlv('26', account) : tlv(t.tag, t.value)))
    .join('');
  return `${body}6304${crc16CcittFalse(`${body}6304`)}`;
}

/**
 * A deployment that does everything the seed documents but departs from the contract's
 * decisions the way an upstream service built from the seed alone plausibly would: the payment
 * link answers 200 without a Location header (D01); client errors are a plain
 * `{"error": …}` with 400 (D02); idempotent replays carry no marker (D10); unknown request
 * fields are ignored (D22); the BR Code is a dynamic one without an amount (D28). The seed
 * profile must fail nothing on it (never cry wolf); the reference profile must fail it.
 */
export const decisionDepartures = {
  decisions: ['D01', 'D02', 'D10', 'D22', 'D28'],
  wrap:
    (inner: FetchLike): FetchLike =>
    async (original) => {
      let request = original;
      if (request.method !== 'GET') request = await withRequest<Json>(request, { body: ({ [unknownProperty]: _ignored, ...body }) => body });
      const response = await inner(request);
      const path = new URL(request.url).pathname;
      const headers = new Headers(response.headers);
      headers.delete('idempotent-replayed');
      headers.delete('location');
      if (response.status >= 400 && response.status < 500) {
        headers.set('Content-Type', 'application/json');
        // 429 stays: a service that rate-limits says so in the standard way, whatever its error bodies.
        const status = response.status === 401 || response.status === 404 || response.status === 429 ? response.status : 400;
        return new Response(JSON.stringify({ error: response.statusText || 'refused' }), { status, headers });
      }
      const status = request.method === 'POST' && path === '/charge/payment-link' && response.status === 201 ? 200 : response.status;
      if (!isGetCharge(request) || !response.ok) return new Response(response.body, { status, headers });
      const envelope = (await response.json()) as { data: Json };
      const brCode = dynamicBrCode(String(envelope.data.brCode));
      const data = { ...envelope.data, brCode, brCodeBase64: await QRCode.toDataURL(brCode) };
      return new Response(JSON.stringify({ ...envelope, data }), { status, headers });
    },
};

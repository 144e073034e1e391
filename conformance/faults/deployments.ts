import QRCode from 'qrcode';
import type { CheckName } from '../engine/types.js';

/**
 * Deliberately broken deployments: each wraps the reference server's `fetch` and breaks
 * one thing a payment API must get right. The fault-injection test runs the suite against
 * each and expects exactly the named check to fail, which proves the suite catches it.
 */
export interface Fault {
  name: string;
  /** The check that must fail, and the operation it must fail on. */
  expect: { operationId: string; check: CheckName };
  /** Operations the run covers (`--only`), to keep each run short. */
  only: string[];
  wrap: (inner: FetchLike, keys: { apiKey: string; otherApiKey: string }) => FetchLike;
}

export type FetchLike = (request: Request) => Promise<Response>;

type Json = Record<string, unknown>;

/** A copy of the response with a new JSON body (and optionally other headers or status). */
async function rewriteJson(response: Response, change: (body: any) => unknown, init: { status?: number; headers?: Record<string, string> } = {}): Promise<Response> {
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: response.status, headers: response.headers });
  }
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(init.headers ?? {})) headers.set(name, value);
  return new Response(JSON.stringify(change(body) ?? body), { status: init.status ?? response.status, headers });
}

function is(request: Request, method: string, pattern: RegExp): boolean {
  return request.method === method && pattern.test(new URL(request.url).pathname);
}

const isListClients = (r: Request) => is(r, 'GET', /^\/client$/);
const isCreateClient = (r: Request) => is(r, 'POST', /^\/client$/);
const isGetCharge = (r: Request) => is(r, 'GET', /^\/charge\/[^/]+$/);
const isCreatePaymentLink = (r: Request) => is(r, 'POST', /^\/charge\/payment-link$/);

async function withBody(request: Request, change: (body: Json) => Json): Promise<Request> {
  const text = await request.text();
  let body: Json;
  try {
    body = JSON.parse(text) as Json;
  } catch {
    return new Request(request.url, { method: request.method, headers: request.headers, body: text });
  }
  return new Request(request.url, { method: request.method, headers: request.headers, body: JSON.stringify(change(body)) });
}

export const faults: Fault[] = [
  {
    name: 'a required field dropped (phone of listed clients)',
    expect: { operationId: 'listClients', check: 'response_schema_conformance' },
    only: ['listClients', 'createClient'],
    wrap: (inner) => async (request) => {
      const response = await inner(request);
      return isListClients(request) ? rewriteJson(response, (list: Json[]) => list.map(({ phone: _phone, ...client }) => client)) : response;
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
        return isListClients(request) ? rewriteJson(response, (list: Json[]) => list.filter((c) => !hidden.has(String(c.id)))) : response;
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
      return inner(await withBody(request, (body) => (typeof body.total === 'number' && body.total < 500 && body.total >= 0 && Number.isInteger(body.total) ? { ...body, total: 500 } : body)));
    },
  },
  {
    name: "a record of another company readable (GET /charge/{id} ignores the company)",
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

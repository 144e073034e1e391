/**
 * Shared fixtures of the charge, idempotency and webhook tests: a controllable clock,
 * valid request bodies, and raw helpers that keep the exact bytes and headers of an answer.
 */
import { expect } from 'vitest';
import type { components } from '../../generated/openapi.js';
import type { TestServer } from './harness.js';

type Schemas = components['schemas'];
export type PaymentLinkCreate = Schemas['PaymentLinkCreate'];
export type PaymentLinkResponse = Schemas['PaymentLinkResponse'];
export type ProductCreate = Schemas['ProductCreate'];
export type Product = Schemas['Product'];
export type Problem = Schemas['Problem'];
export type Customer = Schemas['PaymentLinkCustomer'];

/** A clock the tests move by hand; pass `clock.now` as the harness option `now`. */
export interface FakeClock {
  now: () => Date;
  advance: (ms: number) => void;
}

export function fakeClock(startIso = '2026-11-21T14:30:00.000Z'): FakeClock {
  let t = Date.parse(startIso);
  return {
    now: () => new Date(t),
    advance: (ms) => {
      t += ms;
    },
  };
}

/** Valid customers (CPF and CNPJ with correct check digits). */
export const customers = {
  maria: {
    name: 'Maria Silva Souza',
    taxId: '52998224725',
    email: 'maria.souza@example.com',
    phone: '11987654321',
    postalCode: '01310100',
    address: 'Avenida Paulista',
    district: 'Bela Vista',
    number: '1578',
    line1: 'Apto 42',
  },
  joao: { name: 'João Pereira', taxId: '11144477735', email: 'joao@example.com', phone: '2134567890' },
  padaria: { name: 'Padaria Bom Dia Ltda', taxId: '11222333000181', email: 'compras@padaria.example.com', phone: '2134567890' },
} satisfies Record<string, Customer>;

export function productBody(over: Partial<ProductCreate> = {}): ProductCreate {
  return {
    name: 'Café especial torrado 1 kg',
    description: 'Grãos arábica do Sul de Minas, torra média.',
    price: 64.95,
    sku: 'CAF-ESP-1KG',
    displayId: '1001',
    ...over,
  };
}

/** Creates a product through `POST /product` with the given API client and returns it. */
export async function createProduct(api: TestServer['api'], over: Partial<ProductCreate> = {}): Promise<Product> {
  const { data, response } = await api.POST('/product', { body: productBody(over) });
  expect(response.status).toBe(201);
  if (!data) throw new Error('POST /product returned no body');
  return data;
}

export interface RawAnswer {
  status: number;
  headers: Headers;
  /** The body exactly as sent. */
  text: string;
  /** The body parsed as JSON (undefined when empty). */
  json: unknown;
}

export interface PostOptions {
  /** The Idempotency-Key header, sent as given. */
  key?: string;
  /** API key; `null` sends none; default company A's. */
  apiKey?: string | null;
  /** A ready-made body text (to control field order and spacing); default `JSON.stringify(body)`. */
  text?: string;
}

/** `POST /charge/payment-link` through the harness's raw `request()`, keeping the exact body text. */
export async function postPaymentLink(server: TestServer, body: unknown, options: PostOptions = {}): Promise<RawAnswer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (options.key !== undefined) headers['Idempotency-Key'] = options.key;
  const response = await server.request('/charge/payment-link', {
    method: 'POST',
    headers,
    body: options.text ?? JSON.stringify(body),
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
  });
  return read(response);
}

export async function read(response: Response): Promise<RawAnswer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: text === '' ? undefined : JSON.parse(text) };
}

/** The payment link of a 201 answer; fails the test otherwise. */
export function created(answer: RawAnswer): PaymentLinkResponse {
  expect(answer.status, answer.text).toBe(201);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  return answer.json as PaymentLinkResponse;
}

/** The problem of an error answer with the given status; fails the test otherwise. */
export function problem(answer: RawAnswer, status: number): Problem {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toBe('application/problem+json');
  return answer.json as Problem;
}

/** Where a problem's field errors point (pointer, or header/parameter name). */
export function errorPlaces(p: Problem): string[] {
  return (p.errors ?? []).map((e) => e.pointer ?? e.header ?? e.parameter ?? '?');
}

/** A well-formed id of the given prefix that no record has. */
export function unknownId(prefix: string): string {
  return `${prefix}_zzzzzzzzzzzzzzzzzzzzzzzz`;
}

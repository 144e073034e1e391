/**
 * Shared fixtures of the server tests: a fake clock, valid request bodies, a raw JSON request
 * that keeps the exact bytes and headers of the answer, and the assertions on problems. Bodies
 * are valid by default; a test changes only what it is about (`clientBody({ phone: '123' })`).
 */
import { expect } from 'vitest';
import type { components } from '../../generated/openapi.js';
import type { TestServer } from './harness.js';

type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
export type Product = Schemas['Product'];
export type PaymentLinkCreate = Schemas['PaymentLinkCreate'];

/** A clock the tests set and move by hand; pass `now: clock.now` to the harness. */
export interface FakeClock {
  now: () => Date;
  set: (iso: string) => void;
  advance: (ms: number) => void;
  iso: () => string;
}

export function fakeClock(start = '2026-11-21T14:30:00.000Z'): FakeClock {
  let current = Date.parse(start);
  return {
    now: () => new Date(current),
    set: (iso) => {
      current = Date.parse(iso);
    },
    advance: (ms) => {
      current += ms;
    },
    iso: () => new Date(current).toISOString(),
  };
}

/** Valid tax numbers (check digits computed with the Receita Federal algorithm). */
export const taxIds = {
  cpf: '52998224725',
  cpf2: '11144477735',
  cnpj: '11444777000161',
  cnpj2: '45723174000110',
  cnpj3: '11222333000181',
} as const;

/** Valid payment-link customers, with the tax numbers above. */
export const customers = {
  maria: {
    name: 'Maria Silva Souza',
    taxId: taxIds.cpf,
    email: 'maria.souza@example.com',
    phone: '11987654321',
    postalCode: '01310100',
    address: 'Avenida Paulista',
    district: 'Bela Vista',
    number: '1578',
    line1: 'Apto 42',
  },
  joao: { name: 'João Pereira', taxId: taxIds.cpf2, email: 'joao@example.com', phone: '2134567890' },
  padaria: { name: 'Padaria Bom Dia Ltda', taxId: taxIds.cnpj3, email: 'compras@padaria.example.com', phone: '2134567890' },
} satisfies Record<string, Schemas['PaymentLinkCustomer']>;

/** Maria as a client. */
export function clientBody(overrides: Partial<Schemas['ClientCreate']> = {}): Schemas['ClientCreate'] {
  const { name, taxId, email, phone } = customers.maria;
  return { name, status: 'ACTIVE', cpfCnpj: taxId, email, phone, ...overrides };
}

export function productBody(overrides: Partial<Schemas['ProductCreate']> = {}): Schemas['ProductCreate'] {
  return {
    name: 'Café especial torrado 1 kg',
    description: 'Grãos arábica do Sul de Minas, torra média.',
    price: 64.95,
    sku: 'CAF-ESP-1KG',
    displayId: '1001',
    ...overrides,
  };
}

export function subscriptionBody(productId: string, overrides: Partial<Schemas['SubscriptionCreate']> = {}): Schemas['SubscriptionCreate'] {
  return { productId, period: 'MONTHLY', price: 49.9, trialDays: 0, ...overrides };
}

/** Creates a product through `POST /product` with the given API client and returns it; fails unless 201. */
export async function createProduct(api: TestServer['api'], overrides: Partial<Schemas['ProductCreate']> = {}): Promise<Product> {
  const { data, response } = await api.POST('/product', { body: productBody(overrides) });
  expect(response.status).toBe(201);
  if (!data) throw new Error('POST /product returned no body');
  return data;
}

/** An answer read once, its body kept as sent. */
export interface RawAnswer {
  status: number;
  headers: Headers;
  /** The body exactly as sent. */
  text: string;
  /** The body parsed as JSON (undefined when empty). */
  json: unknown;
  /** The response itself, its body still unread. */
  response: Response;
}

export async function read(response: Response): Promise<RawAnswer> {
  const text = await response.clone().text();
  return { status: response.status, headers: response.headers, text, json: text === '' ? undefined : (JSON.parse(text) as unknown), response };
}

export interface JsonRequestOptions {
  /** API key; `null` sends none; default company A's. */
  apiKey?: string | null;
  /** Headers besides `Content-Type: application/json`. */
  headers?: Record<string, string>;
  /** A ready-made body text (to control field order and spacing); default `JSON.stringify(body)`. */
  text?: string;
}

/** A JSON request through the harness's raw `request()` (for bodies and headers the typed client cannot express). */
export async function sendJson(server: TestServer, method: string, path: string, body: unknown, options: JsonRequestOptions = {}): Promise<RawAnswer> {
  const response = await server.request(path, {
    method,
    body: options.text ?? JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...options.headers },
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
  });
  return read(response);
}

export interface PostOptions extends Omit<JsonRequestOptions, 'headers'> {
  /** The Idempotency-Key header, sent as given. */
  key?: string;
}

/** `POST /charge/payment-link`, keeping the exact body text of the answer. */
export async function postPaymentLink(server: TestServer, body: unknown, { key, ...options }: PostOptions = {}): Promise<RawAnswer> {
  return sendJson(server, 'POST', '/charge/payment-link', body, { ...options, ...(key !== undefined ? { headers: { 'Idempotency-Key': key } } : {}) });
}

/** The payment link of a 201 answer; fails the test otherwise. */
export function created(answer: RawAnswer): Schemas['PaymentLinkResponse'] {
  expect(answer.status, answer.text).toBe(201);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  return answer.json as Schemas['PaymentLinkResponse'];
}

/** Text that would betray a stack trace or the server's files. */
const leaks: Array<[string, RegExp]> = [
  ['a stack frame', /\bat\s+(?:async\s+)?[\w$.<>[\]]+\s+\(/],
  ['a stack frame line', /(?:^|\\n|\n)\s*at\s/],
  ['a file path', /(?:\/|\\)[\w.-]+\.(?:ts|js|mjs|cjs)\b/],
  ['a file URL', /file:\/\//],
  ['node internals', /node:internal|node_modules/],
];

/** The text has nothing of a stack trace or file path. */
export function expectNoLeaks(text: string): void {
  for (const [what, pattern] of leaks) expect(pattern.test(text), `response contains ${what}: ${text}`).toBe(false);
}

/** The problem of an error answer with the given status (and the problem media type); fails the test otherwise. */
export function problem(answer: RawAnswer, status: number): Problem {
  expect(answer.status, answer.text).toBe(status);
  expect(answer.headers.get('content-type')).toBe('application/problem+json');
  return answer.json as Problem;
}

/**
 * The response is an RFC 9457 problem of the given status and type (D02): the media type,
 * the five members, `status` equal to the HTTP status, `instance` the request path, and no
 * stack trace or file path anywhere in it. Returns the parsed problem.
 */
export async function expectProblem(response: Response, status: number, type: string, instance?: string): Promise<Problem> {
  const answer = await read(response);
  const p = problem(answer, status);
  expect(p).toMatchObject({ type, status, title: expect.any(String), detail: expect.any(String), instance: expect.any(String) });
  expect(p.title.length).toBeGreaterThan(0);
  expect(p.detail.length).toBeGreaterThan(0);
  if (instance !== undefined) expect(p.instance).toBe(instance);
  expectNoLeaks(answer.text);
  return p;
}

/** Where each field error of a problem points (body pointer, or parameter or header name), in the problem's order. */
export function errorPlaces(p: Problem): string[] {
  return (p.errors ?? []).map((e) => e.pointer ?? e.parameter ?? e.header ?? '?');
}

/** The places named by a validation problem, each once, sorted. */
export function pointers(p: unknown): string[] {
  return [...new Set(errorPlaces((p ?? {}) as Problem))].sort();
}

/** A 422 validation problem naming exactly `fields` (body pointers). */
export async function expectValidation(response: Response, fields: readonly string[], instance?: string): Promise<Problem> {
  const p = await expectProblem(response, 422, '/problems/validation-error', instance);
  expect(pointers(p)).toEqual([...fields].sort());
  for (const error of p.errors ?? []) expect(error.detail.length).toBeGreaterThan(0);
  return p;
}

export const idPatterns = {
  client: /^clnt_[a-z][0-9a-z]{1,31}$/,
  company: /^comp_[a-z][0-9a-z]{1,31}$/,
  product: /^prod_[a-z][0-9a-z]{1,31}$/,
  subscription: /^subs_[a-z][0-9a-z]{1,31}$/,
  order: /^ordr_[a-z][0-9a-z]{1,31}$/,
  orderItem: /^oitm_[a-z][0-9a-z]{1,31}$/,
  sales: /^sale_[a-z][0-9a-z]{1,31}$/,
  checkoutPreferences: /^ckpf_[a-z][0-9a-z]{1,31}$/,
} as const;

/** A well-formed identifier of the given prefix that no record has. */
export function unknownId(prefix: string): string {
  return `${prefix}_zz${'0'.repeat(22)}`;
}

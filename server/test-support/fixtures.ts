/**
 * Shared request bodies and helpers of the route tests. Bodies are valid by default; a test
 * changes only what it is about (`clientBody({ phone: '123' })`).
 */
import { expect } from 'vitest';
import type { components } from '../../generated/openapi.js';
import type { TestServer } from './harness.js';

type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];
export type ProblemFieldError = Schemas['ProblemFieldError'];

/** Valid tax numbers (check digits computed with the Receita Federal algorithm). */
export const taxIds = {
  cpf: '52998224725',
  cpf2: '11144477735',
  cnpj: '11444777000161',
  cnpj2: '45723174000110',
} as const;

export function clientBody(overrides: Partial<Schemas['ClientCreate']> = {}): Schemas['ClientCreate'] {
  return { name: 'Maria Silva Souza', status: 'ACTIVE', cpfCnpj: taxIds.cpf, email: 'maria.souza@example.com', phone: '11987654321', ...overrides };
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

/** A JSON request through the raw helper (for bodies the typed client cannot express). */
export async function sendJson(
  server: TestServer,
  method: string,
  path: string,
  body: unknown,
  init: { apiKey?: string | null; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: unknown; response: Response }> {
  const response = await server.request(path, {
    method,
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...init.headers },
    ...(init.apiKey !== undefined ? { apiKey: init.apiKey } : {}),
  });
  const text = await response.clone().text();
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as unknown), response };
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

/**
 * The response is an RFC 9457 problem of the given status and type (D02): the media type,
 * the five members, `status` equal to the HTTP status, `instance` the request path, and no
 * stack trace or file path anywhere in it. Returns the parsed problem.
 */
export async function expectProblem(response: Response, status: number, type: string, instance?: string): Promise<Problem> {
  const text = await response.clone().text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type')).toBe('application/problem+json');
  const problem = JSON.parse(text) as Problem;
  expect(problem).toMatchObject({ type, status, title: expect.any(String), detail: expect.any(String), instance: expect.any(String) });
  expect(problem.title.length).toBeGreaterThan(0);
  expect(problem.detail.length).toBeGreaterThan(0);
  if (instance !== undefined) expect(problem.instance).toBe(instance);
  expectNoLeaks(text);
  return problem;
}

/** The body pointers named by a validation problem, sorted. */
export function pointers(problem: unknown): string[] {
  const errors = ((problem as Problem | undefined)?.errors ?? []) as ProblemFieldError[];
  return [...new Set(errors.map((e) => e.pointer ?? e.parameter ?? e.header ?? '?'))].sort();
}

/** A 422 validation problem naming exactly `fields` (body pointers). */
export async function expectValidation(response: Response, fields: readonly string[], instance?: string): Promise<Problem> {
  const problem = await expectProblem(response, 422, '/problems/validation-error', instance);
  expect(pointers(problem)).toEqual([...fields].sort());
  for (const error of problem.errors ?? []) expect(error.detail.length).toBeGreaterThan(0);
  return problem;
}

/** A clock tests can set and move; pass `now: clock.now` to the harness. */
export function settableClock(start: string) {
  let current = new Date(start);
  return {
    now: () => new Date(current.getTime()),
    set(iso: string) {
      current = new Date(iso);
    },
    advance(ms: number) {
      current = new Date(current.getTime() + ms);
    },
    iso: () => current.toISOString(),
  };
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

/** A well-formed identifier that no record has. */
export function unknownId(prefix: string): string {
  return `${prefix}_zz${'0'.repeat(22)}`;
}

/**
 * The security headers (D50): every HTML page (the docs, the payment pages) with its
 * Content-Security-Policy, `frame-ancestors 'none'`, `X-Frame-Options: DENY`, `nosniff` and no
 * referrer; every other answer (operations, problems, 404 and 405, the contract files) with
 * `nosniff`. What a browser makes of the policies is checked in test/docs and test/pay.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildDocs, docsDir } from '../../scripts/docs/build.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { inlineHashes } from './security-headers.js';

let server: TestServer;
let chargeId = '';
beforeAll(async () => {
  if (!existsSync(join(docsDir, 'index.html')) || !existsSync(join(docsDir, 'decisions.html'))) buildDocs();
  server = await createTestServer();
  const { data } = await server.api.POST('/charge/payment-link', { body: { total: 1990, devMode: true } });
  chargeId = data!.data.id;
}, 120_000);
afterAll(async () => server.close());

const html = { Accept: 'text/html' };
const pages: Array<[string, { path: () => string; headers?: Record<string, string>; status: number }]> = [
  ['the docs', { path: () => '/docs/', status: 200 }],
  ['the docs, gzipped', { path: () => '/docs/', headers: { 'Accept-Encoding': 'gzip' }, status: 200 }],
  ['the decisions page', { path: () => '/docs/decisions.html', status: 200 }],
  ['a payment page', { path: () => `/pay/${chargeId}`, headers: html, status: 200 }],
  ["a payment page's 404 page", { path: () => '/pay/char_doesnotexist0000000000', headers: html, status: 404 }],
];

describe('every HTML page', () => {
  test.each(pages)('%s: CSP with frame-ancestors none, X-Frame-Options DENY, nosniff, no referrer', async (_name, given) => {
    const response = await server.request(given.path(), { apiKey: null, headers: given.headers ?? {} });
    expect(response.status).toBe(given.status);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy') ?? '';
    const directives = csp.split(';').map((d) => d.trim());
    expect(directives).toContain("default-src 'none'");
    expect(directives).toContain("frame-ancestors 'none'");
    expect(directives).toContain("base-uri 'none'");
    // No script is allowed but by hash or nonce: never inline at large, never eval.
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
  });
});

describe("the docs pages' policies", () => {
  const policy = async (path: string) => (await server.request(path, { apiKey: null })).headers.get('content-security-policy') ?? '';
  const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

  test("Redoc's page runs its two inline scripts by their hashes, nothing else", async () => {
    const page = readFileSync(join(docsDir, 'index.html'), 'utf8');
    const hashes = inlineHashes(page, 'script');
    expect(hashes).toHaveLength(2);
    expect(await policy('/docs/')).toBe(
      `default-src 'none'; script-src ${hashes.join(' ')}; style-src 'unsafe-inline'; img-src data:; font-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`,
    );
  });

  test('the decisions page runs no script and has its one style by its hash', async () => {
    const page = readFileSync(join(docsDir, 'decisions.html'), 'utf8');
    const style = /<style>([\s\S]*?)<\/style>/.exec(page)?.[1];
    expect(style).toBeDefined();
    expect(await policy('/docs/decisions.html')).toBe(
      `default-src 'none'; style-src ${sha256(style!)}; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'none'`,
    );
  });
});

describe('inlineHashes', () => {
  test.for([
    ['a script and a style', { given: '<script>a()</script><style>p{}</style>', tag: 'script', want: ['a()'] }],
    ['a script with src is not inline', { given: '<script src="x.js"></script><script>b()</script>', tag: 'script', want: ['b()'] }],
    [
      'the tag inside a script is its text',
      { given: '<script>x="<script>"; y=1</script><script>z()</script>', tag: 'script', want: ['x="<script>"; y=1', 'z()'] },
    ],
    ['attributes and upper case', { given: '<SCRIPT type="module">m()</SCRIPT>', tag: 'script', want: ['m()'] }],
    ['a <scripts> element is not a script', { given: '<scripts>no</scripts>', tag: 'script', want: [] }],
    ['after text whose lower case is longer (İ)', { given: 'İstanbul<p>İ</p><script>c()</script>', tag: 'script', want: ['c()'] }],
    ['styles', { given: '<style>a{}</style><p><style media="print">b{}</style>', tag: 'style', want: ['a{}', 'b{}'] }],
  ] as const)('%s', ([, { given, tag, want }]) => {
    expect(inlineHashes(given, tag)).toEqual(want.map(sha256));
  });
  const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
});

describe('every other answer says nosniff', () => {
  const cases: Array<[string, { path: () => string; init?: RequestInit & { apiKey?: string | null }; status: number }]> = [
    ['an operation (200)', { path: () => '/client', status: 200 }],
    [
      'an operation (201)',
      { path: () => '/charge/payment-link', init: { method: 'POST', body: '{"total":1990}', headers: { 'Content-Type': 'application/json' } }, status: 201 },
    ],
    ['a problem (401)', { path: () => '/client', init: { apiKey: null }, status: 401 }],
    [
      'a problem (422)',
      { path: () => '/charge/payment-link', init: { method: 'POST', body: '{"total":-1}', headers: { 'Content-Type': 'application/json' } }, status: 422 },
    ],
    ['a problem (404, no such path)', { path: () => '/nowhere', status: 404 }],
    ['a problem (405)', { path: () => '/client', init: { method: 'DELETE' }, status: 405 }],
    ['a problem (431)', { path: () => '/client', init: { headers: { 'X-Padding': 'h'.repeat(20_000) } }, status: 431 }],
    ['the contract (JSON)', { path: () => '/openapi.json', init: { apiKey: null }, status: 200 }],
    ['the contract (YAML)', { path: () => '/openapi.yaml', init: { apiKey: null }, status: 200 }],
    ["a payment page's status", { path: () => `/pay/${chargeId}/status`, init: { apiKey: null }, status: 200 }],
    ['the redirect to the docs', { path: () => '/', init: { apiKey: null }, status: 302 }],
  ];
  test.each(cases)('%s', async (_name, given) => {
    const response = await server.request(given.path(), given.init ?? {});
    expect(response.status).toBe(given.status);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
  test('an idempotent replay too', async () => {
    const send = () =>
      server.request('/charge/payment-link', {
        method: 'POST',
        body: '{"total":1990}',
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'security-headers-replay-1' },
      });
    expect((await send()).status).toBe(201);
    const replay = await send();
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('x-content-type-options')).toBe('nosniff');
  });
  test("the operations' answers stay as the contract says (the pages and files are outside it)", () => {
    expect(server.violations.filter((violation) => !violation.includes('not an operation'))).toEqual([]);
  });
});

/**
 * CORS on the contract files only (D37): `/openapi.json` and `/openapi.yaml` (also beside the docs page, under `/docs/`) may be read from
 * any origin, with no credentials; the API, the docs page and the payment pages send no CORS
 * header at all, and an OPTIONS on an API path keeps its 405 with `Allow` (D37).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { expectProblem } from '../test-support/fixtures.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';

/** A docs tool's page, somewhere else. */
const ORIGIN = 'https://editor.swagger.io';

let server: TestServer;
let chargeId = '';

beforeAll(async () => {
  server = await createTestServer();
  const { data } = await server.api.POST('/charge/payment-link', { body: { total: 2500, devMode: true } });
  chargeId = data!.data.id;
});

afterAll(async () => {
  expect(server.violations).toEqual([]);
  await server.close();
});

/** The CORS headers of an answer, by lower-case name. */
function corsHeaders(response: Response): Record<string, string> {
  return Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')));
}

const preflight = (method: string, extra: Record<string, string> = {}) => ({
  method: 'OPTIONS',
  headers: { Origin: ORIGIN, 'Access-Control-Request-Method': method, ...extra },
});

describe('the contract files, from any origin', () => {
  const cases = ['/openapi.json', '/openapi.yaml', '/docs/openapi.json', '/docs/openapi.yaml'].flatMap((path) => [
    [`GET ${path}`, { path, init: { headers: { Origin: ORIGIN } }, want: { status: 200, body: true } }] as const,
    [`HEAD ${path}`, { path, init: { method: 'HEAD', headers: { Origin: ORIGIN } }, want: { status: 200, body: false } }] as const,
    [`GET ${path} without an Origin (not a browser)`, { path, init: {}, want: { status: 200, body: true } }] as const,
  ]);
  test.each(cases)('%s: Access-Control-Allow-Origin *, no credentials', async (_name, { path, init, want }) => {
    const response = await server.app.request(path, init);
    expect(response.status).toBe(want.status);
    expect(corsHeaders(response)).toEqual({ 'access-control-allow-origin': '*' });
    const text = await response.text();
    if (want.body) expect(text).toMatch(/openapi/);
    else expect(text).toBe('');
  });

  const preflights = ['/openapi.json', '/openapi.yaml', '/docs/openapi.json', '/docs/openapi.yaml'].flatMap((path) => [
    [`${path}, GET`, { path, init: preflight('GET'), want: {} }] as const,
    [
      `${path}, GET with a header a tool adds`,
      {
        path,
        init: preflight('GET', { 'Access-Control-Request-Headers': 'accept, x-requested-with' }),
        want: { 'access-control-allow-headers': 'accept,x-requested-with' },
      },
    ] as const,
  ]);
  test.each(preflights)('a preflight of %s: 204 allowing GET and HEAD, no credentials', async (_name, { path, init, want }) => {
    const response = await server.app.request(path, init);
    expect(response.status).toBe(204);
    expect(corsHeaders(response)).toEqual({
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET,HEAD',
      'access-control-max-age': '86400',
      ...want,
    });
    expect(response.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(await response.text()).toBe('');
  });

  test('a write to a contract file is still no resource: 404, and no CORS header', async () => {
    const response = await server.app.request('/openapi.json', { method: 'POST', headers: { Origin: ORIGIN } });
    expect(response.status).toBe(404);
    expect(corsHeaders(response)).toEqual({});
  });
});

describe('nothing else is opened', () => {
  const key = () => ({ 'X-API-KEY': server.apiKey });
  const cases: Array<[string, { path: () => string; init: () => RequestInit; want: { status: number; allow?: string } }]> = [
    ['GET /charge/{id} (an API read)', { path: () => `/charge/${chargeId}`, init: () => ({ headers: { Origin: ORIGIN, ...key() } }), want: { status: 200 } }],
    [
      'POST /charge/payment-link (an API write)',
      {
        path: () => '/charge/payment-link',
        init: () => ({ method: 'POST', headers: { Origin: ORIGIN, 'Content-Type': 'application/json', ...key() }, body: '{"total":2500,"devMode":true}' }),
        want: { status: 201 },
      },
    ],
    [
      'a preflight of POST /charge/payment-link: still 405 with Allow (D37)',
      {
        path: () => '/charge/payment-link',
        init: () => preflight('POST', { 'Access-Control-Request-Headers': 'x-api-key' }),
        want: { status: 405, allow: 'POST, GET' },
      },
    ],
    [
      'a preflight of GET /charge/{id}: still 405 with Allow',
      { path: () => `/charge/${chargeId}`, init: () => preflight('GET'), want: { status: 405, allow: 'GET' } },
    ],
    ['GET /docs/', { path: () => '/docs/', init: () => ({ headers: { Origin: ORIGIN } }), want: { status: 200 } }],
    ['a preflight of /docs/', { path: () => '/docs/', init: () => preflight('GET'), want: { status: 404 } }],
    ['GET / (the redirect to the docs)', { path: () => '/', init: () => ({ headers: { Origin: ORIGIN } }), want: { status: 302 } }],
    ['GET /pay/{id}', { path: () => `/pay/${chargeId}`, init: () => ({ headers: { Origin: ORIGIN, Accept: 'text/html' } }), want: { status: 200 } }],
    ['GET /pay/{id}/status', { path: () => `/pay/${chargeId}/status`, init: () => ({ headers: { Origin: ORIGIN } }), want: { status: 200 } }],
    ['a preflight of POST /pay/{id}/simulate', { path: () => `/pay/${chargeId}/simulate`, init: () => preflight('POST'), want: { status: 405 } }],
  ];
  test.each(cases)('%s: no CORS header', async (_name, { path, init, want }) => {
    const response = await server.app.request(path(), init());
    expect(corsHeaders(response)).toEqual({});
    expect(response.status).toBe(want.status);
    if (want.allow !== undefined) {
      expect(response.headers.get('allow')).toBe(want.allow);
      await expectProblem(response, 405, '/problems/method-not-allowed', path());
    }
  });
});

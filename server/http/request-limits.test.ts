import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { MAX_HEADER_BYTES, MAX_HEADER_COUNT, MAX_URL_BYTES } from './request-limits.js';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(async () => server.close());

describe('request limits (D34)', () => {
  const cases: Array<[string, { given: { path: string; headers?: Record<string, string> }; want: { status: number; type?: string } }]> = [
    ['a URL at the limit is served', { given: { path: `/client?${'q'.repeat(MAX_URL_BYTES - '/client?'.length)}` }, want: { status: 200 } }],
    [
      'a URL one byte over is 414',
      { given: { path: `/client?${'q'.repeat(MAX_URL_BYTES - '/client?'.length + 1)}` }, want: { status: 414, type: '/problems/uri-too-long' } },
    ],
    ['a long path is 414 before it is 404', { given: { path: `/${'p'.repeat(MAX_URL_BYTES)}` }, want: { status: 414, type: '/problems/uri-too-long' } }],
    [
      'headers under the limit are served',
      { given: { path: '/client', headers: { 'X-Padding': 'h'.repeat(MAX_HEADER_BYTES - 2_000) } }, want: { status: 200 } },
    ],
    [
      'headers over the limit are 431',
      {
        given: { path: '/client', headers: { 'X-Padding': 'h'.repeat(MAX_HEADER_BYTES + 1) } },
        want: { status: 431, type: '/problems/header-fields-too-large' },
      },
    ],
    [
      `${MAX_HEADER_COUNT + 1} header fields are 431 (without Node's server: counted from the Headers)`,
      {
        given: { path: '/client', headers: Object.fromEntries(Array.from({ length: MAX_HEADER_COUNT + 1 }, (_, i) => [`X-Field-${i}`, 'v'])) },
        want: { status: 431, type: '/problems/header-fields-too-large' },
      },
    ],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    const response = await server.request(given.path, { headers: given.headers ?? {} });
    expect(response.status).toBe(want.status);
    // These limits guard every path alike (D34), documented in the Problem table, not per operation.
    if (want.type) {
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(await response.json()).toMatchObject({ type: want.type, status: want.status });
    }
  });
});

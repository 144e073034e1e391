import pino from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { createTestServer, type TestServer } from '../test-support/harness.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// The front door is inside each operation's one handler, and Hono's one middleware for everything
// else (server/app.ts): both kinds of request must get all of it, once.
describe('the front door, for operations and for every other request', () => {
  test.each<[string, { method: string; path: string; apiKey?: null; status: number }]>([
    ['an operation', { method: 'GET', path: '/client', status: 200 }],
    ['an operation that throws a problem', { method: 'GET', path: '/charge/ch_nosuchchargeatall000000', status: 404 }],
    ['an operation refused for its key', { method: 'GET', path: '/client', apiKey: null, status: 401 }],
    ['an operation asked with HEAD', { method: 'HEAD', path: '/client', status: 200 }],
    ['a docs page', { method: 'GET', path: '/docs/', status: 200 }],
    ['an unknown path', { method: 'GET', path: '/nowhere', status: 404 }],
    ['a method an operation path does not take', { method: 'DELETE', path: '/client', status: 405 }],
  ])('%s: its id and nosniff on the answer, one request line with its status and id', async (_name, { method, path, apiKey, status }) => {
    server = await createTestServer();
    const lines: string[] = [];
    server.deps.logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const response = await server.request(path, { method, ...(apiKey === null ? { apiKey } : {}) });
    expect(response.status).toBe(status);
    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg === 'request');
    expect(logged).toEqual([expect.objectContaining({ requestId, method, path, status })]);
    if (apiKey !== null && status !== 404 && path === '/client') expect(logged[0]!.companyId).toBe(server.companyId);
  });
});

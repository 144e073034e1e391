import { Hono } from 'hono';
import { UnsupportedPathError } from 'hono/router';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { describe, expect, test } from 'vitest';
import { createTestServer } from '../test-support/harness.js';
import { SegmentRouter } from './router.js';

/** The server's kinds of routes, in the order an app adds them: middleware, pages, operations, a catch-all. */
const routes: Array<[string, string]> = [
  ['ALL', '/*'],
  ['GET', '/'],
  ['GET', '/docs'],
  ['GET', '/docs/'],
  ['GET', '/docs/openapi.yaml'],
  ['OPTIONS', '/docs/openapi.yaml'],
  ['GET', '/pay/:id'],
  ['GET', '/pay/:id/status'],
  ['ALL', '/pay/:id'],
  ['POST', '/charge/payment-link'],
  ['GET', '/charge/:id'],
  ['POST', '/charge/:id/simulate-payment'],
  ['GET', '/client'],
  ['POST', '/client'],
  ['GET', '/client/:id'],
  ['GET', '/webhook/:id/deliveries'],
  ['DELETE', '/webhook/:id'],
  ['GET', '/files/*'],
  ['GET', '/:resource/:id/raw'],
];

const requests: Array<[string, string]> = [
  ['GET', '/'],
  ['POST', '/'],
  ['GET', '/docs'],
  ['GET', '/docs/'],
  ['GET', '/docs/openapi.yaml'],
  ['OPTIONS', '/docs/openapi.yaml'],
  ['GET', '/docsx'],
  ['GET', '/pay/abc'],
  ['PUT', '/pay/abc'],
  ['GET', '/pay/abc/status'],
  ['GET', '/pay/'],
  ['GET', '/pay//status'],
  ['POST', '/charge/payment-link'],
  ['GET', '/charge/payment-link'],
  ['GET', '/charge/char_1'],
  ['GET', '/charge/char%2F1'],
  ['POST', '/charge/char_1/simulate-payment'],
  ['POST', '/charge/payment-link/simulate-payment'],
  ['GET', '/charge/char_1/'],
  ['GET', '/charge'],
  ['GET', '/charge/'],
  ['GET', '/client'],
  ['POST', '/client'],
  ['DELETE', '/client'],
  ['GET', '/client/cli_1'],
  ['GET', '/client/cli_1/x'],
  ['GET', '/webhook/wh_1/deliveries'],
  ['DELETE', '/webhook/wh_1'],
  ['PATCH', '/webhook/wh_1'],
  ['GET', '/files'],
  ['GET', '/files/'],
  ['GET', '/files/a/b/c'],
  ['GET', '/client/cli_1/raw'],
  ['GET', '/unknown/x/raw'],
  ['GET', '/unknown'],
  ['GET', '//'],
  ['QUERY', '/client'],
];

/** The routers' answers as the routes' indexes and their parameters, in the order given. */
function answers(router: SegmentRouter<number> | TrieRouter<number>, method: string, path: string) {
  const [found] = router.match(method, path) as [[number, Record<string, string>][]];
  return found.map(([index, params]) => [index, { ...params }]);
}

describe('SegmentRouter', () => {
  const segment = new SegmentRouter<number>();
  const trie = new TrieRouter<number>();
  routes.forEach(([method, path], index) => {
    segment.add(method, path, index);
    trie.add(method, path, index);
  });

  test.each(requests)('%s %s: the routes and parameters of the TrieRouter, in its order', (method, path) => {
    expect(answers(segment, method, path)).toEqual(answers(trie, method, path));
  });

  test('finds what it should (the comparison above compares something)', () => {
    expect(answers(segment, 'GET', '/charge/char_1')).toEqual([
      [0, {}],
      [10, { id: 'char_1' }],
    ]);
    expect(answers(segment, 'PUT', '/pay/abc')).toEqual([
      [0, {}],
      [8, { id: 'abc' }],
    ]);
    expect(answers(segment, 'GET', '/unknown')).toEqual([[0, {}]]);
  });

  test.each(['/a/:id?', '/a/:id{[0-9]+}', '/a/*/b', '/a/b*', '/a/:'])('refuses %s, so that a SmartRouter uses the next router', (path) => {
    expect(() => new SegmentRouter<number>().add('GET', path, 0)).toThrow(UnsupportedPathError);
  });

  test('is the router of an app that lists it first, and gives way to the next for a path it refuses', async () => {
    const served = new Hono({ router: new SmartRouter({ routers: [new SegmentRouter(), new TrieRouter()] }) });
    served.get('/a/:id', (c) => c.text(c.req.param('id')));
    expect(await (await served.request('/a/x%20y')).text()).toBe('x y');
    expect(served.router.name).toBe('SmartRouter + SegmentRouter');

    const fallback = new Hono({ router: new SmartRouter({ routers: [new SegmentRouter(), new TrieRouter()] }) });
    fallback.get('/a/:id{[0-9]+}', (c) => c.text(c.req.param('id')));
    expect(await (await fallback.request('/a/12')).text()).toBe('12');
    expect((await fallback.request('/a/x')).status).toBe(404);
    expect(fallback.router.name).toBe('SmartRouter + TrieRouter');
  });

  test("is the reference server's router: none of the contract's paths makes it give way", async () => {
    const server = await createTestServer();
    try {
      const response = await server.request('/charge/char_missing');
      expect(response.status).toBe(404);
      expect(server.app.router.name).toBe('SmartRouter + SegmentRouter');
    } finally {
      await server.close();
    }
  });
});

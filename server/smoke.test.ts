import { afterAll, beforeAll, expect, test } from 'vitest';
import { createTestServer, type TestServer } from './test-support/harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(async () => server.close());

test('a client created through POST /client is listed by GET /client', async () => {
  const created = await server.api.POST('/client', {
    body: { name: 'Maria Silva Souza', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'maria@example.com', phone: '11987654321' },
  });
  expect(created.response.status).toBe(201);
  const list = await server.api.GET('/client');
  expect(list.data?.map((c) => c.id)).toContain(created.data?.id);
  expect(server.violations).toEqual([]);
});

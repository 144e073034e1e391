/**
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ContractValidator } from '../../lib/contract/ajv.js';
import { fillPath } from '../../lib/contract/paths.js';
import type { AppEnv } from '../deps.js';
import type { DefinedOperation, OperationId } from './define-operation.js';
import { mountOperations } from './mount-operations.js';
import { OperationCatalog } from './operations.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';

const catalog = new OperationCatalog(new ContractValidator());
const ids = catalog.all().map((rules) => rules.operationId as OperationId);
const answering = (operationId: OperationId): DefinedOperation => ({ operationId, handle: async (c) => c.text(operationId) });
const pass = () => async () => {};

describe('mountOperations', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await createTestServer();
  });
  afterAll(() => server.close());

  test.each<[string, { given: OperationId[]; want: RegExp | undefined }]>([
    ['every operation of the contract has a handler', { given: ids, want: undefined }],
    [
      'one operation without a handler stops the build, named',
      { given: ids.filter((id) => id !== 'getCharge'), want: /^No handler for the contract's operations getCharge$/ },
    ],
    ['two handlers of one operation stop the build', { given: [...ids, 'getCharge'], want: /two handlers/ }],
  ])('%s', (_name, { given, want }) => {
    const mount = () => mountOperations(new Hono<AppEnv>(), server.deps, catalog, pass, given.map(answering));
    if (want) expect(mount).toThrow(want);
    else expect(mount).not.toThrow();
  });

  test('each operation is reached at its contract method and path, under one sub-app per resource', async () => {
    const app = new Hono<AppEnv>();
    mountOperations(app, server.deps, catalog, pass, ids.map(answering));
    for (const rules of catalog.all()) {
      const path = fillPath(rules.path, 'x1');
      const response = await app.request(path, { method: rules.method.toUpperCase() });
      expect(await response.text(), `${rules.method} ${path}`).toBe(rules.operationId);
    }
  });
});

/**
 * A run reads each operation of the contract once: across a whole run against the reference
 * server (every operation, every check), the readers of the contract are called at most once per
 * operation for what they read of it (its request body, parameters, documented responses), and
 * its links are listed once. The readers are counted where every caller reaches them, their
 * modules, so whichever helper asks, the count says whether it asked the contract again.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { listOperations, loadBundledContract, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { runInProcess } from '../test-support/in-process.js';
import type { RunReport } from '../engine/types.js';
import { inScope, operationScope } from '../../scripts/test-operation/scope.js';

/** Each call of a counted reader: which, on which document, for which operation. */
const reads = vi.hoisted(() => [] as Array<{ reader: string; doc: unknown; operationId?: string }>);

vi.mock('./schema.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./schema.js')>();
  const counted =
    <A extends [JsonObject, ContractOperation], R>(reader: string, read: (...args: A) => R) =>
    (...args: A): R => {
      reads.push({ reader, doc: args[0], operationId: args[1].operationId });
      return read(...args);
    };
  return {
    ...actual,
    requestBodyOf: counted('requestBodyOf', actual.requestBodyOf),
    headerParametersOf: counted('headerParametersOf', actual.headerParametersOf),
    queryParametersOf: counted('queryParametersOf', actual.queryParametersOf),
    pathParameterExamples: counted('pathParameterExamples', actual.pathParameterExamples),
  };
});

vi.mock('../../lib/contract/responses.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/contract/responses.js')>();
  return {
    ...actual,
    documentedResponses: (doc: JsonObject, op: ContractOperation) => {
      reads.push({ reader: 'documentedResponses', doc, operationId: op.operationId });
      return actual.documentedResponses(doc, op);
    },
  };
});

vi.mock('../../lib/contract/links.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/contract/links.js')>();
  return {
    ...actual,
    listLinks: (doc: JsonObject) => {
      reads.push({ reader: 'listLinks', doc });
      return actual.listLinks(doc);
    },
  };
});

describe('a whole run reads each operation of the contract once', () => {
  // The run's own copy of the contract: the server's reads of the bundled one are not the run's.
  const contract = structuredClone(loadBundledContract());
  // Under `npm run test:operation`, a run of the operation's scope (scripts/test-operation/scope.ts).
  const scope = operationScope();
  const operations = inScope(listOperations(contract)).map((op) => op.operationId);
  let server: TestServer;
  let report: RunReport;

  beforeAll(async () => {
    server = await createTestServer();
    report = await runInProcess(server, { runId: 'confview', webhookReceiver: undefined, ...(scope ? { only: [...scope] } : {}) }, { contract });
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  const runReads = (reader: string) => reads.filter((read) => read.reader === reader && read.doc === contract);

  test('the run covered every operation and sent its requests', () => {
    expect(operations.length).toBeGreaterThan(0);
    expect(report.operations).toEqual(operations);
    expect(report.exchanges?.length).toBeGreaterThan(operations.length * 5);
    expect(report.results.filter((r) => r.outcome === 'fail')).toEqual([]);
  });

  test('its links are listed once', () => {
    expect(runReads('listLinks')).toHaveLength(1);
  });

  test.each(['requestBodyOf', 'headerParametersOf', 'queryParametersOf', 'pathParameterExamples', 'documentedResponses'])(
    '%s: at most once per operation',
    (reader) => {
      const perOperation = new Map<string, number>();
      for (const { operationId } of runReads(reader)) perOperation.set(operationId!, (perOperation.get(operationId!) ?? 0) + 1);
      expect([...perOperation].filter(([, count]) => count > 1)).toEqual([]);
      // The reader was reached through the run (the count is not empty because nothing was counted).
      if (reader !== 'pathParameterExamples') expect(perOperation.size).toBeGreaterThan(operations.length / 2);
    },
  );
});

describe("an operation's view", () => {
  test('is made once per run and keeps what it read', async () => {
    const { ContractView } = await import('./contract-view.js');
    const contract = new ContractView(structuredClone(loadBundledContract()));
    const view = contract.view('createPaymentLink');
    expect(contract.view(view.op)).toBe(view);
    expect(view.requestBody).toBe(view.requestBody);
    expect(view.templates).toBe(view.templates);
    expect(view.templates.length).toBeGreaterThan(3);
    expect(view.templates.filter((t) => t.example).map((t) => t.name)).toEqual(view.requestBody!.examples.map((e) => `example ${e.name}`));
    // What it links: the read of the charge it creates, and the records its body names.
    expect(view.linksOutWith('read').map((link) => link.target.operationId)).toContain('getCharge');
    expect(view.bodyReferences.map((ref) => ref.fixture.key)).toContain('createClient');
    expect(contract.view('getCharge').pathLink?.source.operationId).toBe('createPaymentLink');
    expect(contract.view('createWebhook').deleteLink?.target.operationId).toBe('deleteWebhook');
    expect(contract.view('createPaymentLink').deleteLink).toBeUndefined();
    expect(() => contract.view('noSuchOperation')).toThrow(/no operation noSuchOperation/);
  });
});

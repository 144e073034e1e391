/**
 * `npm run test:operation -- <operationId>` picks what judges the operation from the contract and
 * the code: the handler, the tests named after it (and no others), the store methods it calls.
 * An unknown operationId fails with the list of the contract's operations. The contributing
 * guide's command, run as written, judges an operation: the lint, the type check, its tests and its
 * conformance checks, all passing.
 *
 * @full-run-only: it enumerates the contract's operations, but `npm run test:operation` leaves it to `npm test`: it runs `npm run test:operation` itself.
 */
// long-running: about 30 s (runs test:operation and the guide commands); test/support/sequencer.ts starts it early
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, test } from 'vitest';
import { listOperations, loadBundledContract } from '../../lib/contract/bundled.js';
import { runBash } from '../../test/support/bash.js';
import { fencedBlocks } from '../../test/support/markdown.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  enumeratesContract,
  fullRunOnlyMarker,
  namePatternFor,
  operationWideMarker,
  operationWideTests,
  planOperation,
  repoRoot,
  testTitles,
  UnknownOperationError,
  unmarkedContractWalkers,
  widePatternFor,
} from './plan.js';
import { inScope, operationScope, scopeVariable } from './scope.js';

/** This process's environment without vitest's own variables: the command runs as from a shell. */
function shellEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|npm_|NODE_ENV$|TEST$|TEST_DATABASE_URL$)/.test(name)));
}

describe('what judges an operation', () => {
  const cases: Array<
    [string, { handler: string; store: string; files: string[]; notFiles: string[]; named: string[]; notNamed: string[]; linkedFrom: string[] }]
  > = [
    [
      'createClient',
      {
        handler: 'server/routes/clients.ts',
        store: 'insertClient',
        files: ['server/routes/clients.test.ts'],
        notFiles: ['server/routes/webhooks.test.ts', 'server/routes/products.test.ts'],
        named: ['POST /client', 'POST /client: refused', 'insertClient stores it'],
        notNamed: ['GET /client', 'POST /clients', 'POST /client/{id}', 'POST /client-x', 'createClients'],
        linkedFrom: [],
      },
    ],
    [
      // Its handler hands `deps` to the domain (`createCharge(deps, …)`), which calls the store.
      'createPaymentLink',
      {
        handler: 'server/routes/charges.ts',
        store: 'insertCharge',
        files: ['server/routes/charges.test.ts', 'server/store/store.test.ts'],
        notFiles: ['server/routes/webhooks.test.ts'],
        named: ['POST /charge/payment-link: the total', 'insertCharge is all or nothing'],
        notNamed: ['POST /charge/payment-links', 'GET /charge/{id}'],
        linkedFrom: [],
      },
    ],
    [
      'deleteWebhook',
      {
        handler: 'server/routes/webhooks.ts',
        store: 'deleteWebhook',
        files: ['server/routes/webhooks.test.ts', 'server/store/store.test.ts'],
        notFiles: ['server/routes/clients.test.ts', 'server/routes/orders.test.ts'],
        named: ['DELETE /webhook/{id} (D40)', 'deleteWebhook takes its deliveries along'],
        notNamed: ['GET /webhook/{id}', 'DELETE /webhook', 'DELETE /webhook/{id}/deliveries'],
        linkedFrom: [],
      },
    ],
    [
      'getClient',
      {
        handler: 'server/routes/clients.ts',
        store: 'getClient',
        files: ['server/routes/clients.test.ts', 'server/store/store.test.ts'],
        notFiles: ['server/routes/reads.test.ts'],
        named: ['GET /client/{id}', "getClient finds the owner's record"],
        notNamed: ['GET /client', 'GET /client/{id}/x', 'getClients'],
        linkedFrom: ['createClient'],
      },
    ],
  ];
  test.each(cases)('%s', (operationId, { handler, store, files, notFiles, named, notNamed, linkedFrom }) => {
    const plan = planOperation(operationId);
    expect(plan.operation.operationId).toBe(operationId);
    expect(plan.handlerFile).toBe(handler);
    expect(plan.storeMethods).toContain(store);
    expect(plan.testFiles).toEqual(expect.arrayContaining(files));
    for (const file of notFiles) expect(plan.testFiles).not.toContain(file);
    const pattern = new RegExp(plan.namePattern);
    for (const title of named) expect(title).toMatch(pattern);
    for (const title of notNamed) expect(title).not.toMatch(pattern);
    expect(plan.linkedFrom).toEqual(linkedFrom);
  });

  test.each<[string, { kept: string[]; dropped: string[] }]>([
    [
      'getClient',
      {
        // Its own rows, the rows of the create that reads it back, and tests that name no operation.
        kept: [
          'getClient: 404 for another company',
          'GET /client/{id} answers the record',
          'createClient keeps the name',
          'POST /client and GET /charge/{id}',
          'every operation answers 401 without a key',
          'negative_data_rejection passes on the reference server (seed profile)',
        ],
        // Rows that name only operations outside its scope, by operationId or method and path.
        dropped: ['listClients pages', 'GET /client answers a page', 'GET /charge/{id} in seed profile', 'tenants > deleteWebhook: 404'],
      },
    ],
    ['listClients', { kept: ['GET /client answers a page', 'POST /client then GET /client'], dropped: ['GET /client/{id} answers the record', 'getClient'] }],
  ])("the operation-wide files run every test but other operations' rows (%s)", (operationId, { kept, dropped }) => {
    const plan = planOperation(operationId);
    expect(plan.scope).toEqual([operationId, ...plan.linkedFrom]);
    const pattern = new RegExp(plan.widePattern);
    for (const title of kept) expect(title).toMatch(pattern);
    for (const title of dropped) expect(title).not.toMatch(pattern);
  });

  test('a contract of one operation filters nothing; the scope variable picks operations by id', () => {
    expect(widePatternFor([{ method: 'get', path: '/client', operationId: 'listClients' }], ['listClients'])).toBe('');
    const operations = listOperations(loadBundledContract());
    expect(inScope(operations, {})).toEqual(operations);
    expect(inScope(operations, { [scopeVariable]: ' ' })).toEqual(operations);
    expect(
      inScope(operations, { [scopeVariable]: 'createClient, getClient' })
        .map((op) => op.operationId)
        .sort(),
    ).toEqual(['createClient', 'getClient']);
    expect(operationScope({ [scopeVariable]: 'getClient' })).toEqual(['getClient']);
  });

  test('the name pattern escapes the path and stops at its end', () => {
    const pattern = new RegExp(namePatternFor({ method: 'get', path: '/charge/{id}', operationId: 'getCharge' }, []));
    expect('GET /charge/{id}: the full charge').toMatch(pattern);
    expect('GET /charge/{id}/status').not.toMatch(pattern);
    expect('GET /charge/abc').not.toMatch(pattern);
  });

  test('test titles are read from describe, test, it and their .each forms', () => {
    const source = [
      "describe('POST /client', () => {",
      "  test('a name is needed', () => {});",
      "  it.each(cases)('%s is refused', () => {});",
      '  describe.each<Profile>([\'a\'])("GET /client in %s", () => {});',
      '  test(`a template`, () => {});',
      "  const title = 'not a test';",
      '});',
    ].join('\n');
    expect(testTitles(source)).toEqual(['POST /client', 'a name is needed', '%s is refused', 'GET /client in %s', 'a template']);
  });

  test('the rows of a table given inline to .each are named by their first string, which %s puts in the title', () => {
    const source = [
      'test.each<[string, { given: (s: Store) => Promise<unknown> }]>([',
      "  ['getClient', { given: (s) => s.getClient('a', ']') }],",
      '  [`getProducts (none)`, { given: async (s) => (await s.getProducts("a", [])).get("x") }],',
      "])('%s finds the record', async () => {});",
      "describe.each(['seed', 'reference'])('%s profile', () => {});",
      "const rows = [['notATest', 1]];",
    ].join('\n');
    expect(testTitles(source)).toEqual(['%s profile', '%s finds the record', 'getClient', 'getProducts (none)']);
  });

  test('the operation-wide tests are the files marked in their opening comment, found in every test folder', () => {
    const wide = operationWideTests();
    // What the issue's new list broke without a test named after it: tenants, the validators' walks, the decisions' marks, the docs' samples.
    for (const file of [
      'server/robustness/tenants.test.ts',
      'server/validation.test.ts',
      'test/contract/decisions.test.ts',
      'scripts/docs/code-samples.test.ts',
    ])
      expect(wide).toContain(file);
    const plan = planOperation('getClient');
    expect(plan.wideTestFiles).toEqual(wide);
    expect(plan.testFiles.filter((file) => wide.includes(file))).toEqual([]);

    const root = mkdtempSync(join(tmpdir(), 'pix-test-operation-'));
    try {
      mkdirSync(join(root, 'lib', 'deep'), { recursive: true });
      mkdirSync(join(root, 'test'), { recursive: true });
      writeFileSync(join(root, 'lib', 'deep', 'every.test.ts'), `/**\n * ${operationWideMarker}: every operation.\n */\nimport { test } from 'vitest';\n`);
      // The marker further down (in a test's text) does not make a file operation-wide.
      writeFileSync(join(root, 'test', 'one.test.ts'), `import { test } from 'vitest';\n// ${operationWideMarker}\n`);
      writeFileSync(join(root, 'test', 'plain.test.ts'), "import { test } from 'vitest';\n");
      expect(operationWideTests(root)).toEqual(['lib/deep/every.test.ts']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('every test file that walks the whole contract is in the loop, or says why it is left to npm test', () => {
    // A file that calls listOperations (or another walk of the contract) can be broken by a new
    // operation that no test is named after: the loop runs it, or its header gives the reason it does not.
    expect(unmarkedContractWalkers(), `mark each with ${operationWideMarker} (or ${fullRunOnlyMarker}: why) in its opening comment`).toEqual([]);
    expect(operationWideTests().length).toBeGreaterThan(0);

    const root = mkdtempSync(join(tmpdir(), 'pix-test-operation-'));
    try {
      mkdirSync(join(root, 'server'), { recursive: true });
      const walk = "import { listOperations } from '../lib/contract/bundled.js';\nfor (const op of listOperations()) test(op.operationId, () => {});\n";
      expect(enumeratesContract.test(walk)).toBe(true);
      // A conformance check or run over every operation walks it too.
      for (const call of ['await generatedCheck.run(ctx);', 'for (const op of ctx.operations) {}', 'await runInProcess(server, {});'])
        expect(enumeratesContract.test(call), call).toBe(true);
      expect(enumeratesContract.test("await ctx.request('createClient', { body });")).toBe(false);
      writeFileSync(join(root, 'server', 'walks.test.ts'), walk);
      writeFileSync(join(root, 'server', 'wide.test.ts'), `/**\n * ${operationWideMarker}: every operation.\n */\n${walk}`);
      writeFileSync(join(root, 'server', 'slow.test.ts'), `/**\n * ${fullRunOnlyMarker}: a browser.\n */\n${walk}`);
      // The marker in a test's text, after the imports, is not the file's.
      writeFileSync(join(root, 'server', 'late.test.ts'), `${walk}// ${operationWideMarker}\n`);
      writeFileSync(join(root, 'server', 'one.test.ts'), "import { test } from 'vitest';\ntest('getClient', () => {});\n");
      expect(unmarkedContractWalkers(root)).toEqual(['server/late.test.ts', 'server/walks.test.ts']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  test('an unknown operationId names every operation of the contract', () => {
    const error = (() => {
      try {
        planOperation('getClientz');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(UnknownOperationError);
    for (const op of listOperations(loadBundledContract()))
      expect((error as Error).message).toContain(`${op.operationId}: ${op.method.toUpperCase()} ${op.path}`);
  });
});

describe('npm run test:operation', () => {
  test('an unknown operationId: exit 2 and the list of operations', async () => {
    const ran = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile('npm', ['run', '-s', 'test:operation', '--', 'getClientz'], { cwd: repoRoot, env: shellEnv() }, (error, _stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr: String(stderr) });
      });
    });
    expect(ran.code).toBe(2);
    expect(ran.stderr).toContain('"getClientz" is not an operation of the contract');
    for (const op of listOperations(loadBundledContract())) expect(ran.stderr).toContain(`${op.operationId}: `);
  });

  test("the contributing guide's commands, as written, judge an operation and pass", { timeout: 300_000 }, async () => {
    const guide = readFileSync(join(repoRoot, 'docs', 'contributing.md'), 'utf8');
    const lines = new Set<string>();
    for (const section of ['## Adding an operation', '## Tests']) {
      const line = fencedBlocks(guide, section, 'sh')
        .flatMap((block) => block.split('\n'))
        .find((l) => l.includes('test:operation'));
      expect(line, `docs/contributing.md shows npm run test:operation under ${section}`).toBeDefined();
      lines.add(line!.replace(/\s+#.*$/, ''));
    }
    for (const line of lines) {
      // npm test runs every operation-wide file itself: here the command runs the first three.
      const ran = await runBash(line, { cwd: repoRoot, env: { ...shellEnv(), TEST_OPERATION_WIDE_LIMIT: '3' }, timeoutMs: 280_000 });
      expect(ran.code, ran.stdout + ran.stderr).toBe(0);
      expect(ran.stdout).toMatch(/^ {2}ok {3}lint/m);
      expect(ran.stdout).toMatch(/^ {2}ok {3}type check/m);
      // The tests named after it and the operation-wide files, in one vitest run.
      expect(ran.stdout).toMatch(
        /^ {2}ok {3}tests on SQLite \([\d.]+ s\): [1-9]\d* named after it, 3 of [1-9]\d+ \(TEST_OPERATION_WIDE_LIMIT\) operation-wide$/m,
      );
      expect(stripVTControlCharacters(ran.stdout)).toMatch(/Test Files +[1-9]\d* passed/);
      expect(ran.stdout).toMatch(/^ {2}ok {3}conformance checks \([\d.]+ s\): [1-9]\d* pass/m);
    }
  });
});

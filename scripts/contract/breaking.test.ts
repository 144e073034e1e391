/**
 * The breaking-change check (`npm run lint:breaking`): changes made to a copy of the bundled
 * contract, judged against the contract as it is. A renamed field, a tightened enum, a removed
 * operation, a new value in an answer, a webhook field dropped and an operation moved to the other
 * base URL break it; additions do not. A break passes only when acknowledged with a decision;
 * the command as `npm run` runs it fails, then passes once the break is acknowledged; a release
 * is never made twice under one version.
 *
 * @full-run-only: it enumerates the contract's operations, but `npm run test:operation` leaves it to `npm test`: it tests the breaking-change checker itself on made-up releases; the loop runs `npm run lint`, whose lint:breaking judges the contract.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { stringify } from 'yaml';
import { bundledContractPath, deref, type JsonObject, loadBundledContract } from '../../lib/contract/bundled.js';
import { readDecisions } from '../../lib/contract/decisions.js';
import { type BreakingChange, breakingChanges, decisionsPath, judge, readAcknowledged, repoRoot } from './breaking.js';
import { release } from './release.js';

const released = loadBundledContract();
const copy = (): JsonObject => structuredClone(released);
const schemas = (doc: JsonObject) =>
  (doc.components as { schemas: Record<string, JsonObject & { properties: Record<string, unknown>; required?: string[]; enum: string[] }> }).schemas;
const operation = (doc: JsonObject, path: string, method: string) => (doc.paths as Record<string, Record<string, JsonObject>>)[path]![method]!;
/** The schema of an operation's JSON request body, as stored (a component, through its `$ref`). */
function requestSchema(doc: JsonObject, path: string, method: string): JsonObject & { properties: Record<string, unknown>; required?: string[] } {
  const body = deref<{ content: Record<string, { schema: unknown }> }>(doc, operation(doc, path, method).requestBody);
  return deref(doc, body.content['application/json']!.schema);
}
function rename(schema: { properties: Record<string, unknown>; required?: string[] }, from: string, to: string): void {
  expect(schema.properties[from], `${from} is a property`).toBeDefined();
  schema.properties[to] = schema.properties[from];
  delete schema.properties[from];
  schema.required = schema.required?.map((name) => (name === from ? to : name));
}

const breaking: Array<[string, { change: (doc: JsonObject) => void; at: RegExp }]> = [
  [
    'a request field renamed (POST /client name → fullName)',
    { change: (doc) => rename(requestSchema(doc, '/client', 'post'), 'name', 'fullName'), at: /^\/paths\/~1client\/post\/requestBody\/.*fullName/ },
  ],
  [
    'a request enum tightened (a subscription period dropped)',
    { change: (doc) => schemas(doc).SubscriptionPeriod!.enum.shift(), at: /^\/paths\/~1subscription\/post\/requestBody\/.*\/period\/enum/ },
  ],
  [
    'a value added to an answer’s enum (a charge status)',
    { change: (doc) => schemas(doc).ChargeStatus!.enum.push('CANCELLED'), at: /^\/paths\/~1charge~1\{id\}\/get\/responses\/200\/.*\/status\/enum/ },
  ],
  [
    'an answer’s field renamed (a client’s taxId)',
    { change: (doc) => rename(schemas(doc).Client!, 'taxId', 'documentId'), at: /^\/paths\/~1client\/get\/responses\/200\/.*taxId/ },
  ],
  [
    'an operation removed (GET /product/{id})',
    {
      change: (doc) => {
        delete (doc.paths as JsonObject)['/product/{id}'];
      },
      at: /^\/paths\/~1product~1\{id\}/,
    },
  ],
  [
    'an operation moved to the other base URL (POST /product onto {base_url})',
    {
      change: (doc) => {
        // The contract's own server is {base_url}; /product names {base_url_alt} for its operations.
        operation(doc, '/product', 'post').servers = structuredClone(doc.servers);
      },
      at: /^\/paths\/~1product\/post\/servers$/,
    },
  ],
  [
    'a field the webhook sends dropped (the event’s type)',
    {
      change: (doc) => {
        const event = schemas(doc).WebhookEvent!;
        delete event.properties.type;
        event.required = event.required?.filter((name) => name !== 'type');
      },
      at: /^\/webhooks\/chargeEvent\/post\/requestBody\/.*\/type$/,
    },
  ],
];

const additive: Array<[string, (doc: JsonObject) => void]> = [
  [
    'an optional request field added',
    (doc) => {
      requestSchema(doc, '/client', 'post').properties.nickname = { type: 'string', maxLength: 40 };
    },
  ],
  [
    'an answer’s field added',
    (doc) => {
      schemas(doc).Client!.properties.nickname = { type: 'string' };
    },
  ],
  ['a value dropped from an answer’s enum', (doc) => void schemas(doc).ChargeStatus!.enum.pop()],
  [
    'an operation added',
    (doc) => {
      // A path the released contract does not have (the test fails if a release ever adds it).
      expect((doc.paths as JsonObject)['/client/{id}/orders']).toBeUndefined();
      (doc.paths as JsonObject)['/client/{id}/orders'] = {
        get: { operationId: 'listClientOrders', responses: { '200': { description: "The client's orders." } } },
      };
    },
  ],
  [
    'a description changed',
    (doc) => {
      operation(doc, '/client', 'get').description = 'Lists the clients.';
    },
  ],
];

describe('breaking changes against the release', () => {
  test('the contract against itself: none', () => {
    expect(breakingChanges(released, copy())).toEqual([]);
  });

  test.each(breaking)('%s breaks it', (_name, { change, at }) => {
    const changed = copy();
    change(changed);
    const found = breakingChanges(released, changed);
    expect(
      found.map((c) => c.at),
      JSON.stringify(found, null, 2),
    ).toContainEqual(expect.stringMatching(at));
  });

  test.each(additive)('%s does not', (_name, change) => {
    const changed = copy();
    change(changed);
    expect(breakingChanges(released, changed)).toEqual([]);
  });
});

describe('acknowledging a break', () => {
  const changes: BreakingChange[] = [
    { at: '/paths/~1client/post/requestBody/content/application~1json/schema/properties/fullName', what: 'add' },
    { at: '/paths/~1client/post/requestBody/content/application~1json/schema/required/5', what: 'add' },
    { at: '/paths/~1product~1{id}', what: 'remove' },
  ];
  const ids = new Set(['D05', 'D60']);
  const cases: Array<[string, { acknowledged: Array<{ at: string; decision: string }>; unacknowledged: string[]; problems: RegExp[] }]> = [
    ['nothing acknowledged: every break fails', { acknowledged: [], unacknowledged: changes.map((c) => c.at), problems: [] }],
    [
      'a request body acknowledged covers every break inside it',
      {
        acknowledged: [{ at: '/paths/~1client/post/requestBody', decision: 'D60' }],
        unacknowledged: ['/paths/~1product~1{id}'],
        problems: [],
      },
    ],
    [
      'a pointer that only starts alike covers nothing',
      { acknowledged: [{ at: '/paths/~1product~1{id', decision: 'D60' }], unacknowledged: changes.map((c) => c.at), problems: [/no breaking change is there/] },
    ],
    [
      'a decision that DECISIONS.md does not have',
      {
        acknowledged: [{ at: '/paths/~1product~1{id}', decision: 'D99' }],
        unacknowledged: changes.slice(0, 2).map((c) => c.at),
        problems: [/D99, which is not a decision/],
      },
    ],
    [
      'an acknowledgement where nothing breaks (left over)',
      {
        acknowledged: [
          { at: '/paths/~1client/post', decision: 'D05' },
          { at: '/paths/~1product~1{id}', decision: 'D05' },
          { at: '/paths/~1order/post', decision: 'D05' },
        ],
        unacknowledged: [],
        problems: [/^\/paths\/~1order\/post: acknowledged, but no breaking change is there/],
      },
    ],
  ];
  test.each(cases)('%s', (_name, { acknowledged, unacknowledged, problems }) => {
    const verdict = judge(changes, acknowledged, ids);
    expect(verdict.unacknowledged.map((c) => c.at)).toEqual(unacknowledged);
    expect(verdict.problems).toHaveLength(problems.length);
    problems.forEach((problem, i) => void expect(verdict.problems[i]).toMatch(problem));
  });
});

describe('npm run lint:breaking and npm run contract:release', () => {
  const folder = mkdtempSync(join(tmpdir(), 'pix-breaking-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  function lint(releases: string, contract: string): Promise<{ code: number; out: string }> {
    return new Promise((resolve) => {
      execFile('npm', ['run', '-s', 'lint:breaking', '--', '--releases', releases, '--contract', contract], { cwd: repoRoot }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: String(stdout) + String(stderr) });
      });
    });
  }

  test('a release, a renamed field that fails the lint, the same field acknowledged with a decision that passes it', { timeout: 60_000 }, async () => {
    const releases = join(folder, 'releases');
    const made = release(bundledContractPath, releases);
    expect(readFileSync(made, 'utf8')).toBe(readFileSync(bundledContractPath, 'utf8'));
    expect(readAcknowledged(releases)).toEqual({ since: String((released.info as { version: string }).version), acknowledged: [] });
    expect(() => release(bundledContractPath, releases)).toThrow(/is not above the last release/);

    const changed = copy();
    rename(requestSchema(changed, '/client', 'post'), 'name', 'fullName');
    const contract = join(folder, 'changed.yaml');
    writeFileSync(contract, stringify(changed));
    const refused = await lint(releases, contract);
    expect(refused.code, refused.out).toBe(1);
    expect(refused.out).toMatch(/breaks its release .* in \d+ place/);
    expect(refused.out).toContain('/paths/~1client/post/requestBody/content/application~1json/schema/properties/fullName');

    const decision = readDecisions(readFileSync(decisionsPath, 'utf8'))[0]!.id;
    const since = readAcknowledged(releases).since;
    writeFileSync(
      join(releases, 'breaking-changes.yaml'),
      stringify({ since, acknowledged: [{ at: '/paths/~1client/post/requestBody/content/application~1json/schema', decision }] }),
    );
    const passed = await lint(releases, contract);
    expect(passed.code, passed.out).toBe(0);
    expect(passed.out).toMatch(/no unacknowledged breaking change since release .* \([1-9]\d* acknowledged\)/);
  });

  test('without any release: a notice, and nothing fails', async () => {
    const empty = join(folder, 'none');
    mkdirSync(empty);
    const ran = await lint(empty, bundledContractPath);
    expect(ran.code, ran.out).toBe(0);
    expect(ran.out).toMatch(/NOTICE: no release of the contract/);
    expect(existsSync(join(empty, 'breaking-changes.yaml'))).toBe(false);
  });
});

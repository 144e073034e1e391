import { describe, expect, test } from 'vitest';
import { loadBundledContract, resolvePointer } from '../../lib/contract/bundled.js';
import { RunContext } from '../engine/context.js';
import type { CheckName, CheckResult, ConformanceOptions, Exchange, Outcome, Profile } from '../engine/types.js';
import { decisionsOfErrors, describeErrors, documentedResponse, errorPlaces, mediaTypeOf, responseChecks } from './responses.js';

const contract = loadBundledContract();
/** The `value` of a named example of the contract: valid test data the contract itself vouches for. */
const example = <T = Record<string, unknown>>(name: string): T => structuredClone(resolvePointer(contract, `/components/examples/${name}/value`)) as T;

const options = (profile: Profile): ConformanceOptions => ({
  baseUrl: 'http://ref.test',
  baseUrlAlt: 'http://alt.test',
  apiKey: 'sk_test',
  profile,
  readOnly: false,
  stateless: false,
  timeoutMs: 5_000,
});

const json = 'application/json';
const problemJson = 'application/problem+json';

interface Answer {
  op?: string;
  status: number;
  contentType?: string | null;
  headers?: Record<string, string>;
  body?: unknown;
}

const paths: Record<string, [string, string]> = {
  createPaymentLink: ['POST', 'http://ref.test/charge/payment-link'],
  getCharge: ['GET', 'http://ref.test/charge/char_ndvw35rd8w4vqozp8gqwwcxt'],
  listClients: ['GET', 'http://ref.test/client'],
  createSubscription: ['POST', 'http://alt.test/subscription'],
  getProduct: ['GET', 'http://alt.test/product/prod_ndvw35rd8w4vqozp8gqwwcxt'],
  createWebhook: ['POST', 'http://ref.test/webhook'],
  getWebhook: ['GET', 'http://ref.test/webhook/wbhk_ndvw35rd8w4vqozp8gqwwcxt'],
  listWebhooks: ['GET', 'http://ref.test/webhook'],
};

function exchange(answer: Answer): Exchange {
  const op = answer.op ?? 'createPaymentLink';
  const [method, url] = paths[op]!;
  // Every answer of a conforming server says nosniff (D50); a case that leaves a header out sets it null.
  const headers = Object.fromEntries(
    Object.entries({ 'x-content-type-options': 'nosniff', ...answer.headers }).filter(([, value]) => value !== null),
  ) as Record<string, string>;
  if (answer.contentType !== null) headers['content-type'] = answer.contentType ?? json;
  const body = answer.body === undefined ? '' : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  return { operationId: op, request: { method, url, headers: {} }, response: { status: answer.status, headers, body }, ms: 1 };
}

async function judge(profile: Profile, exchanges: Exchange[]): Promise<RunContext> {
  const ctx = new RunContext(options(profile));
  ctx.exchanges.push(...exchanges);
  await responseChecks.run(ctx);
  return ctx;
}

function result(ctx: RunContext, op: string, check: CheckName): CheckResult | undefined {
  return ctx.recorder.results([op]).find((r) => r.check === check);
}

const created = example('PaymentLinkCreated');
const createdData = created.data as Record<string, unknown>;
const location = { location: '/charge/char_ndvw35rd8w4vqozp8gqwwcxt' };
const unauthorized = example('ProblemUnauthorized');
const rateLimited = example('ProblemRateLimited');
const rateHeaders = { 'retry-after': '1', ratelimit: '"default";r=0;t=1', 'ratelimit-policy': '"default";q=100;w=1' };

interface Want {
  check: CheckName;
  op?: string;
  seed: Outcome | undefined;
  reference: Outcome | undefined;
  decision?: string;
  message?: RegExp;
}

// Each case: the answers of a run, and the outcome of one check in each profile.
const cases: Array<[string, { given: Answer[]; want: Want }]> = [
  // not_a_server_error
  [
    'a 201 is no server error',
    { given: [{ status: 201, headers: location, body: created }], want: { check: 'not_a_server_error', seed: 'pass', reference: 'pass' } },
  ],
  [
    'a 500 is a server error even though documented',
    {
      given: [{ status: 500, contentType: problemJson, body: example('ProblemInternalError') }],
      want: { check: 'not_a_server_error', seed: 'fail', reference: 'fail', message: /→ 500: a server error/ },
    },
  ],
  [
    'a 502 is a server error',
    {
      given: [{ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' }],
      want: { check: 'not_a_server_error', seed: 'fail', reference: 'fail' },
    },
  ],
  // status_code_conformance
  [
    'documented 201',
    { given: [{ status: 201, headers: location, body: created }], want: { check: 'status_code_conformance', seed: 'pass', reference: 'pass' } },
  ],
  [
    'documented 401 (an error response)',
    { given: [{ status: 401, contentType: problemJson, body: unauthorized }], want: { check: 'status_code_conformance', seed: 'pass', reference: 'pass' } },
  ],
  [
    'a documented 500: not a pass, the check did not run in full (a server error says nothing of the status the request should get)',
    {
      given: [{ status: 500, contentType: problemJson, body: example('ProblemInternalError') }],
      want: { check: 'status_code_conformance', seed: 'skip', reference: 'skip' },
    },
  ],
  [
    '200 where the decided success code is 201 (D01)',
    {
      given: [{ status: 200, body: { ...created, status: 200 } }],
      want: { check: 'status_code_conformance', seed: 'info', reference: 'fail', decision: 'D01', message: /200 is not documented for createPaymentLink/ },
    },
  ],
  [
    '200 where the seed gives 201 (POST /subscription)',
    {
      given: [{ op: 'createSubscription', status: 200, body: example('SubscriptionCreated') }],
      want: { op: 'createSubscription', check: 'status_code_conformance', seed: 'fail', reference: 'fail' },
    },
  ],
  [
    'undocumented 404 on GET /client: errors are decisions (D02)',
    {
      given: [{ op: 'listClients', status: 404, contentType: problemJson, body: example('ProblemChargeNotFound') }],
      want: { op: 'listClients', check: 'status_code_conformance', seed: 'info', reference: 'fail', decision: 'D02' },
    },
  ],
  [
    'a redirect is documented nowhere',
    {
      given: [{ op: 'listClients', status: 302, contentType: null, headers: { location: '/login' } }],
      want: { op: 'listClients', check: 'status_code_conformance', seed: 'fail', reference: 'fail' },
    },
  ],
  // content_type_conformance
  [
    'JSON success',
    {
      given: [{ status: 201, contentType: 'application/json; charset=utf-8', headers: location, body: created }],
      want: { check: 'content_type_conformance', seed: 'pass', reference: 'pass' },
    },
  ],
  [
    'a success that is not JSON',
    {
      given: [{ status: 201, contentType: 'text/plain', headers: location, body: 'created' }],
      want: { check: 'content_type_conformance', seed: 'fail', reference: 'fail', message: /Content-Type text\/plain, documented application\/json/ },
    },
  ],
  [
    'a success without Content-Type',
    {
      given: [{ status: 201, contentType: null, headers: location, body: created }],
      want: { check: 'content_type_conformance', seed: 'fail', reference: 'fail' },
    },
  ],
  [
    'a 401 as plain JSON instead of a problem (D02)',
    {
      given: [{ status: 401, contentType: json, body: unauthorized }],
      want: { check: 'content_type_conformance', seed: 'info', reference: 'fail', decision: 'D02' },
    },
  ],
  // response_schema_conformance
  [
    'a timestamp written with an offset and without milliseconds (D35: UTC, milliseconds, Z)',
    {
      given: [
        {
          op: 'createWebhook',
          status: 201,
          headers: { location: '/webhook/wbhk_ndvw35rd8w4vqozp8gqwwcxt' },
          body: { ...example<Record<string, unknown>>('WebhookCreated'), createdAt: '2026-11-21T11:30:00-03:00', updatedAt: '2026-11-21T14:30:00Z' },
        },
      ],
      want: {
        check: 'response_schema_conformance',
        op: 'createWebhook',
        seed: 'info',
        reference: 'fail',
        decision: 'D35',
        message: /^POST \/webhook → 201: timestamps not written in UTC with milliseconds and Z, as 2026-11-21T14:30:00\.000Z \(D35\)$/,
      },
    },
  ],
  [
    'a timestamp-like text in a field that is no timestamp is not judged as one',
    {
      given: [
        {
          op: 'createWebhook',
          status: 201,
          headers: { location: '/webhook/wbhk_ndvw35rd8w4vqozp8gqwwcxt' },
          body: { ...example<Record<string, unknown>>('WebhookCreated'), name: '2026-11-21T11:30:00-03:00' },
        },
      ],
      want: { check: 'response_schema_conformance', op: 'createWebhook', seed: 'pass', reference: 'pass' },
    },
  ],
  [
    "a webhook registration's secret in its create's answer (the only one that returns it, D40)",
    {
      given: [{ op: 'createWebhook', status: 201, headers: { location: '/webhook/wbhk_ndvw35rd8w4vqozp8gqwwcxt' }, body: example('WebhookCreated') }],
      want: { check: 'response_schema_conformance', op: 'createWebhook', seed: 'pass', reference: 'pass' },
    },
  ],
  [
    'a read of a webhook registration carrying its secret (D40: returned only by the create)',
    {
      given: [{ op: 'getWebhook', status: 200, body: example('WebhookCreated') }],
      want: {
        check: 'response_schema_conformance',
        op: 'getWebhook',
        seed: 'info',
        reference: 'fail',
        decision: 'D40',
        message: /^GET \/webhook\/wbhk_\w+ → 200: a `secret` member \(at \/\) where the documented schema has none/,
      },
    },
  ],
  [
    'a list of webhook registrations carrying their secrets',
    {
      given: [
        { op: 'listWebhooks', status: 200, body: [{ ...example<Record<string, unknown>>('WebhookCreated'), secret: undefined }, example('WebhookCreated')] },
      ],
      want: {
        check: 'response_schema_conformance',
        op: 'listWebhooks',
        seed: 'info',
        reference: 'fail',
        decision: 'D40',
        message: /a `secret` member \(at \/1\)/,
      },
    },
  ],
  [
    "a problem whose `status` member is not the answer's status (D02: the HTTP status of this response)",
    {
      given: [{ status: 401, contentType: problemJson, body: { ...unauthorized, status: 404 } }],
      want: {
        check: 'response_schema_conformance',
        seed: 'info',
        reference: 'fail',
        decision: 'D02',
        message: /→ 401: the problem's `status` member is 404, not the answer's status 401/,
      },
    },
  ],
  [
    "a problem whose `status` member is the answer's status passes",
    { given: [{ status: 401, contentType: problemJson, body: unauthorized }], want: { check: 'response_schema_conformance', seed: 'pass', reference: 'pass' } },
  ],
  [
    'the example body',
    { given: [{ status: 201, headers: location, body: created }], want: { check: 'response_schema_conformance', seed: 'pass', reference: 'pass' } },
  ],
  [
    'total in reais (the seed says cents, an integer)',
    {
      given: [{ status: 201, headers: location, body: { ...created, data: { ...createdData, total: 129.9 } } }],
      want: { check: 'response_schema_conformance', seed: 'fail', reference: 'fail', message: /\/data\/total must be integer/ },
    },
  ],
  [
    'devMode as a string (the seed says boolean)',
    {
      given: [{ status: 201, headers: location, body: { ...created, data: { ...createdData, devMode: 'true' } } }],
      want: { check: 'response_schema_conformance', seed: 'fail', reference: 'fail', message: /\/data\/devMode must be boolean/ },
    },
  ],
  [
    'a charge id of another format (D13)',
    {
      given: [{ status: 201, headers: location, body: { ...created, data: { ...createdData, id: '12345' } } }],
      want: { check: 'response_schema_conformance', seed: 'info', reference: 'fail', decision: 'D13', message: /\/data\/id must match pattern/ },
    },
  ],
  [
    'no devMode in the result (presence is D21)',
    {
      given: [{ status: 201, headers: location, body: { ...created, data: { ...createdData, devMode: undefined } } }],
      want: { check: 'response_schema_conformance', seed: 'info', reference: 'fail', decision: 'D21' },
    },
  ],
  [
    'a success body that is not JSON',
    {
      given: [{ status: 201, headers: location, body: '<html>' }],
      want: { check: 'response_schema_conformance', seed: 'fail', reference: 'fail', message: /not JSON/ },
    },
  ],
  [
    'an empty success body',
    { given: [{ status: 201, headers: location }], want: { check: 'response_schema_conformance', seed: 'fail', reference: 'fail', message: /an empty body/ } },
  ],
  [
    'a 401 whose body is not JSON (D02)',
    {
      given: [{ status: 401, contentType: problemJson, body: 'Unauthorized' }],
      want: { check: 'response_schema_conformance', seed: 'info', reference: 'fail', decision: 'D02' },
    },
  ],
  [
    'a 401 that is not a problem (D02)',
    {
      given: [{ status: 401, contentType: problemJson, body: { error: 'unauthorized' } }],
      want: { check: 'response_schema_conformance', seed: 'info', reference: 'fail', decision: 'D02' },
    },
  ],
  [
    'a 200 instead of 201 is still held to the 201 body',
    {
      given: [{ status: 200, body: { ...created, data: { ...createdData, total: '12990' } } }],
      want: { check: 'response_schema_conformance', seed: 'fail', reference: 'fail' },
    },
  ],
  [
    'a client list of one client missing its seed-required email',
    {
      given: [
        {
          op: 'listClients',
          status: 200,
          body: example<Array<Record<string, unknown>>>('ClientList').map((c, i) => (i === 0 ? { ...c, email: undefined } : c)),
        },
      ],
      want: {
        op: 'listClients',
        check: 'response_schema_conformance',
        seed: 'fail',
        reference: 'fail',
        message: /: \/\* must have required property 'email'$/,
      },
    },
  ],
  // response_headers_conformance
  [
    'Location present and valid',
    { given: [{ status: 201, headers: location, body: created }], want: { check: 'response_headers_conformance', seed: 'pass', reference: 'pass' } },
  ],
  [
    'Location missing (D01)',
    {
      given: [{ status: 201, body: created }],
      want: { check: 'response_headers_conformance', seed: 'info', reference: 'fail', decision: 'D01', message: /required header Location is missing/ },
    },
  ],
  [
    'Location not a URI reference (D01)',
    {
      given: [{ status: 201, headers: { location: '/charge/a b' }, body: created }],
      want: { check: 'response_headers_conformance', seed: 'info', reference: 'fail', decision: 'D01', message: /header Location/ },
    },
  ],
  [
    'Idempotent-Replayed with another value (D10)',
    {
      given: [{ status: 201, headers: { ...location, 'idempotent-replayed': 'yes' }, body: created }],
      want: { check: 'response_headers_conformance', seed: 'info', reference: 'fail', decision: 'D10', message: /must be equal to one of the allowed values/ },
    },
  ],
  [
    '429 with its headers',
    {
      given: [{ status: 429, contentType: problemJson, headers: rateHeaders, body: rateLimited }],
      want: { check: 'response_headers_conformance', seed: 'pass', reference: 'pass' },
    },
  ],
  [
    '429 without Retry-After (D11)',
    {
      given: [{ status: 429, contentType: problemJson, headers: { ...rateHeaders, 'retry-after': undefined as unknown as string }, body: rateLimited }],
      want: { check: 'response_headers_conformance', seed: 'info', reference: 'fail', decision: 'D11', message: /Retry-After is missing/ },
    },
  ],
  [
    '429 with an HTTP-date Retry-After (D11)',
    {
      given: [{ status: 429, contentType: problemJson, headers: { ...rateHeaders, 'retry-after': 'Wed, 21 Oct 2026 07:28:00 GMT' }, body: rateLimited }],
      want: { check: 'response_headers_conformance', seed: 'info', reference: 'fail', decision: 'D11' },
    },
  ],
  // A read the seed does not list (getProduct: x-decision D37 on the operation): every would-be
  // failure about it is information naming D37 under the seed profile, and fails the reference one.
  [
    'a read the seed does not list (D37) answering 500',
    {
      given: [{ op: 'getProduct', status: 500, contentType: 'text/plain', body: 'boom' }],
      want: { op: 'getProduct', check: 'not_a_server_error', seed: 'info', reference: 'fail', decision: 'D37', message: /→ 500: a server error/ },
    },
  ],
  [
    'a read the seed does not list (D37) answering a product off even the seed (price as a string)',
    {
      given: [{ op: 'getProduct', status: 200, body: { ...example<Record<string, unknown>>('ProductCreated'), price: '89.90' } }],
      want: { op: 'getProduct', check: 'response_schema_conformance', seed: 'info', reference: 'fail', decision: 'D37', message: /\/price must be number/ },
    },
  ],
  [
    'a read the seed does not list (D37) answering HTML',
    {
      given: [{ op: 'getProduct', status: 200, contentType: 'text/html', body: '<p>product</p>' }],
      want: { op: 'getProduct', check: 'content_type_conformance', seed: 'info', reference: 'fail', decision: 'D37' },
    },
  ],
  [
    'no headers documented: only nosniff is looked for (D50)',
    {
      given: [{ op: 'listClients', status: 200, body: [] }],
      want: { op: 'listClients', check: 'response_headers_conformance', seed: 'pass', reference: 'pass' },
    },
  ],
  [
    'an answer without X-Content-Type-Options: nosniff (D50)',
    {
      given: [{ op: 'listClients', status: 200, headers: { 'x-content-type-options': null as unknown as string }, body: [] }],
      want: {
        op: 'listClients',
        check: 'response_headers_conformance',
        seed: 'info',
        reference: 'fail',
        decision: 'D50',
        message: /^GET \/client → 200: no X-Content-Type-Options header; every answer says nosniff \(D50\)$/,
      },
    },
  ],
  [
    'another X-Content-Type-Options value (D50)',
    {
      given: [{ op: 'listClients', status: 200, headers: { 'x-content-type-options': 'sniff' }, body: [] }],
      want: {
        op: 'listClients',
        check: 'response_headers_conformance',
        seed: 'info',
        reference: 'fail',
        decision: 'D50',
        message: /X-Content-Type-Options "sniff"/,
      },
    },
  ],
  [
    'nosniff in capitals is nosniff',
    {
      given: [{ op: 'listClients', status: 200, headers: { 'x-content-type-options': 'NoSniff' }, body: [] }],
      want: { op: 'listClients', check: 'response_headers_conformance', seed: 'pass', reference: 'pass' },
    },
  ],
];

describe('responseChecks', () => {
  test.each(cases)('%s', async (_name, { given, want }) => {
    for (const profile of ['seed', 'reference'] as const) {
      const answers = given.map((a) => ({ ...a, headers: a.headers && Object.fromEntries(Object.entries(a.headers).filter(([, v]) => v !== undefined)) }));
      const ctx = await judge(profile, answers.map(exchange));
      const found = result(ctx, want.op ?? 'createPaymentLink', want.check);
      expect(found?.outcome, `${profile}: ${JSON.stringify(found?.findings.map((f) => f.message))}`).toBe(want[profile]);
      const departure = found?.findings.find((f) => f.outcome !== 'pass');
      if (want.message && departure) expect(departure.message).toMatch(want.message);
      if (want.decision && profile === 'seed') expect(departure?.decision).toBe(want.decision);
      if (departure) expect(departure.exchange, 'a departure names its exchange').toBeDefined();
    }
  });

  test('an exchange without an answer fails not_a_server_error and nothing else', async () => {
    const ctx = await judge('seed', [
      { operationId: 'listClients', request: { method: 'GET', url: 'http://ref.test/client', headers: {} }, error: 'no answer within 5000 ms', ms: 5000 },
    ]);
    expect(ctx.recorder.results(['listClients']).map((r) => [r.check, r.outcome])).toEqual([['not_a_server_error', 'fail']]);
  });

  test('passes are recorded once per operation and check; every departure on its own', async () => {
    const good = exchange({ status: 201, headers: location, body: created });
    const ctx = await judge('reference', [
      good,
      good,
      good,
      exchange({ status: 500, contentType: problemJson, body: example('ProblemInternalError') }),
      exchange({ status: 503, contentType: 'text/plain', body: 'down' }),
    ]);
    const results = ctx.recorder.results(['createPaymentLink']);
    expect(results.find((r) => r.check === 'status_code_conformance')?.findings.map((f) => f.outcome)).toEqual(['pass', 'fail']);
    expect(results.find((r) => r.check === 'not_a_server_error')?.findings.map((f) => f.outcome)).toEqual(['pass', 'fail', 'fail']);
    expect(results.find((r) => r.check === 'response_schema_conformance')?.findings.map((f) => f.outcome)).toEqual(['pass', 'fail']);
  });

  test('operations outside --only are not judged', async () => {
    const ctx = new RunContext({ ...options('reference'), only: ['listClients'] });
    ctx.exchanges.push(exchange({ status: 500, contentType: 'text/plain', body: 'boom' }));
    await responseChecks.run(ctx);
    expect(ctx.recorder.results(['createPaymentLink', 'listClients'])).toEqual([]);
  });
});

test("a timestamp off D35's form: the value, the form D35 writes it in and how many more are the detail, so one fault is one finding", async () => {
  const read = (createdAt: string) =>
    exchange({
      op: 'createWebhook',
      status: 201,
      headers: { location: '/webhook/wbhk_ndvw35rd8w4vqozp8gqwwcxt' },
      body: { ...example<Record<string, unknown>>('WebhookCreated'), createdAt, updatedAt: createdAt },
    });
  const ctx = await judge('reference', [read('2026-11-21T11:30:00-03:00'), read('2026-11-22T09:00:00+00:00')]);
  const findings = result(ctx, 'createWebhook', 'response_schema_conformance')!.findings.filter((f) => f.outcome === 'fail');
  expect(new Set(findings.map((f) => f.message)).size).toBe(1);
  expect(findings.map((f) => f.detail)).toEqual([
    '`/createdAt` is "2026-11-21T11:30:00-03:00", which D35 writes "2026-11-21T14:30:00.000Z", and 1 more',
    '`/createdAt` is "2026-11-22T09:00:00+00:00", which D35 writes "2026-11-22T09:00:00.000Z", and 1 more',
  ]);
});

describe('helpers', () => {
  test.each([
    ['exact code', { given: 201, want: '201' }],
    ['documented error', { given: 422, want: '422' }],
    ['undocumented', { given: 418, want: undefined }],
  ] as Array<[string, { given: number; want: string | undefined }]>)('documentedResponse: %s', (_name, { given, want }) => {
    const op = new RunContext(options('seed')).operation('createPaymentLink');
    expect(documentedResponse(contract, op, given)?.key).toBe(want);
  });

  test.each([
    ['with parameters', { given: 'Application/JSON; charset=utf-8', want: 'application/json' }],
    ['absent', { given: undefined, want: undefined }],
    ['empty', { given: '', want: undefined }],
  ] as Array<[string, { given: string | undefined; want: string | undefined }]>)('mediaTypeOf: %s', (_name, { given, want }) => {
    expect(mediaTypeOf(given)).toBe(want);
  });

  test('decisionsOfErrors reads x-decided and x-decision of the failing schemas', () => {
    const ctx = new RunContext(options('seed'));
    const validate = ctx.full.at('/components/schemas/PaymentLink');
    expect(validate({ ...createdData, id: 'x', devMode: undefined })).toBe(false);
    expect(decisionsOfErrors(validate.errors ?? []).sort()).toEqual(['D13', 'D21']);
    expect(describeErrors(validate.errors ?? [], 1)).toMatch(/\(\+\d+ more\)$/);
  });

  test('an error at items of a list is one text whatever the items and their number; which items they were is the detail', () => {
    const ctx = new RunContext(options('seed'));
    const validate = ctx.full.at('/paths/~1client/get/responses/200/content/application~1json/schema');
    const client = example<Array<Record<string, unknown>>>('ClientList')[0]!;
    const withoutPhone = (n: number) => Array.from({ length: n }, () => ({ ...client, phone: undefined }));
    const described = [3, 56].map((n) => {
      const list = JSON.parse(JSON.stringify(withoutPhone(n))) as unknown;
      expect(validate(list)).toBe(false);
      return { text: describeErrors(validate.errors ?? []), places: errorPlaces(validate.errors ?? []) };
    });
    expect(described).toEqual([
      { text: "/* must have required property 'phone'", places: '/*: at 3 items (0–2)' },
      { text: "/* must have required property 'phone'", places: '/*: at 56 items (0–55)' },
    ]);
    // Items here and there, and an error at no item: ranges and single indices; no detail without an item.
    const mixed = [client, { ...client, phone: undefined }, { ...client, phone: undefined }, client, { ...client, phone: undefined }];
    expect(validate(JSON.parse(JSON.stringify(mixed)))).toBe(false);
    expect(errorPlaces(validate.errors ?? [])).toBe('/*: at 3 items (1, 2, 4)');
    expect(validate({})).toBe(false);
    expect(errorPlaces(validate.errors ?? [])).toBeUndefined();
  });

  test('decisionsOfErrors names the decided allOf on the way to a value whose shared schema carries no mark', () => {
    const ctx = new RunContext(options('seed'));
    const pointer = '/components/schemas/ClientCreateResult';
    const validate = ctx.full.at(pointer);
    const client = {
      id: 'clnt_abc',
      cpfCnpj: '52998224725',
      name: 'Maria',
      email: 'maria@example.com',
      phone: '11987654321',
      status: 'ACTIVE',
      companyId: '0b9e8a4c-2f1d-4c3b-9a57-6e0d1f2a3b4c',
      createdAt: '2026-11-21T14:30:00.000Z',
      updatedAt: '2026-11-21T14:30:00.000Z',
    };
    expect(validate(client)).toBe(false);
    expect(decisionsOfErrors(validate.errors ?? [])).toEqual([]);
    expect(decisionsOfErrors(validate.errors ?? [], { contract: ctx.contract, pointer })).toEqual(['D13']);
  });
});

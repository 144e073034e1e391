/**
 * The error model (D02, D03, D27, D34, D37) across every operation of the contract. The
 * operations are read from the bundled contract, so an operation added to it is covered here
 * without changing this file.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from 'vitest';
import { deref, listOperations, loadBundledContract, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { fillPath, pathPattern } from '../../lib/contract/paths.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { expectNoLeaks, expectProblem, productBody, sendJson, unknownId } from '../test-support/fixtures.js';

const operations = listOperations();
const withBody = operations.filter((op) => op.operation.requestBody !== undefined);
const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

function label(op: ContractOperation): string {
  return `${op.method.toUpperCase()} ${op.path} (${op.operationId})`;
}

/** The operation's path with every parameter filled in. */
function concretePath(op: ContractOperation, value = 'zz0000000000000000000000'): string {
  return fillPath(op.path, value);
}

const templates = operations.map((op) => ({ op, pattern: pathPattern(op.path) }));

/** The methods the contract has for a concrete path (`/charge/payment-link` is also a `/charge/{id}`). */
function allowedAt(path: string): Set<string> {
  return new Set(templates.filter((t) => t.pattern.test(path)).map((t) => t.op.method.toUpperCase()));
}

function allowHeader(response: Response): Set<string> {
  return new Set(
    (response.headers.get('allow') ?? '')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean),
  );
}

/** A request to an operation with the given raw body and headers. */
function call(server: TestServer, op: ContractOperation, init: RequestInit & { apiKey?: string | null } = {}): Promise<Response> {
  return server.request(concretePath(op), { method: op.method.toUpperCase(), ...init });
}

function jsonInit(body: NonNullable<RequestInit['body']>, headers: Record<string, string> = {}): RequestInit {
  return { body, headers: { 'Content-Type': 'application/json', ...headers } };
}

/** The operation's method and, when it must have a body, its first request example: a request whose only fault is the id. */
function validInit(op: ContractOperation): RequestInit {
  const body = deref<JsonObject | undefined>(loadBundledContract(), op.operation.requestBody);
  if (body?.required !== true) return { method: op.method.toUpperCase() };
  const media = (body.content as Record<string, JsonObject>)['application/json']!;
  const first = Object.values((media.examples ?? {}) as Record<string, unknown>)[0];
  return { method: op.method.toUpperCase(), ...jsonInit(JSON.stringify(deref<JsonObject>(loadBundledContract(), first).value)) };
}

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(async () => server.close());
afterEach(() => {
  try {
    expect(server.violations).toEqual([]);
  } finally {
    // Each test answers for its own responses only.
    server.violations.length = 0;
  }
});

test('the contract has the nine operations of the seed, each covered by the tables below (D37)', () => {
  expect(operations.map((op) => op.operationId)).toEqual(
    expect.arrayContaining([
      'createPaymentLink',
      'getCharge',
      'listClients',
      'createClient',
      'getWebhook',
      'createSubscription',
      'updateSubscription',
      'createProduct',
      'createOrder',
    ]),
  );
  expect(withBody.map((op) => op.operationId)).toEqual(
    expect.arrayContaining(['createPaymentLink', 'createClient', 'createSubscription', 'updateSubscription', 'createProduct', 'createOrder']),
  );
  expect(withBody.map((op) => op.operationId)).not.toContain('listClients');
});

describe('authentication (D03)', () => {
  const cases = operations.map((op) => [label(op), op] as const);

  test.for(cases)('%s without X-API-KEY answers 401', async ([, op]) => {
    const response = await call(server, op, { apiKey: null, ...(op.operation.requestBody ? jsonInit('{}') : {}) });
    await expectProblem(response, 401, '/problems/unauthorized', concretePath(op));
  });

  test.for(cases.filter(([, op]) => op.operation.requestBody))('%s without X-API-KEY answers 401 before looking at the body', async ([, op]) => {
    const response = await call(server, op, { apiKey: null, body: '{broken', headers: { 'Content-Type': 'text/plain' } });
    await expectProblem(response, 401, '/problems/unauthorized');
  });

  const wrongKeys: Array<[string, (key: string) => string]> = [
    ['a well-formed key that was never issued', () => `sk_${'a'.repeat(24)}_${'A'.repeat(43)}`],
    ['the key id of a real key with a wrong secret', (key) => `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`],
    ['a truncated key', (key) => key.slice(0, -1)],
    ['a key with an extra character', (key) => `${key}A`],
    ['a malformed key', () => 'not-a-key'],
    ['an empty key', () => ''],
    ['the key behind a Bearer prefix', (key) => `Bearer ${key}`],
    ['the key in lower case', (key) => key.toLowerCase()],
  ];
  const combinations = operations.flatMap((op) => wrongKeys.map(([what, key]) => [`${label(op)} with ${what}`, { op, key }] as const));
  test.for(combinations)('%s answers 401', async ([, { op, key }]) => {
    const wrong = key(server.apiKey);
    expect(wrong).not.toBe(server.apiKey);
    const response = await call(server, op, { apiKey: wrong, ...(op.operation.requestBody ? jsonInit('{}') : {}) });
    await expectProblem(response, 401, '/problems/unauthorized', concretePath(op));
  });

  test('the key of company B is a valid key, for company B', async () => {
    const response = await server.request('/client', { apiKey: server.other.apiKey });
    expect(response.status).toBe(200);
  });
});

describe('request bodies (D34)', () => {
  const ops = withBody.map((op) => [label(op), op] as const);
  const cross = <T>(cases: ReadonlyArray<readonly [string, T]>) =>
    withBody.flatMap((op) => cases.map(([what, given]) => [`${label(op)}: ${what}`, { op, given }] as const));

  const malformed: Array<[string, string]> = [
    ['an unterminated object', '{'],
    ['a missing value', '{"name": }'],
    ['single quotes', "{'name': 'x'}"],
    ['a trailing comma', '{"total": 1000,}'],
    ['text after the value', '{"total": 1000}}'],
    ['a bare word', 'undefined'],
    ['NaN', '{"total": NaN}'],
    ['a comment', '{"total": 1000 /* cents */}'],
    ['a byte order mark before the object (RFC 8259 §8.1)', '\uFEFF{"total": 1000}'],
  ];
  test.for(cross(malformed))('%s is 400 malformed-request', async ([, { op, given }]) => {
    const response = await call(server, op, jsonInit(given));
    await expectProblem(response, 400, '/problems/malformed-request', concretePath(op));
  });
  // A declared length takes the other way of reading the body (read whole): the same answers.
  test.for(cross(malformed))('%s with its Content-Length is 400 malformed-request', async ([, { op, given }]) => {
    const response = await call(server, op, jsonInit(given, { 'Content-Length': String(Buffer.byteLength(given)) }));
    await expectProblem(response, 400, '/problems/malformed-request', concretePath(op));
  });

  // Zero bytes are no body (RFC 9112 §6.3): refused where the body is required, taken as absent
  // where it is optional (server/http/body-less.test.ts sends that over a socket, as curl does).
  const bodyRequired = (op: ContractOperation) => deref<JsonObject>(loadBundledContract(), op.operation.requestBody).required === true;
  const emptyBodies = [
    ['an empty body', { given: '', ops: withBody.filter(bodyRequired) }],
    ['a body of white space', { given: ' \n\t ', ops: withBody }],
  ] as const;
  const emptyCases = emptyBodies.flatMap(([what, { given, ops: among }]) => among.map((op) => [`${label(op)}: ${what}`, { op, given }] as const));
  test.for(emptyCases)('%s is 400 malformed-request', async ([, { op, given }]) => {
    const response = await call(server, op, jsonInit(given));
    await expectProblem(response, 400, '/problems/malformed-request', concretePath(op));
  });

  const mediaTypes: Array<[string, string]> = [
    ['text/plain', 'text/plain'],
    ['text/plain with charset', 'text/plain; charset=utf-8'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=x'],
    ['XML', 'application/xml'],
    ['JSON in Latin-1', 'application/json; charset=iso-8859-1'],
    ['a problem document', 'application/problem+json'],
    ['a JSON patch', 'application/json-patch+json'],
  ];
  test.for(cross(mediaTypes))('%s is 415 unsupported-media-type', async ([, { op, given }]) => {
    const response = await call(server, op, { body: '{}', headers: { 'Content-Type': given } });
    await expectProblem(response, 415, '/problems/unsupported-media-type', concretePath(op));
  });

  test.for(ops)('%s without a Content-Type is 415', async ([, op]) => {
    const response = await call(server, op, { body: new TextEncoder().encode('{}') });
    await expectProblem(response, 415, '/problems/unsupported-media-type', concretePath(op));
  });

  const jsonTypes: Array<[string, string]> = [
    ['a charset of utf-8', 'application/json; charset=utf-8'],
    ['a charset of UTF-8 without space', 'application/json;charset=UTF-8'],
    ['a quoted charset', 'application/json; charset="utf-8"'],
    ['upper-case letters', 'Application/JSON'],
  ];
  // An empty object fails validation where the body has required members; where it has none
  // (simulatePayment) it is valid, so the answer is about the unknown charge (404).
  test.for(cross(jsonTypes))('%s is accepted as JSON (an empty object then fails validation, or finds no record)', async ([, { op, given }]) => {
    const response = await call(server, op, { body: '{}', headers: { 'Content-Type': given } });
    const emptyIsValid = server.deps.validator.at(
      `/paths/${op.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${op.method}/requestBody/content/application~1json/schema`,
    )({});
    if (emptyIsValid) await expectProblem(response, 404, '/problems/not-found', concretePath(op));
    else await expectProblem(response, 422, '/problems/validation-error', concretePath(op));
  });

  const notObjects: Array<[string, string]> = [
    ['an array', '[]'],
    ['an array of an object', '[{}]'],
    ['a number', '42'],
    ['a string', '"text"'],
    ['null', 'null'],
    ['true', 'true'],
  ];
  test.for(cross(notObjects))('%s instead of an object is 422 naming the body', async ([, { op, given }]) => {
    const response = await call(server, op, jsonInit(given));
    const problem = await expectProblem(response, 422, '/problems/validation-error', concretePath(op));
    expect(problem.errors).toContainEqual(expect.objectContaining({ pointer: '', keyword: 'type' }));
  });
});

describe('body size limit (D24, D34)', () => {
  const limit = 2048;
  let small: TestServer;
  beforeAll(async () => {
    small = await createTestServer({ config: { bodyLimitBytes: limit } });
  });
  afterAll(async () => small.close());
  afterEach(() => {
    try {
      expect(small.violations).toEqual([]);
    } finally {
      small.violations.length = 0;
    }
  });

  /** A JSON object of exactly `bytes` bytes (UTF-8) whose text is made of `char`. */
  function jsonOfBytes(bytes: number, char = 'x'): string {
    const frame = '{"name":""}';
    const charBytes = Buffer.byteLength(char);
    const text = `{"name":"${char.repeat(Math.floor((bytes - frame.length) / charBytes))}"}`;
    return text + ' '.repeat(bytes - Buffer.byteLength(text));
  }

  function stream(text: string): ReadableStream<Uint8Array> {
    const bytes = new TextEncoder().encode(text);
    return new ReadableStream({
      start(controller) {
        for (let i = 0; i < bytes.length; i += 500) controller.enqueue(bytes.slice(i, i + 500));
        controller.close();
      },
    });
  }

  const ops = withBody.map((op) => [label(op), op] as const);

  test('the helper builds bodies of the exact size', () => {
    expect(Buffer.byteLength(jsonOfBytes(3000))).toBe(3000);
    expect(Buffer.byteLength(jsonOfBytes(limit))).toBe(limit);
    expect(Buffer.byteLength(jsonOfBytes(limit + 1, 'ç'))).toBe(limit + 1);
    expect(jsonOfBytes(limit + 1, 'ç').length).toBeLessThan(limit);
  });

  test.for(ops)('%s: 3000 bytes with Content-Length is 413', async ([, op]) => {
    const body = jsonOfBytes(3000);
    const response = await call(small, op, jsonInit(body, { 'Content-Length': String(Buffer.byteLength(body)) }));
    await expectProblem(response, 413, '/problems/payload-too-large', concretePath(op));
  });

  test.for(ops)('%s: 3000 bytes streamed without Content-Length is 413', async ([, op]) => {
    const response = await call(small, op, { ...jsonInit(stream(jsonOfBytes(3000))), duplex: 'half' } as RequestInit);
    expect(response.status).toBe(413);
    await expectProblem(response, 413, '/problems/payload-too-large', concretePath(op));
  });

  test.for(ops)('%s: a Content-Length that understates a 3000-byte stream is still 413', async ([, op]) => {
    const response = await call(small, op, { ...jsonInit(stream(jsonOfBytes(3000)), { 'Content-Length': '100' }), duplex: 'half' } as RequestInit);
    await expectProblem(response, 413, '/problems/payload-too-large', concretePath(op));
  });

  test.for(ops)('%s: the limit counts bytes, not characters (fewer characters than the limit, more bytes)', async ([, op]) => {
    const response = await call(small, op, { ...jsonInit(stream(jsonOfBytes(limit + 1, 'ç'))), duplex: 'half' } as RequestInit);
    await expectProblem(response, 413, '/problems/payload-too-large', concretePath(op));
  });

  test.for(ops)('%s: a body of exactly the limit is read (and then validated: 422)', async ([, op]) => {
    const body = jsonOfBytes(limit);
    const response = await call(small, op, jsonInit(body, { 'Content-Length': String(limit) }));
    await expectProblem(response, 422, '/problems/validation-error', concretePath(op));
  });

  test('the default limit is 1 MiB', async () => {
    const op = withBody.find((o) => o.operationId === 'createProduct')!;
    const over = await call(server, op, { ...jsonInit(stream(jsonOfBytes(1_048_577))), duplex: 'half' } as RequestInit);
    await expectProblem(over, 413, '/problems/payload-too-large');
    const at = await call(server, op, jsonInit(jsonOfBytes(1_048_576)));
    await expectProblem(at, 422, '/problems/validation-error');
  });
});

/**
 * Paths one mistake away from the contract's, each named by what the mistake is: a plural, a
 * version prefix, a trailing slash, a path below a record, a record of a collection the
 * contract reads only as a whole (`/client/{id}`). Made from the contract's own paths, so an
 * operation added to it moves its path out of this list instead of into a failing case.
 */
function pathsNearTheContract(): Array<[string, string]> {
  const id = 'zz0000000000000000000000';
  const near = new Map<string, string>();
  for (const template of new Set(operations.map((op) => op.path))) {
    const path = fillPath(template, id);
    const [first] = template.split('/').filter(Boolean);
    near.set(`/${first}s`, `a plural (/${first}s)`);
    near.set(`/v1${path}`, `a versioned ${template}`);
    near.set(`${path}/`, `a trailing slash after ${template}`);
    if (template.includes('{')) near.set(`${path}/items`, `a path below ${template}`);
    else near.set(`${path}/${id}`, `a record of ${template} by id`);
    const withoutLast = template.split('/').slice(0, -1).join('/');
    if (withoutLast !== '') near.set(fillPath(withoutLast, id), `${template} without its last segment`);
  }
  return [...near].filter(([path]) => allowedAt(path).size === 0).map(([path, what]) => [what, path]);
}

describe('paths and methods outside the contract (D37)', () => {
  // GET (and HEAD) of the root is the way to the docs (below); other methods there are unknown.
  const unknownPaths: Array<[string, string, methods?: ReadonlyArray<'GET' | 'POST' | 'DELETE'>]> = [
    ['the root', '/', ['POST', 'DELETE']],
    ['a health check', '/health'],
    ...pathsNearTheContract(),
  ];
  test('the paths near the contract are many, and none of them is a path of the contract', () => {
    expect(unknownPaths.length).toBeGreaterThan(operations.length);
    expect(unknownPaths.filter(([, path]) => allowedAt(path).size > 0)).toEqual([]);
  });
  const unknownCases = unknownPaths.flatMap(([what, path, methods = ['GET', 'POST', 'DELETE'] as const]) =>
    methods.flatMap((method) =>
      (
        [
          ['with a key', undefined],
          ['without a key', null],
        ] as const
      ).map(([auth, apiKey]) => [`${method} ${what} (${path}) ${auth}`, { method, path, apiKey }] as const),
    ),
  );
  test.for(unknownCases)('%s is 404', async ([, { method, path, apiKey }]) => {
    const response = await server.request(path, { method, ...(apiKey === null ? { apiKey: null } : {}), ...(method === 'GET' ? {} : jsonInit('{}')) });
    await expectProblem(response, 404, '/problems/not-found', path);
  });

  // Through the app, not `server.request`: `/` is a page, not an operation the contract checker knows.
  test.for([
    ['GET', 'with an unknown key', { 'X-API-KEY': 'sk_unknown' }],
    ['HEAD', 'with an unknown key', { 'X-API-KEY': 'sk_unknown' }],
    ['GET', 'without a key', {}],
  ] as const)('%s / %s redirects to the docs page (302), no problem', async ([method, , headers]) => {
    const response = await server.app.request('/', { method, headers });
    expect(response.status).toBe(302);
    expect(response.headers.get('Location')).toBe('/docs/');
    expect(await response.text()).toBe('');
  });

  const knownPaths = [...new Set(operations.map((op) => concretePath(op)).concat(['/charge/payment-link']))];
  const wrongMethods = knownPaths.flatMap((path) => {
    const allowed = allowedAt(path);
    return methods.filter((m) => !allowed.has(m)).map((method) => [`${method} ${path}`, { method, path, allowed }] as const);
  });

  test('some method is wrong on every known path', () => {
    expect(new Set(wrongMethods.map(([, c]) => c.path))).toEqual(new Set(knownPaths));
  });

  test.for(wrongMethods)('%s is 405 with an Allow header of the methods the contract has there', async ([, { method, path, allowed }]) => {
    const response = await server.request(path, { method, ...(method === 'GET' || method === 'OPTIONS' ? {} : jsonInit('{}')) });
    await expectProblem(response, 405, '/problems/method-not-allowed', path);
    expect(allowHeader(response)).toEqual(allowed);
  });

  test.for(wrongMethods.filter(([, c]) => c.method === 'DELETE'))('%s is 405 without a key too', async ([, { method, path, allowed }]) => {
    const response = await server.request(path, { method, apiKey: null });
    await expectProblem(response, 405, '/problems/method-not-allowed', path);
    expect(allowHeader(response)).toEqual(allowed);
  });
});

describe('identifiers in the path (D27)', () => {
  const pathOps = operations.filter((op) => op.path.includes('{')).map((op) => [label(op), op] as const);
  const ids: Array<[string, string]> = [
    ['an unknown well-formed id', unknownId('char')],
    ['an id of another kind', unknownId('wbhk')],
    ['a malformed id', 'abc'],
    ['an id of 255 characters', 'a'.repeat(255)],
    ['an encoded slash', '%2F'],
  ];
  const cases = pathOps.flatMap(([name, op]) => ids.map(([what, id]) => [`${name} with ${what}`, { op, id }] as const));
  test.for(cases)('%s is 404', async ([, { op, id }]) => {
    const response = await server.request(concretePath(op, id), validInit(op));
    await expectProblem(response, 404, '/problems/not-found');
  });

  const longIds = pathOps.flatMap(([name, op]) =>
    (
      [
        ['an id of 256 characters', 'a'.repeat(256)],
        ['an id of 2000 characters', 'b'.repeat(2000)],
      ] as const
    ).map(([what, id]) => [`${name} with ${what}`, { op, id }] as const),
  );
  test.for(longIds)('%s is 404 like every malformed id (no 422 for the id)', async ([, { op, id }]) => {
    const response = await server.request(concretePath(op, id), validInit(op));
    await expectProblem(response, 404, '/problems/not-found', concretePath(op, id));
  });

  const encoded: Array<[string, { given: string; want: number }]> = [
    ['an encoded space in a path id', { given: '/webhook/a%20b', want: 404 }],
    ['an encoded space in a charge id', { given: '/charge/%20', want: 404 }],
    ['an encoded non-ASCII letter', { given: '/charge/a%C3%A7b', want: 404 }],
    ['encoded spaces in an unknown path', { given: '/no%20such%20path', want: 404 }],
    ['an encoded quote in an unknown path', { given: '/client/%22x%22', want: 404 }],
  ];
  test.for(encoded)('instance stays a URI reference, the path as sent (D02): %s', async ([, { given, want }]) => {
    const response = await server.request(given);
    await expectProblem(response, want, '/problems/not-found', given);
  });
});

describe('unexpected faults (D02)', () => {
  const secret = 'database exploded: password=hunter2 at SqliteStore.insert (/work/main/server/store/sqlite/sqlite-store.ts:42:7)';

  // The store methods these requests reach (a union of every method is too complex for vi.spyOn's types).
  type StoreMethod = Extract<
    keyof TestServer['deps']['store'],
    | 'findApiKey'
    | 'getChargeJson'
    | 'getProducts'
    | 'getSubscription'
    | 'getWebhook'
    | 'insertCharge'
    | 'insertClient'
    | 'insertOrder'
    | 'insertProduct'
    | 'listPageJson'
  >;
  const faults: Array<[string, { given: { method: string; path: string; body?: unknown; fails: StoreMethod; sync?: boolean }; want: number }]> = [
    ['GET /client when the store rejects', { given: { method: 'GET', path: '/client', fails: 'listPageJson' }, want: 500 }],
    [
      'POST /client when the store throws synchronously',
      {
        given: {
          method: 'POST',
          path: '/client',
          body: { name: 'Maria', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'm@example.com', phone: '11987654321' },
          fails: 'insertClient',
          sync: true,
        },
        want: 500,
      },
    ],
    ['POST /product when the store rejects', { given: { method: 'POST', path: '/product', body: productBody(), fails: 'insertProduct' }, want: 500 }],
    [
      'POST /subscription when the store rejects',
      {
        given: {
          method: 'POST',
          path: '/subscription',
          body: { productId: unknownId('prod'), period: 'MONTHLY', price: 10, trialDays: 0 },
          fails: 'getProducts',
        },
        want: 500,
      },
    ],
    [
      'PUT /subscription when the store rejects',
      { given: { method: 'PUT', path: '/subscription', body: { id: unknownId('subs'), status: 'ACTIVE' }, fails: 'getSubscription' }, want: 500 },
    ],
    ['POST /order when the store rejects', { given: { method: 'POST', path: '/order', body: { subtotal: 10, total: 10 }, fails: 'insertOrder' }, want: 500 }],
    [
      'POST /charge/payment-link when the store rejects',
      { given: { method: 'POST', path: '/charge/payment-link', body: { total: 1000 }, fails: 'insertCharge' }, want: 500 },
    ],
    ['GET /charge/{id} when the store rejects', { given: { method: 'GET', path: `/charge/${unknownId('char')}`, fails: 'getChargeJson' }, want: 500 }],
    ['GET /webhook/{id} when the store rejects', { given: { method: 'GET', path: `/webhook/${unknownId('wbhk')}`, fails: 'getWebhook' }, want: 500 }],
    ['any operation when the API key lookup rejects', { given: { method: 'GET', path: '/client', fails: 'findApiKey' }, want: 500 }],
  ];
  test.for(faults)('%s answers a 500 problem without the message or the stack', async ([, { given, want }]) => {
    const own = await createTestServer();
    try {
      const error = new Error(secret);
      const spy = given.sync
        ? vi.spyOn(own.deps.store, given.fails).mockImplementation(() => {
            throw error;
          })
        : vi.spyOn(own.deps.store, given.fails).mockRejectedValue(error);
      const response =
        given.body === undefined
          ? await own.request(given.path, { method: given.method })
          : (await sendJson(own, given.method, given.path, given.body)).response;
      expect(spy).toHaveBeenCalled();
      const problem = await expectProblem(response, want, '/problems/internal-error', given.path);
      const text = JSON.stringify(problem);
      for (const leak of ['database exploded', 'hunter2', 'SqliteStore', 'sqlite-store', error.stack!.split('\n')[1]!.trim()]) expect(text).not.toContain(leak);
      expectNoLeaks(text);
      expect(own.violations).toEqual([]);
    } finally {
      vi.restoreAllMocks();
      await own.close();
    }
  });

  test('a 500 names the request id that the X-Request-Id header carries, so it can be reported', async () => {
    const own = await createTestServer();
    try {
      vi.spyOn(own.deps.store, 'listPageJson').mockRejectedValue(new TypeError(secret));
      const response = await own.request('/client');
      const problem = await expectProblem(response, 500, '/problems/internal-error', '/client');
      const requestId = response.headers.get('x-request-id');
      expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(problem.detail).toContain(requestId);
      expect(own.violations).toEqual([]);
    } finally {
      vi.restoreAllMocks();
      await own.close();
    }
  });

  // SERVER BUG: a rejection with something that is not an Error (here a string) escapes
  // app.onError, because Hono only routes `instanceof Error` there: app.fetch rejects, and under
  // @hono/node-server the client gets a bare 500 with an empty body instead of the
  // application/problem+json that D02 requires for every error.
  test('a rejection with a non-Error value still answers a 500 problem', async () => {
    const own = await createTestServer();
    try {
      vi.spyOn(own.deps.store, 'listPageJson').mockRejectedValue(secret);
      const response = await own.request('/client');
      await expectProblem(response, 500, '/problems/internal-error', '/client');
    } finally {
      vi.restoreAllMocks();
      await own.close();
    }
  });
});

/**
 * Idempotency-Key on POST /charge/payment-link (decision D10 of openapi/DECISIONS.md and the
 * `IdempotencyKey` parameter of the contract): replays byte for byte with
 * `Idempotent-Replayed: true`, 422 for a reused key with another body, 409 while the first
 * request is in flight, per-company scope, only 2xx remembered, retention, key format.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, test, vi } from 'vitest';
import {
  createProduct,
  created,
  customers,
  fakeClock,
  postPaymentLink,
  problem,
  read,
  unknownId,
  type FakeClock,
  type PostOptions,
  type RawAnswer,
} from '../test-support/fixtures.js';
import { createTestServer, type TestServer, type TestServerOptions } from '../test-support/harness.js';

const START = '2026-11-21T14:30:00.000Z';
const SECOND = 1_000;
const DAY = 86_400 * SECOND;

let server: TestServer;
let clock: FakeClock;
let tempDir: string | undefined;

/** A fresh server for one test, on a fake clock; `onDisk` puts its database in a file the test can count rows in. */
async function start(options: { config?: TestServerOptions['config']; onDisk?: boolean } = {}): Promise<void> {
  clock = fakeClock(START);
  let databasePath: string | undefined;
  if (options.onDisk) {
    tempDir = mkdtempSync(join(tmpdir(), 'idempotency-test-'));
    databasePath = join(tempDir, 'payments.db');
  }
  server = await createTestServer({ now: clock.now, ...(options.config ? { config: options.config } : {}), ...(databasePath ? { databasePath } : {}) });
}

afterEach(async () => {
  try {
    expect(server.violations).toEqual([]);
  } finally {
    await server.close();
    if (tempDir) rmSync(tempDir, { recursive: true, force: true });
    tempDir = undefined;
  }
});

/** Charges of a company as the database holds them (independent of the HTTP layer). */
function chargesInDatabase(companyId: string): number {
  if (!tempDir) throw new Error('start({ onDisk: true }) first');
  const db = new Database(join(tempDir, 'payments.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM charges WHERE company_id = ?').get(companyId)!.n;
  } finally {
    db.close();
  }
}

function post(body: unknown, options: PostOptions = {}): Promise<RawAnswer> {
  return postPaymentLink(server, body, options);
}

/** A replay: 201, the first answer's exact bytes and Location, and `Idempotent-Replayed: true`. */
function expectReplayOf(answer: RawAnswer, first: RawAnswer): void {
  expect(answer.status).toBe(first.status);
  expect(answer.text).toBe(first.text);
  expect(answer.headers.get('idempotent-replayed')).toBe('true');
  expect(answer.headers.get('location')).toBe(first.headers.get('location'));
  expect(answer.headers.get('content-type')).toBe(first.headers.get('content-type'));
}

/** A first answer, not a replay. */
function expectFresh(answer: RawAnswer): string {
  const id = created(answer).data.id;
  expect(answer.headers.get('idempotent-replayed')).toBeNull();
  return id;
}

async function chargeStatus(id: string, apiKey?: string): Promise<number> {
  return (await server.request(`/charge/${id}`, apiKey === undefined ? {} : { apiKey })).status;
}

const body = { total: 12990, customer: customers.maria, externalId: 'pedido-2026-000123' };

describe('a retry with the same key and body', () => {
  test('gets the same status and byte-identical body with Idempotent-Replayed: true; one charge exists', async () => {
    await start({ onDisk: true });
    const inserts = vi.spyOn(server.deps.store, 'insertCharge');

    const first = await post(body, { key: 'order-123' });
    const id = expectFresh(first);
    clock.advance(30 * SECOND);
    const second = await post(body, { key: 'order-123' });
    const third = await post(body, { key: 'order-123' });
    expectReplayOf(second, first);
    expectReplayOf(third, first);

    expect(inserts).toHaveBeenCalledTimes(1);
    expect(chargesInDatabase(server.companyId)).toBe(1);
    expect(await chargeStatus(id)).toBe(200);
    // The customer was created once, too.
    expect((await server.api.GET('/client')).data?.map((c) => c.taxId)).toEqual([customers.maria.taxId]);
  });

  test("a body that differs only in the punctuation of the customer's numbers is the same request (D46)", async () => {
    await start();
    const first = await post(body, { key: 'order-124' });
    expectFresh(first);
    const punctuated = { ...body, customer: { ...customers.maria, taxId: '529.982.247-25', phone: '(11) 98765-4321', postalCode: '01310-100' } };
    expectReplayOf(await post(punctuated, { key: 'order-124' }), first);
    expect((await server.api.GET('/client')).data).toHaveLength(1);
  });

  test('without a key, the same body creates a new charge each time', async () => {
    await start();
    const ids = [expectFresh(await post(body)), expectFresh(await post(body))];
    expect(new Set(ids).size).toBe(2);
    // Two charges; their customer is one client, reused by tax number (D48).
    expect((await server.api.GET('/client')).data).toHaveLength(1);
  });

  const formCases: Array<[string, { given: [string, string] }]> = [
    ['bare, then quoted', { given: ['abc', '"abc"'] }],
    ['quoted, then bare', { given: ['"abc"', 'abc'] }],
    ['quoted both times', { given: ['"abc"', '"abc"'] }],
    ['a UUID bare, then quoted', { given: ['8e03978e-40d5-43e8-bc93-6894a57f9324', '"8e03978e-40d5-43e8-bc93-6894a57f9324"'] }],
  ];

  test.each(formCases)('the quoted form "k" is the same key as bare k: %s', async (_name, { given: [firstKey, secondKey] }) => {
    await start();
    const first = await post(body, { key: firstKey });
    expectFresh(first);
    expectReplayOf(await post(body, { key: secondKey }), first);
    // and so a different body under the other form is a reuse
    const reused = problem(await post({ total: 500 }, { key: secondKey }), 422);
    expect(reused.type).toBe('/problems/idempotency-key-reused');
  });

  test('keys are case-sensitive: "ABC" is not "abc"', async () => {
    await start();
    const a = expectFresh(await post(body, { key: 'abc' }));
    const b = expectFresh(await post(body, { key: 'ABC' }));
    expect(a).not.toBe(b);
  });

  const orderCases: Array<[string, { given: [string, string] }]> = [
    ['top-level field order', { given: ['{"total":1000,"externalId":"x","devMode":true}', '{"devMode":true,"externalId":"x","total":1000}'] }],
    ['whitespace and field order', { given: ['{"total":1000,"externalId":"x"}', '{\n  "externalId" : "x",\n  "total" : 1000\n}\n'] }],
    [
      'field order inside customer',
      {
        given: [
          '{"total":1000,"customer":{"name":"João Pereira","taxId":"11144477735","email":"joao@example.com","phone":"2134567890"}}',
          '{"customer":{"phone":"2134567890","email":"joao@example.com","taxId":"11144477735","name":"João Pereira"},"total":1000}',
        ],
      },
    ],
    ['the same number written differently', { given: ['{"total":1000}', '{"total":1.0e3}'] }],
    ['the same text escaped differently', { given: ['{"total":1000,"externalId":"é"}', '{"total":1000,"externalId":"\\u00e9"}'] }],
  ];

  test.each(orderCases)('does not depend on %s', async (_name, { given: [firstText, secondText] }) => {
    await start();
    const inserts = vi.spyOn(server.deps.store, 'insertCharge');
    const first = await post(undefined, { key: 'same-request', text: firstText });
    expectFresh(first);
    expectReplayOf(await post(undefined, { key: 'same-request', text: secondText }), first);
    expect(inserts).toHaveBeenCalledTimes(1);
  });
});

describe('the same key with a different body', () => {
  const cases: Array<[string, { given: (productIds: [string, string]) => [unknown, unknown] }]> = [
    ['another total', { given: () => [{ total: 1000 }, { total: 1001 }] }],
    ['an added field', { given: () => [{ total: 1000 }, { total: 1000, externalId: 'x' }] }],
    ['a removed field', { given: () => [{ total: 1000, externalId: 'x' }, { total: 1000 }] }],
    [
      'another value of a nested field',
      {
        given: () => [
          { total: 1000, customer: customers.joao },
          { total: 1000, customer: { ...customers.joao, phone: '2134567891' } },
        ],
      },
    ],
    ['another item quantity', { given: ([a]) => [{ items: [{ productId: a, quantity: 1 }] }, { items: [{ productId: a, quantity: 2 }] }] }],
    [
      'the same items in another order',
      {
        given: ([a, b]) => [
          {
            items: [
              { productId: a, quantity: 1 },
              { productId: b, quantity: 1 },
            ],
          },
          {
            items: [
              { productId: b, quantity: 1 },
              { productId: a, quantity: 1 },
            ],
          },
        ],
      },
    ],
    [
      'devMode true instead of false',
      {
        given: () => [
          { total: 1000, devMode: false },
          { total: 1000, devMode: true },
        ],
      },
    ],
  ];

  test.each(cases)('is refused with 422 idempotency-key-reused: %s', async (_name, { given }) => {
    await start();
    const a = await createProduct(server.api, { price: 10, sku: 'A' });
    const b = await createProduct(server.api, { price: 20, sku: 'B' });
    const [firstBody, secondBody] = given([a.id, b.id]);
    const inserts = vi.spyOn(server.deps.store, 'insertCharge');

    const first = await post(firstBody, { key: 'k-1' });
    expectFresh(first);
    const reused = problem(await post(secondBody, { key: 'k-1' }), 422);
    expect(reused).toMatchObject({ type: '/problems/idempotency-key-reused', title: 'Idempotency-Key reused', status: 422, instance: '/charge/payment-link' });

    // The key still belongs to the first request.
    expectReplayOf(await post(firstBody, { key: 'k-1' }), first);
    expect(inserts).toHaveBeenCalledTimes(1);
  });
});

describe('keys are scoped to the company', () => {
  test("company B may use company A's key and gets its own charge", async () => {
    await start({ onDisk: true });
    const a = await post(body, { key: 'shared-key' });
    const aId = expectFresh(a);

    const b = await post(body, { key: 'shared-key', apiKey: server.other.apiKey });
    const bId = expectFresh(b);
    expect(bId).not.toBe(aId);
    expect(await chargeStatus(bId, server.other.apiKey)).toBe(200);
    expect(await chargeStatus(bId)).toBe(404);

    // B replays its own answer; A still replays its own.
    expectReplayOf(await post(body, { key: 'shared-key', apiKey: server.other.apiKey }), b);
    expectReplayOf(await post(body, { key: 'shared-key' }), a);
    expect(chargesInDatabase(server.companyId)).toBe(1);
    expect(chargesInDatabase(server.other.companyId)).toBe(1);
  });

  test("company B may use company A's key with another body", async () => {
    await start();
    expectFresh(await post({ total: 1000 }, { key: 'shared-key' }));
    expectFresh(await post({ total: 2000 }, { key: 'shared-key', apiKey: server.other.apiKey }));
  });
});

describe('only successful responses are remembered', () => {
  const cases: Array<[string, { given: { body?: unknown; options?: Omit<PostOptions, 'key'> }; want: number }]> = [
    ['a validation error (total 100)', { given: { body: { total: 100 } }, want: 422 }],
    ['an unknown product (refused after the key was claimed)', { given: { body: { items: [{ productId: unknownId('prod'), quantity: 1 }] } }, want: 422 }],
    ['an unknown customerId (refused after the key was claimed)', { given: { body: { total: 1000, customerId: unknownId('clnt') } }, want: 422 }],
    ['malformed JSON', { given: { options: { text: '{"total": 1000,' } }, want: 400 }],
    ['no API key', { given: { body: { total: 1000 }, options: { apiKey: null } }, want: 401 }],
  ];

  test.each(cases)('after %s the key is still free', async (_name, { given, want }) => {
    await start();
    const failed = await post(given.body, { key: 'retry-me', ...given.options });
    expect(failed.status, failed.text).toBe(want);
    expect(failed.headers.get('idempotent-replayed')).toBeNull();

    // The same failing request fails again (not replayed), and a corrected one succeeds.
    const again = await post(given.body, { key: 'retry-me', ...given.options });
    expect(again.status).toBe(want);
    expect(again.headers.get('idempotent-replayed')).toBeNull();

    const fixed = await post({ total: 1000 }, { key: 'retry-me' });
    expectFresh(fixed);
    expectReplayOf(await post({ total: 1000 }, { key: 'retry-me' }), fixed);
  });
});

describe('retention', () => {
  const cases: Array<[string, { given: { ttlSeconds?: number; advanceMs: number }; want: 'replay' | 'free' }]> = [
    ['ttl 60 s: 59.999 s later the key is remembered', { given: { ttlSeconds: 60, advanceMs: 59_999 }, want: 'replay' }],
    ['ttl 60 s: 60 s later the key is free', { given: { ttlSeconds: 60, advanceMs: 60_000 }, want: 'free' }],
    ['ttl 60 s: a day later the key is free', { given: { ttlSeconds: 60, advanceMs: DAY }, want: 'free' }],
    ['ttl 1 s: 2 s later the key is free', { given: { ttlSeconds: 1, advanceMs: 2_000 }, want: 'free' }],
    ['default (D10, 24 h): 1 ms before 24 h the key is remembered', { given: { advanceMs: DAY - 1 }, want: 'replay' }],
    ['default (D10, 24 h): 24 h later the key is free', { given: { advanceMs: DAY }, want: 'free' }],
  ];

  test.each(cases)('%s', async (_name, { given, want }) => {
    await start(given.ttlSeconds === undefined ? {} : { config: { idempotencyTtlSeconds: given.ttlSeconds } });
    const first = await post(body, { key: 'ttl-key' });
    const firstId = expectFresh(first);
    clock.advance(given.advanceMs);

    const later = await post(body, { key: 'ttl-key' });
    if (want === 'replay') {
      expectReplayOf(later, first);
    } else {
      const laterId = expectFresh(later);
      expect(laterId).not.toBe(firstId);
      // The key now belongs to the new request.
      expectReplayOf(await post(body, { key: 'ttl-key' }), later);
    }
  });

  test('after the retention the key may be used with another body', async () => {
    await start({ config: { idempotencyTtlSeconds: 60 } });
    expectFresh(await post({ total: 1000 }, { key: 'ttl-key' }));
    expect((await post({ total: 2000 }, { key: 'ttl-key' })).status).toBe(422);
    clock.advance(61 * SECOND);
    const answer = created(await post({ total: 2000 }, { key: 'ttl-key' }));
    expect(answer.data.total).toBe(2000);
  });
});

describe('concurrent requests', () => {
  test('a request while the first with its key is in flight is 409; afterwards it is a replay', async () => {
    await start();
    const store = server.deps.store;
    const insertCharge = store.insertCharge.bind(store);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const inserts = vi.spyOn(store, 'insertCharge').mockImplementationOnce(async (...args) => {
      await gate;
      return insertCharge(...args);
    });

    const firstPending = post(body, { key: 'slow' });
    await vi.waitFor(() => expect(inserts).toHaveBeenCalledTimes(1));

    const inFlight = problem(await post(body, { key: 'slow' }), 409);
    expect(inFlight).toMatchObject({
      type: '/problems/idempotency-request-in-progress',
      title: 'Idempotent request in progress',
      status: 409,
      instance: '/charge/payment-link',
    });
    // Another body with the key in flight is still a reuse.
    expect(problem(await post({ total: 1000 }, { key: 'slow' }), 422).type).toBe('/problems/idempotency-key-reused');
    // Other keys are not blocked.
    expectFresh(await post(body, { key: 'fast' }));

    release();
    const first = await firstPending;
    expectFresh(first);
    expectReplayOf(await post(body, { key: 'slow' }), first);
    expect(inserts).toHaveBeenCalledTimes(2);
  });

  test('64 concurrent requests with one key and one body create exactly one charge', async () => {
    await start({ onDisk: true });
    const answers = await Promise.all(Array.from({ length: 64 }, () => post(body, { key: 'burst' })));

    const fresh = answers.filter((a) => a.status === 201 && a.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    const original = fresh[0]!;
    for (const answer of answers) {
      if (answer === original) continue;
      if (answer.status === 201) {
        expectReplayOf(answer, original);
      } else {
        expect(problem(answer, 409).type).toBe('/problems/idempotency-request-in-progress');
      }
    }

    expect(chargesInDatabase(server.companyId)).toBe(1);
    expect((await server.api.GET('/client')).data).toHaveLength(1);
    // A retry after the burst is a replay.
    expectReplayOf(await post(body, { key: 'burst' }), original);
  });

  test('64 concurrent requests with 64 keys create 64 distinct charges', async () => {
    await start({ onDisk: true });
    const answers = await Promise.all(Array.from({ length: 64 }, (_, i) => post({ total: 1000 + i }, { key: `key-${i}` })));

    const ids = answers.map(expectFresh);
    expect(new Set(ids).size).toBe(64);
    expect(answers.map((a) => created(a).data.total)).toEqual(Array.from({ length: 64 }, (_, i) => 1000 + i));
    expect(chargesInDatabase(server.companyId)).toBe(64);
    for (const id of ids) expect(await chargeStatus(id)).toBe(200);
  });
});

describe('the key format (D10: 1–255 printable characters, bare or quoted; spaces only inside quotes)', () => {
  const invalid: Array<[string, { given: string }]> = [
    ['258 characters', { given: 'k'.repeat(258) }],
    ['a quoted key with 256 characters inside', { given: `"${'k'.repeat(256)}"` }],
    ['a space inside', { given: 'abc def' }],
    ['a double quote inside a bare key', { given: 'abc"def' }],
    ['a tab inside', { given: 'abc\tdef' }],
    ['a non-ASCII character', { given: 'chave-ç' }],
    ['an empty header', { given: '' }],
    // D10 allows 1–255 characters: the quotes of the structured-field form are not part of the key.
    ['256 characters bare', { given: 'k'.repeat(256) }],
    ['an empty quoted key', { given: '""' }],
  ];

  test.each(invalid)('422 naming the header Idempotency-Key: %s', async (_name, { given }) => {
    await start();
    const inserts = vi.spyOn(server.deps.store, 'insertCharge');
    const p = problem(await post(body, { key: given }), 422);
    expect(p.type).toBe('/problems/validation-error');
    expect(p.errors?.length).toBeGreaterThan(0);
    expect([...new Set(p.errors?.map((e) => e.header))]).toEqual(['Idempotency-Key']);
    expect(p.detail).toContain('Idempotency-Key');
    expect(inserts).not.toHaveBeenCalled();
  });

  const valid: Array<[string, { given: string }]> = [
    ['one character', { given: 'a' }],
    ['255 characters', { given: 'k'.repeat(255) }],
    ['a quoted key of 255 characters', { given: `"${'k'.repeat(255)}"` }],
    ['a UUID', { given: '8e03978e-40d5-43e8-bc93-6894a57f9324' }],
    ['every visible ASCII symbol', { given: "!#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" }],
    ['a space inside a quoted key (a structured-field string may hold spaces)', { given: '"abc def"' }],
  ];

  test.each(valid)('accepted and replayed: %s', async (_name, { given }) => {
    await start();
    const first = await post(body, { key: given });
    expectFresh(first);
    expectReplayOf(await post(body, { key: given }), first);
  });
});

describe('GET is not affected by the key', () => {
  test('a replayed answer names a charge that GET /charge/{id} returns', async () => {
    await start();
    const first = await post(body, { key: 'get-me' });
    const replay = await post(body, { key: 'get-me' });
    const location = replay.headers.get('location');
    expect(location).toBe(`/charge/${created(first).data.id}`);
    const charge = await read(await server.request(location!));
    expect(charge.status).toBe(200);
  });
});

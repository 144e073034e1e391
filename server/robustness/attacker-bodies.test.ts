/**
 * Bodies an attacker crafts to cost the server CPU (D49): arrays far past their `maxItems` (whose
 * items Ajv would check one by one and compare pairwise for `uniqueItems`), a megabyte of unknown
 * fields, strings past their `maxLength` against a pattern. Each is sent over raw TCP to the
 * compiled server in production mode, and while it is answered another company's ordinary read
 * is sent on another connection: both are answered at once, the crafted one with a small 422 that
 * lists at most 20 field errors and counts the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { exchange, get, rawRequest } from '../test-support/raw-http.js';
import { createCompanyKey, dropChildSchemas, freePort, killAll, listening, startBuiltServer } from '../test-support/processes.js';

// One server for every case (`useChildProcesses` would stop it after each).
let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'pix-attacker-bodies-'));
});
afterAll(async () => {
  await killAll();
  rmSync(folder, { recursive: true, force: true });
  dropChildSchemas();
});

const MB = 1 << 20;
/** Far longer than either answer may take here (the crafted bodies cost 4 to 18 s before D49's bounds). */
const PROMPT_MS = 3_000;

const crafted: Array<[string, { path: string; body: () => unknown; pointer: string; omitted: boolean; keyword?: string }]> = [
  [
    "86,000 short strings in a webhook's events (uniqueItems)",
    {
      path: '/webhook',
      body: () => ({ url: 'https://a.example', name: 'x', events: Array.from({ length: 86_000 }, (_, i) => `e${i}`) }),
      pointer: '/events',
      omitted: false,
    },
  ],
  [
    "20,000 small objects in a webhook's events",
    {
      path: '/webhook',
      body: () => ({ url: 'https://a.example', name: 'x', events: Array.from({ length: 20_000 }, (_, i) => ({ a: i })) }),
      pointer: '/events',
      omitted: false,
    },
  ],
  [
    'a megabyte of unknown fields in a payment link',
    {
      path: '/charge/payment-link',
      body: () => Object.fromEntries(Array.from({ length: 36_000 }, (_, i) => [`k${i}xxxxxxxxxxxxxxxxxx`, 1])),
      // Refused by the shape scan before parsing (D49): one error, at the object with too many fields.
      pointer: '',
      omitted: false,
      keyword: 'maxProperties',
    },
  ],
  [
    '25,000 items in a payment link',
    {
      path: '/charge/payment-link',
      body: () => ({ items: Array.from({ length: 25_000 }, () => ({ productId: 'prod_x', quantity: 1 })) }),
      pointer: '/items',
      omitted: true,
    },
  ],
  [
    'a megabyte-long phone against its pattern',
    {
      path: '/charge/payment-link',
      body: () => ({ total: 1000, customer: { name: 'a', email: 'a@b.co', taxId: '52998224725', phone: '1 '.repeat(MB / 2 - 64) } }),
      pointer: '/customer/phone',
      omitted: false,
    },
  ],
  ['a field name a megabyte long', { path: '/charge/payment-link', body: () => ({ total: 1000, ['k'.repeat(MB - 64)]: 1 }), pointer: '', omitted: false }],
];

describe('crafted bodies cost the server no more than an ordinary request (D49)', () => {
  let port: number;
  let attackerKey: string;
  let otherKey: string;
  beforeAll(async () => {
    port = await freePort();
    const databasePath = join(folder, 'attacker', 'payments.db');
    const server = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(port), NODE_ENV: 'production', RATE_LIMIT_REQUESTS: '0' });
    await listening(server);
    // Production makes no company of its own: both are made as an operator makes them.
    attackerKey = (await createCompanyKey({ DATABASE_PATH: databasePath }, 'Attacker company')).apiKey;
    otherKey = (await createCompanyKey({ DATABASE_PATH: databasePath }, 'Another company')).apiKey;
  });

  test.each(crafted)(
    '%s: a 422 under 16 KiB with at most 20 errors, and another company is served meanwhile',
    async (_, { path, body, pointer, omitted, keyword }) => {
      const text = JSON.stringify(body());
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MB);
      const attack = exchange(
        port,
        rawRequest('POST', path, { 'X-API-KEY': attackerKey, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(text)) }, text),
        { waitMs: 30_000 },
      );
      // Another company's read, on its own connection, once the attack is on its way.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const sent = performance.now();
      const read = await exchange(port, get('/client', { 'X-API-KEY': otherKey }), { waitMs: 30_000 });
      const readMs = performance.now() - sent;
      expect(read.status, read.raw.slice(0, 300)).toBe(200);
      expect(readMs, 'the other company waited on the crafted request').toBeLessThan(PROMPT_MS);

      const answer = await attack;
      expect(answer.status, answer.raw.slice(0, 300)).toBe(422);
      expect(answer.ms).toBeLessThan(PROMPT_MS + 2_000);
      expect(Buffer.byteLength(answer.body)).toBeLessThan(16 * 1024);
      const problem = JSON.parse(Buffer.from(answer.body, 'latin1').toString('utf8')) as {
        errors: Array<{ pointer?: string }>;
        omittedErrors?: number;
        detail: string;
      };
      expect(problem.errors.length).toBeGreaterThan(0);
      expect(problem.errors.length).toBeLessThanOrEqual(20);
      if (keyword !== undefined) expect(problem.errors).toEqual([expect.objectContaining({ pointer, keyword })]);
      else expect(problem.errors.map((e) => e.pointer)).toEqual(expect.arrayContaining([pointer === '' ? expect.stringMatching(/^\/k+…$/) : pointer]));
      if (omitted) expect(problem.omittedErrors).toBeGreaterThan(0);
      expect(problem.detail.length).toBeLessThanOrEqual(2048);
    },
  );
});

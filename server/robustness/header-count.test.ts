/**
 * The header limits of D34 hold for many small header fields too, against the compiled server
 * over raw TCP, as an attacker sends them. Node keeps only so many fields of a request
 * (`maxHeadersCount`) and drops the rest without a word, and joins repeated names into one value,
 * so a limit judged on what Hono sees let through 3,000 fields of 10 bytes (30 KB): the fields
 * are now counted and measured as sent (`rawHeaders`), at most 100 fields and 16 KiB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_HEADER_BYTES, MAX_HEADER_COUNT, NODE_MAX_HEADER_BYTES } from '../http/request-limits.js';
import { exchange, type Exchange } from '../test-support/raw-http.js';
import { dropChildSchemas, freePort, killAll, listening, createCompanyKey, startBuiltServer, type Running } from '../test-support/processes.js';

let folder: string;
let running: Running;
let port: number;
let apiKey: string;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'pix-header-count-'));
  port = await freePort();
  running = startBuiltServer({ DATABASE_PATH: join(folder, 'payments.db'), PORT: String(port), NODE_ENV: 'production', RATE_LIMIT_REQUESTS: '0' });
  await listening(running);
  apiKey = (await createCompanyKey({ DATABASE_PATH: join(folder, 'payments.db') })).apiKey;
});
afterAll(async () => {
  await killAll();
  rmSync(folder, { recursive: true, force: true });
  dropChildSchemas();
});

/** `count` field lines of exactly `bytes` bytes each (`x12: vvv…\r\n`), all names different. */
function fields(count: number, bytes: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `x${i}`;
    return `${name}: ${'v'.repeat(Math.max(1, bytes - name.length - 4))}\r\n`;
  });
}

/** A GET /client with the key (three fields: Host, Connection, X-API-KEY) and these field lines after them. */
function request(lines: string[]): string {
  return `GET /client HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-API-KEY: ${apiKey}\r\n${lines.join('')}\r\n`;
}

function expect431(answer: Exchange, limit: RegExp): void {
  expect(answer.status, answer.raw.slice(0, 400)).toBe(431);
  expect(answer.headers['content-type']).toBe('application/problem+json');
  expect(answer.headers['x-content-type-options']).toBe('nosniff');
  const problem = JSON.parse(answer.body) as { type: string; status: number; detail: string };
  expect(problem).toMatchObject({ type: '/problems/header-fields-too-large', status: 431 });
  expect(problem.detail).toMatch(limit);
}

const overCount = new RegExp(`more than ${MAX_HEADER_COUNT} header fields; at most ${MAX_HEADER_COUNT}`);
const overBytes = new RegExp(`at most ${MAX_HEADER_BYTES} are served`);

describe('many small header fields (D34)', () => {
  const cases: Array<[string, { lines: () => string[]; want: { status: 200 } | { status: 431; limit: RegExp } }]> = [
    ['3,000 fields of 10 bytes (30 KB)', { lines: () => fields(3_000, 10), want: { status: 431, limit: overCount } }],
    ['600 fields of 40 bytes (24 KB)', { lines: () => fields(600, 40), want: { status: 431, limit: overCount } }],
    [
      '1,500 repeats of one name (joined into one value by Node)',
      { lines: () => Array.from({ length: 1_500 }, () => 'X-Dup: vvvvvvvvvvvvvvvvvvvv\r\n'), want: { status: 431, limit: overCount } },
    ],
    ['90 fields of 200 bytes (18 KB, under the count)', { lines: () => fields(90, 200), want: { status: 431, limit: overBytes } }],
    [`${MAX_HEADER_COUNT + 1} fields in all`, { lines: () => fields(MAX_HEADER_COUNT - 2, 20), want: { status: 431, limit: overCount } }],
    [`${MAX_HEADER_COUNT} fields in all`, { lines: () => fields(MAX_HEADER_COUNT - 3, 20), want: { status: 200 } }],
    ['30 fields, as a browser or a proxy sends', { lines: () => fields(27, 40), want: { status: 200 } }],
  ];
  test.each(cases)('%s', async (_name, { lines, want }) => {
    const answer = await exchange(port, request(lines()));
    if (want.status === 200) {
      expect(answer.status, answer.raw.slice(0, 400)).toBe(200);
      expect(answer.body).toBe('[]');
    } else expect431(answer, want.limit);
    // Still serving.
    expect((await exchange(port, request([]))).status).toBe(200);
  });

  test("a header section past Node's own limit is a 431 problem with nosniff too", async () => {
    const answer = await exchange(port, request(fields(40, 2_000)));
    expect(40 * 2_000).toBeGreaterThan(NODE_MAX_HEADER_BYTES);
    expect(answer.status, answer.raw.slice(0, 400)).toBe(431);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(JSON.parse(answer.body)).toMatchObject({ type: '/problems/header-fields-too-large', status: 431 });
  });
});

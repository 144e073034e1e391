/**
 * D49, issue 34: a request body nested deeper, or with more fields in one object, than any request
 * of the contract is refused on its raw text before `JSON.parse` reads it: the megabyte bodies of
 * the issue (500,000 levels of `[`, and a megabyte of unknown fields) are 422 problems naming the
 * place of the breach, and the parser never sees them. A body within the bounds is parsed and
 * judged by its schema as before.
 */
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import { shapeLimits } from '../../lib/contract/json-shape.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { serveOnLoopback } from '../test-support/loopback.js';

let server: TestServer;
beforeAll(async () => {
  server = await createTestServer();
});
afterAll(async () => {
  await server?.close();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const deepEvents = `{"url":"https://a.invalid/","name":"n","events":${'['.repeat(500_000)}${']'.repeat(500_000)}}`;
const wideObject = `{"url":"https://a.invalid/","name":"n","events":["charge.paid"],${Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',')}}`;

async function post(
  body: string,
): Promise<{ status: number; problem: { type: string; errors?: Array<{ pointer?: string; keyword: string; detail: string }> } }> {
  const response = await server.app.request('/webhook', {
    method: 'POST',
    headers: { 'X-API-KEY': server.apiKey, 'Content-Type': 'application/json' },
    body,
  });
  return { status: response.status, problem: (await response.json()) as never };
}

test.for([
  ['500,000 levels of nesting (1 MB)', deepEvents, 'maxDepth', '/events'],
  ['60,000 unknown fields (1 MB)', wideObject, 'maxProperties', ''],
] as const)('%s: a 422 at the breach, and JSON.parse never reads the body', async ([, body, keyword, pointerStart]) => {
  expect(body.length).toBeGreaterThan(500_000);
  const parse = vi.spyOn(JSON, 'parse');
  const { status, problem } = await post(body);
  expect(status).toBe(422);
  expect(problem.type).toBe('/problems/validation-error');
  expect(problem.errors).toHaveLength(1);
  expect(problem.errors![0]).toMatchObject({ keyword, pointer: expect.stringMatching(new RegExp(`^${pointerStart}`)) });
  expect(parse.mock.calls.some(([text]) => text === body)).toBe(false);
});

test('a body at the depth bound is parsed and judged by its schema; one level more is refused before parsing', async () => {
  const { maxDepth } = shapeLimits(server.deps.validator.contract);
  // The body is one level, `events` two: the nesting inside `events` fills the rest.
  const nested = (levels: number) => `{"url":"https://a.invalid/","name":"n","events":${'['.repeat(levels)}${']'.repeat(levels)}}`;
  const atBound = await post(nested(maxDepth - 1));
  expect(atBound.status).toBe(422);
  expect(atBound.problem.errors!.some((error) => error.keyword === 'maxDepth')).toBe(false);
  const past = await post(nested(maxDepth));
  expect(past.status).toBe(422);
  expect(past.problem.errors).toEqual([expect.objectContaining({ keyword: 'maxDepth' })]);
});

test('over a socket, a megabyte past the bounds in its first 64 KiB is refused without the rest being kept: no buffer of it is joined past its start', async () => {
  const http = await serveOnLoopback(server.app.fetch);
  try {
    const concat = vi.spyOn(Buffer, 'concat');
    const response = await fetch(`${http.base}/webhook`, {
      method: 'POST',
      headers: { 'X-API-KEY': server.apiKey, 'Content-Type': 'application/json' },
      body: Buffer.from(deepEvents),
    });
    const problem = (await response.json()) as { errors: Array<{ keyword: string }> };
    expect(response.status).toBe(422);
    expect(problem.errors).toEqual([expect.objectContaining({ keyword: 'maxDepth' })]);
    const joined = concat.mock.results.map((result) => (result.value as Buffer).length);
    expect(joined.length).toBeGreaterThan(0);
    expect(Math.max(...joined)).toBeLessThan(deepEvents.length / 4);
  } finally {
    await http.close();
  }
});

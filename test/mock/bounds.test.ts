/**
 * The mock refuses a body past its size bounds at once, as the reference server does (D49):
 * `npm run mock` (scripts/mock.mjs, started as a process) is sent what an attacker sends - an
 * array of 60,000 distinct strings, ~11,000 copies of an order item, a half-megabyte name, 50,000
 * unknown fields - and answers with the contract's 422 problem naming the bound, in a small
 * answer, within generous bounds, while a GET sent meanwhile is answered too. Prism, validating
 * such a body item by item with every error asked for, took 14 s for the 60,000 strings and kept
 * every other request of the mock waiting.
 *
 * The arrays come from the contract: every top-level array of a request body that has
 * `maxItems`, grown from the operation's own request example.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { request as httpRequest } from 'node:http';
import { beforeAll, describe, expect, test } from 'vitest';
import { deref, listOperations, loadBundledContract, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { fillPath } from '../../lib/contract/paths.js';
import { problemTypes } from '../../server/http/problems.js';
import { ResponseChecker } from '../../server/test-support/contract-check.js';
import { expectProblem, type Problem } from '../../server/test-support/fixtures.js';
import { type SharedMock, sharedMock } from '../support/mock-process.js';

const contract = loadBundledContract();
const checker = new ResponseChecker();

/** Generous: a walk of half a megabyte costs milliseconds; Prism's validation of it cost 14 s. */
const PROMPT_MS = 3_000;
/** A refusal lists at most 20 field errors: whatever was sent, the answer stays small. */
const SMALL_ANSWER_BYTES = 16 * 1024;
/** The size oversized arrays are grown to, as the conformance check `bounded_input` does. */
const OVERSIZED_BYTES = 512 * 1024;

// --- reading the contract --------------------------------------------------------------------

interface Schema {
  maxItems?: number;
  properties?: Record<string, unknown>;
  allOf?: unknown[];
  items?: unknown;
  enum?: unknown[];
  examples?: unknown[];
  example?: unknown;
}

/** The schema and every `allOf` part of it, `$ref`s followed. */
function parts(raw: unknown): Schema[] {
  const schema = deref<Schema | undefined>(contract, raw);
  if (!schema) return [];
  return [schema, ...(schema.allOf ?? []).flatMap(parts)];
}

function firstExample(holder: JsonObject | undefined): unknown {
  const named = Object.values((holder?.examples ?? {}) as Record<string, unknown>)[0];
  return named === undefined ? holder?.example : deref<{ value?: unknown }>(contract, named).value;
}

/** A path of the operation, each parameter its example. */
function pathOf(op: ContractOperation): string {
  const values: Record<string, string> = {};
  for (const raw of (op.operation.parameters ?? []) as unknown[]) {
    const parameter = deref<JsonObject>(contract, raw);
    if (parameter.in !== 'path') continue;
    const schema = deref<JsonObject>(contract, parameter.schema);
    values[String(parameter.name)] = String(firstExample(parameter) ?? (schema.examples as unknown[] | undefined)?.[0] ?? schema.example);
  }
  return fillPath(op.path, values);
}

interface Oversized {
  op: ContractOperation;
  path: string;
  example: JsonObject;
  property: string;
  maxItems: number;
  item: unknown;
}

/** Every top-level array of a request body that the contract bounds, with its operation's request example. */
function boundedArrays(): Oversized[] {
  const found: Oversized[] = [];
  for (const op of listOperations(contract)) {
    const media = (deref<JsonObject | undefined>(contract, op.operation.requestBody)?.content as Record<string, JsonObject> | undefined)?.['application/json'];
    const example = firstExample(media);
    if (!media || typeof example !== 'object' || example === null || Array.isArray(example)) continue;
    const properties = new Map<string, unknown[]>();
    for (const part of parts(media.schema)) {
      for (const [name, schema] of Object.entries(part.properties ?? {})) properties.set(name, [...(properties.get(name) ?? []), schema]);
    }
    for (const [property, schemas] of properties) {
      const maxItems = Math.min(...schemas.flatMap(parts).map((s) => s.maxItems ?? Number.POSITIVE_INFINITY));
      if (!Number.isFinite(maxItems)) continue;
      // An item of the example's own array, else one its item schema gives (PATCH /webhook/{id} need not send events).
      const current = (example as JsonObject)[property];
      const itemSchemas = schemas.flatMap(parts).flatMap((s) => parts(s.items));
      const item =
        Array.isArray(current) && current.length > 0
          ? current[0]
          : itemSchemas.map((s) => s.enum?.[0] ?? s.examples?.[0] ?? s.example).find((v) => v !== undefined);
      expect(item, `an item for ${op.operationId} ${property}`).toBeDefined();
      found.push({ op, path: pathOf(op), example: example as JsonObject, property, maxItems, item });
    }
  }
  return found;
}

/** `count` items like `item`; strings made distinct, so no early duplicate ends a uniqueness check. */
function grown(item: unknown, count: number): unknown[] {
  if (typeof item === 'string') return Array.from({ length: count }, (_, i) => `${i}`);
  return Array.from({ length: count }, () => item);
}

function oversizedBody({ example, property, maxItems, item }: Oversized): { body: JsonObject; count: number } {
  const count = Math.max(maxItems * 10, Math.floor(OVERSIZED_BYTES / (JSON.stringify(item).length + 1)));
  return { body: { ...example, [property]: grown(item, count) }, count };
}

const arrays = boundedArrays();
const label = (a: Oversized) => `${a.op.method.toUpperCase()} ${a.op.path} with ${a.property} past ${a.maxItems} items`;

const webhookExample = deref<{ value: JsonObject }>(
  contract,
  (contract.components as JsonObject & { examples: Record<string, unknown> }).examples.WebhookCreateRequest,
).value;

// --- the mock ----------------------------------------------------------------------------------

// The run's shared mock: this file only sends it requests (what it sends is refused before Prism sees it).
let mock: SharedMock;

beforeAll(async () => {
  mock = await sharedMock();
});

interface Timed {
  response: Response;
  text: string;
  ms: number;
}

async function send(method: string, path: string, body: unknown, headers: Record<string, string> = { 'X-API-KEY': 'any' }): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(`${mock.url}${path}`, {
    method,
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    // Far past any bound below: a mock that never answers fails the test, not the run.
    signal: AbortSignal.timeout(60_000),
  });
  const text = await response.clone().text();
  return { response, text, ms: performance.now() - started };
}

/** A 422 problem that conforms to the operation's contract, in a small answer, sent promptly. */
async function expectPromptRefusal(method: string, path: string, answer: Timed): Promise<Problem> {
  expect(await checker.check(method, path, answer.response.clone())).toEqual([]);
  const problem = await expectProblem(answer.response, 422, problemTypes.validation.type, path);
  expect(Buffer.byteLength(answer.text)).toBeLessThan(SMALL_ANSWER_BYTES);
  expect(problem.errors!.length).toBeLessThanOrEqual(20);
  expect(answer.ms, `answered after ${Math.round(answer.ms)} ms`).toBeLessThan(PROMPT_MS);
  return problem;
}

// --- tests -------------------------------------------------------------------------------------

describe('a body past its size bounds is refused at once, naming the bound', () => {
  test('60,000 distinct event names to POST /webhook: 422 naming /events, small, within 3 s', async () => {
    const events = Array.from({ length: 60_000 }, (_, i) => `event-${i}`);
    const answer = await send('POST', '/webhook', { ...webhookExample, events });
    const problem = await expectPromptRefusal('POST', '/webhook', answer);
    // The bound first, in the reference server's words, with the size sent.
    expect(problem.errors![0]).toEqual({ pointer: '/events', detail: 'must have at most 5 items (has 60000)', keyword: 'maxItems' });
    expect(problem.detail).toMatch(/^events must have at most 5 items \(has 60000\); /);
  });

  test('the contract has bounded arrays in request bodies (POST and PATCH /webhook, POST /order at least)', () => {
    const operations = new Set(arrays.map((a) => a.op.operationId));
    expect(operations).toContain('createWebhook');
    expect(operations).toContain('updateWebhook');
    expect(operations).toContain('createOrder');
  });

  test.each(arrays.map((a) => [label(a), a] as const))('%s: 422 naming the array', async (_, array) => {
    const { body, count } = oversizedBody(array);
    const method = array.op.method.toUpperCase();
    const answer = await send(method, array.path, body);
    const problem = await expectPromptRefusal(method, array.path, answer);
    expect(problem.errors![0]).toEqual({
      pointer: `/${array.property}`,
      detail: `must have at most ${array.maxItems} items (has ${count})`,
      keyword: 'maxItems',
    });
  });

  test('a name of half a megabyte: 422 naming /name with its length', async () => {
    const answer = await send('POST', '/webhook', { ...webhookExample, name: 'n'.repeat(500_000) });
    const problem = await expectPromptRefusal('POST', '/webhook', answer);
    expect(problem.errors).toEqual([{ pointer: '/name', detail: 'must have at most 255 characters (has 500000)', keyword: 'maxLength' }]);
  });

  test('60 unknown fields (within the shape margin): the first 20 named, the rest counted', async () => {
    const unknown = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`unknown${i}`, i]));
    const answer = await send('POST', '/webhook', { ...webhookExample, ...unknown });
    const problem = await expectPromptRefusal('POST', '/webhook', answer);
    expect(problem.errors).toHaveLength(20);
    expect(problem.errors!.every((e) => e.keyword === 'additionalProperties')).toBe(true);
    expect(problem.omittedErrors).toBe(60 - 20);
  });

  test('50,000 unknown fields: refused by the shape scan before parsing, one error at the object (D49)', async () => {
    const unknown = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`unknown${i}`, i]));
    const answer = await send('POST', '/webhook', { ...webhookExample, ...unknown });
    const problem = await expectPromptRefusal('POST', '/webhook', answer);
    expect(problem.errors).toEqual([expect.objectContaining({ pointer: '', keyword: 'maxProperties' })]);
  });

  test('without an API key the answer is still 401, as the server checks the key first', async () => {
    const events = Array.from({ length: 60_000 }, (_, i) => `event-${i}`);
    const answer = await send('POST', '/webhook', { ...webhookExample, events }, {});
    expect(answer.ms, `answered after ${Math.round(answer.ms)} ms`).toBeLessThan(PROMPT_MS);
    await expectProblem(answer.response, 401, problemTypes.unauthorized.type, '/webhook');
  });

  test('a body over 1 MiB: 413, as the contract says, without reading it into Prism', async () => {
    const events = Array.from({ length: 150_000 }, (_, i) => `event-${i}`);
    const answer = await send('POST', '/webhook', { ...webhookExample, events });
    expect(answer.ms, `answered after ${Math.round(answer.ms)} ms`).toBeLessThan(PROMPT_MS);
    await expectProblem(answer.response, 413, problemTypes.payloadTooLarge.type, '/webhook');
  });

  test('a body within its bounds still reaches Prism', async () => {
    const answer = await send('POST', '/webhook', webhookExample);
    expect(answer.response.status).toBe(201);
    expect(await checker.check('POST', '/webhook', answer.response)).toEqual([]);
  });
});

describe('the mock stays responsive while an oversized body is refused', () => {
  test('GETs sent while an oversized POST is in flight are answered promptly', async () => {
    const reader = listOperations(contract).find((op) => op.method === 'get' && op.path.includes('{'));
    expect(reader, 'a GET of one record').toBeDefined();
    // Distinct strings: what made Prism compare every pair for `uniqueItems`, blocking its one thread.
    const body = JSON.stringify({ ...webhookExample, events: Array.from({ length: 60_000 }, (_, i) => `event-${i}`) });
    let sent: () => void = () => undefined;
    const written = new Promise<void>((resolve) => (sent = resolve));
    const post = new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${mock.url}/webhook`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'X-API-KEY': 'any' },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(body, () => sent());
    });
    await written;
    // Several, spread over the time Prism took for the POST (the first may reach Prism before the
    // POST's body does): each is answered within the bound, whether or not the POST still waits.
    const waits: number[] = [];
    for (const delay of [100, 300, 600]) {
      await new Promise((resolve) => setTimeout(resolve, delay));
      const started = performance.now();
      const get = await fetch(`${mock.url}${pathOf(reader!)}`, { headers: { 'X-API-KEY': 'any' }, signal: AbortSignal.timeout(60_000) });
      await get.text();
      waits.push(Math.round(performance.now() - started));
      expect(get.status).toBe(200);
    }
    expect(
      waits.every((ms) => ms < PROMPT_MS),
      `the GETs were answered after ${waits.join(', ')} ms`,
    ).toBe(true);
    expect(await post).toBe(422);
  });
});

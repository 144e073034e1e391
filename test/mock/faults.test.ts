/**
 * The mock names the real fault (issue 39): what the integrator got wrong is what the answer says.
 *
 *   - A path id not of its kind's form (`GET /charge/NOT-AN-ID`) is the reference server's own 404
 *     problem ("No charge with id NOT-AN-ID exists for this company.", D27, D49), not Prism's raw
 *     422 "Your request is not valid and no HTTP validation response was found…". Every operation
 *     with an id in its path is asked, from the contract, of the mock and of the server (in
 *     process), and the two problems compared.
 *   - `Prefer` naming an example or a status the operation does not document is a 422 naming the
 *     `Prefer` header and listing what the operation has, not a 404 that reads like "charge not
 *     found" (nor, with `code=`, a 500).
 *
 * The mock is the run's shared one (scripts/mock.mjs, as `npm run mock`; test/support/mock-process.ts).
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { deref, listOperations, loadBundledContract, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { idKinds } from '../../lib/contract/ids.js';
import { fillPath, pathParameters } from '../../lib/contract/paths.js';
import { problemTypes } from '../../server/http/problems.js';
import { expectProblem, type Problem } from '../../server/test-support/fixtures.js';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { type SharedMock, sharedMock } from '../support/mock-process.js';

const contract = loadBundledContract();
const kinds = idKinds(contract);
const MALFORMED = 'NOT-AN-ID';

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, unknown>;
}

function parametersOf(op: ContractOperation): Parameter[] {
  return ((op.operation.parameters ?? []) as unknown[]).map((raw) => deref<Parameter>(contract, raw));
}

function exampleOf(holder: { example?: unknown; examples?: Record<string, unknown> } | undefined): unknown {
  const named = Object.values(holder?.examples ?? {})[0];
  return named === undefined ? holder?.example : deref<{ value?: unknown }>(contract, named).value;
}

/** The path parameters of an operation that hold an id of one of the contract's kinds. */
function idParameters(op: ContractOperation): string[] {
  const parameters = parametersOf(op);
  return pathParameters(op.path).filter((name) => {
    const schema = deref<JsonObject | undefined>(contract, parameters.find((p) => p.in === 'path' && p.name === name)?.schema);
    return kinds.some((kind) => kind.pattern.source === schema?.pattern);
  });
}

/** A valid request of the operation but for its path ids, each `MALFORMED`. */
function malformedRequest(op: ContractOperation): { path: string; init: RequestInit } {
  const ids = new Set(idParameters(op));
  const parameters = parametersOf(op);
  const values = Object.fromEntries(
    pathParameters(op.path).map((name) => [name, ids.has(name) ? MALFORMED : String(exampleOf(parameters.find((p) => p.name === name)))]),
  );
  const headers: Record<string, string> = {};
  for (const p of parameters) if (p.in === 'header' && p.required) headers[p.name] = String(exampleOf(p));
  const media = (deref<JsonObject | undefined>(contract, op.operation.requestBody)?.content as Record<string, JsonObject> | undefined)?.['application/json'];
  const body = exampleOf(media);
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return { path: fillPath(op.path, values), init: { method: op.method.toUpperCase(), headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) } };
}

const withIds = listOperations(contract).filter((op) => idParameters(op).length > 0);

// The run's shared mock: this file only sends it requests.
let mock: SharedMock;
let server: TestServer;

beforeAll(async () => {
  [mock, server] = await Promise.all([sharedMock(), createTestServer()]);
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe('a malformed path id is the 404 problem the server gives', () => {
  test('the contract has operations with ids in their paths (charges, clients, webhooks at least)', () => {
    const paths = withIds.map((op) => op.path);
    expect(paths).toContain('/charge/{id}');
    expect(paths.some((p) => p.startsWith('/client/'))).toBe(true);
    expect(paths.some((p) => p.startsWith('/webhook/'))).toBe(true);
  });

  test.each(withIds.map((op) => [`${op.method.toUpperCase()} ${op.path}`, op] as const))('%s', async (_, op) => {
    const { path, init } = malformedRequest(op);
    const fromMock = await expectProblem(
      await fetch(`${mock.url}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), 'X-API-KEY': 'any' } }),
      404,
      problemTypes.notFound.type,
      path,
    );
    const fromServer = await expectProblem(await server.request(path, init), 404, problemTypes.notFound.type, path);
    expect(fromMock).toEqual(fromServer);
    expect(fromMock.detail).toContain(`with id ${MALFORMED} exists`);
  });

  test('the issue\'s request: GET /charge/NOT-AN-ID is "No charge with id NOT-AN-ID exists"', async () => {
    const answer = await fetch(`${mock.url}/charge/NOT-AN-ID`, { headers: { 'X-API-KEY': 'any' } });
    const problem = await expectProblem(answer, 404, problemTypes.notFound.type, '/charge/NOT-AN-ID');
    expect(problem).toEqual({ ...problemTypes.notFound, detail: 'No charge with id NOT-AN-ID exists for this company.', instance: '/charge/NOT-AN-ID' });
  });

  test('without a key, the 401 still comes first, as the server checks the key first', async () => {
    const answer = await fetch(`${mock.url}/charge/NOT-AN-ID`);
    await expectProblem(answer, 401, problemTypes.unauthorized.type, '/charge/NOT-AN-ID');
  });

  test('with a body that is wrong too, the 422 names the body only (the server lists no path id)', async () => {
    const answer = await fetch(`${mock.url}/charge/NOT-AN-ID/simulate-payment`, {
      method: 'POST',
      headers: { 'X-API-KEY': 'any', 'Content-Type': 'application/json' },
      body: JSON.stringify({ until: 'NOPE' }),
    });
    const problem = await expectProblem(answer, 422, problemTypes.validation.type);
    expect(problem.errors?.map((e) => e.pointer ?? e.parameter)).toEqual(['/until']);
  });

  test('an id of 3,000 characters is echoed cut, as the server cuts it', async () => {
    const long = 'a'.repeat(3_000);
    const fromMock = await expectProblem(await fetch(`${mock.url}/charge/${long}`, { headers: { 'X-API-KEY': 'any' } }), 404, problemTypes.notFound.type);
    const fromServer = await expectProblem(await server.request(`/charge/${long}`), 404, problemTypes.notFound.type);
    expect(fromMock).toEqual(fromServer);
    expect(fromMock.detail.length).toBeLessThan(300);
    expect(fromMock.instance!.length).toBeLessThanOrEqual(2048);
  });

  test('a well-formed id still gets the example, naming that id', async () => {
    const answer = await fetch(`${mock.url}/charge/char_abc`, { headers: { 'X-API-KEY': 'any' } });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { data: { id: string } }).data.id).toBe('char_abc');
  });
});

describe('Prefer naming what the operation does not have is a 422 listing what it has', () => {
  const documented = (path: string, method: string) => {
    const op = listOperations(contract).find((o) => o.path === path && o.method === method)!;
    const responses = op.operation.responses as Record<string, unknown>;
    return Object.entries(responses).map(([status, raw]) => ({
      status,
      examples: Object.values((deref<JsonObject>(contract, raw).content ?? {}) as Record<string, JsonObject>).flatMap((m) => Object.keys(m.examples ?? {})),
    }));
  };

  async function preferProblem(prefer: string): Promise<Problem> {
    const answer = await fetch(`${mock.url}/charge/char_abc`, { headers: { 'X-API-KEY': 'any', Prefer: prefer } });
    const problem = await expectProblem(answer, 422, problemTypes.validation.type, '/charge/char_abc');
    expect(problem.errors).toEqual([expect.objectContaining({ header: 'Prefer', keyword: 'enum' })]);
    return problem;
  }

  test('example=nope: names it and lists every documented code with its examples', async () => {
    const problem = await preferProblem('example=nope');
    expect(problem.detail).toMatch(/^Prefer asks for example=nope, which the 200 answer of GET \/charge\/\{id\} does not have/);
    for (const { status, examples } of documented('/charge/{id}', 'get')) {
      expect(problem.detail).toContain(`code=${status}`);
      for (const name of examples) expect(problem.detail).toContain(`example=${name}`);
    }
    expect(problem.detail).not.toMatch(/not found|no charge/i);
  });

  test('code=404, example=nope: about the 404 answer, not a 500', async () => {
    const problem = await preferProblem('code=404, example=nope');
    expect(problem.detail).toMatch(/^Prefer asks for example=nope, which the 404 answer of GET \/charge\/\{id\} does not have \(its examples: notFound\)/);
  });

  test('code=499: names the code and lists the documented ones', async () => {
    const problem = await preferProblem('code=499');
    expect(problem.detail).toMatch(/^Prefer asks for code=499, which GET \/charge\/\{id\} does not document/);
    expect(problem.errors![0]!.detail).toContain(
      documented('/charge/{id}', 'get')
        .map((d) => d.status)
        .join(', '),
    );
  });

  test('without the header, ?__example=nope (which Prism reads then) is named as that parameter', async () => {
    const answer = await fetch(`${mock.url}/charge/char_abc?__example=nope`, { headers: { 'X-API-KEY': 'any' } });
    const problem = await expectProblem(answer, 422, problemTypes.validation.type, '/charge/char_abc');
    expect(problem.errors).toEqual([expect.objectContaining({ parameter: '__example', keyword: 'enum' })]);
  });

  test('a documented example is still served', async () => {
    const answer = await fetch(`${mock.url}/charge/char_abc`, { headers: { 'X-API-KEY': 'any', Prefer: 'code=404, example=notFound' } });
    const problem = await expectProblem(answer, 404, problemTypes.notFound.type, '/charge/char_abc');
    expect(problem.detail).toBe('No charge with id char_abc exists for this company.');
  });
});

/**
 * The Prism mock (`npm run mock`, scripts/mock.mjs) serves the contract without violations.
 *
 * Every case below is generated from the bundled contract, so a new operation, response or
 * named example is covered without touching this file:
 *   - every operation × documented response status × media type × named example, requested
 *     validly with `Prefer: code=…, example=…`: status, media type, body (= the example), required
 *     response headers, and no `sl-violations` header;
 *   - every operation with a JSON request body, sent with a required field dropped / a wrong
 *     type: 422, a problem of the first 422 example's type and title whose `errors` name that field
 *     (refusals.test.ts holds the hand-written table of invalid bodies);
 *   - every operation guarded by the X-API-KEY scheme, sent without it: 401, a problem of the first
 *     401 example's type and title about this request;
 *   - every documented answer of an operation with an id in its path that names the example's id,
 *     asked for another id: the same answer naming the id asked for;
 *   - self-checks proving the violation check can fail, and MOCK_PORT validation of the script.
 *
 * Prism is started once for the whole file (through the script, so the script is what is tested).
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { runBash } from '../support/bash.js';
import { fencedBlocks } from '../support/markdown.js';
import { type SharedMock, sharedMock } from '../support/mock-process.js';
import { repoRoot } from '../contract/support.js';
import { deref, listOperations, loadBundledContract, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { idKinds } from '../../lib/contract/ids.js';

const mockScript = fileURLToPath(new URL('../../scripts/mock.mjs', import.meta.url));
const contract = loadBundledContract();
const operations = listOperations(contract);

// --- contract shapes (only what this file reads) ------------------------------------------------

interface Example {
  value?: unknown;
  externalValue?: string;
}
interface WithExamples {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, unknown>;
}
interface Parameter extends WithExamples {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
}
interface Header extends WithExamples {
  required?: boolean;
}
interface Response {
  headers?: Record<string, unknown>;
  content?: Record<string, WithExamples>;
}
interface RequestBody {
  required?: boolean;
  content?: Record<string, WithExamples>;
}
interface Schema {
  type?: string | string[];
  required?: string[];
  properties?: Record<string, unknown>;
  allOf?: unknown[];
}
interface SecurityScheme {
  type?: string;
  in?: string;
  name?: string;
}

// --- table types -------------------------------------------------------------------------------

interface Given {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: unknown;
}
interface Want {
  status: number;
  /** Documented media type; `null` for a response without content. */
  mediaType: string | null;
  /** The example's `value` the body must deep-equal (ignored when `mediaType` is null). */
  body?: unknown;
  requiredHeaders: Array<{ name: string; values: string[] }>;
  /** `none`: no sl-violations at all; `request`: only request violations, at least one. */
  violations: 'none' | 'request';
  /** Things the contract does not document that the case needs; each one fails the case. */
  contractGaps: string[];
}
type Case = [name: string, { given: Given; want: Want }];

// --- reading the contract ----------------------------------------------------------------------

const isJsonMediaType = (mediaType: string) => /^application\/(?:[\w.+-]+\+)?json$/i.test(mediaType);

/** Named examples of a media type / parameter / header, in document order. `example` counts as unnamed. */
function namedExamples(holder: WithExamples | undefined): Array<{ name: string | null; example: Example }> {
  if (!holder) return [];
  const named = Object.entries(holder.examples ?? {}).map(([name, raw]) => ({
    name: name as string | null,
    example: deref<Example>(contract, raw),
  }));
  if (named.length > 0) return named;
  return holder.example === undefined ? [] : [{ name: null, example: { value: holder.example } }];
}

/** The value a request would use: `example`, then the first of `examples`, then the schema's. */
function exampleValue(holder: WithExamples | undefined): unknown {
  const first = namedExamples(holder)[0]?.example.value;
  if (first !== undefined) return first;
  const schema = deref<JsonObject | undefined>(contract, holder?.schema);
  if (schema?.example !== undefined) return schema.example;
  return Array.isArray(schema?.examples) ? (schema.examples as unknown[])[0] : undefined;
}

function parametersOf(op: ContractOperation): Parameter[] {
  const item = deref<JsonObject>(contract, (contract.paths as Record<string, unknown>)[op.path]);
  const merged = new Map<string, Parameter>();
  for (const raw of [...((item.parameters as unknown[]) ?? []), ...((op.operation.parameters as unknown[]) ?? [])]) {
    const param = deref<Parameter>(contract, raw);
    merged.set(`${param.in}:${param.name.toLowerCase()}`, param);
  }
  return [...merged.values()];
}

/** Header name of the apiKey-in-header scheme the operation requires (X-API-KEY), if any. */
function apiKeyHeaderOf(op: ContractOperation): string | undefined {
  const requirements = (op.operation.security ?? contract.security ?? []) as Array<Record<string, unknown>>;
  const schemes = ((contract.components as JsonObject | undefined)?.securitySchemes ?? {}) as Record<string, unknown>;
  for (const requirement of requirements) {
    for (const name of Object.keys(requirement)) {
      const scheme = deref<SecurityScheme | undefined>(contract, schemes[name]);
      if (scheme?.type === 'apiKey' && scheme.in === 'header' && scheme.name) return scheme.name;
    }
  }
  return parametersOf(op).find((p) => p.in === 'header' && p.required && /^x-api-key$/i.test(p.name))?.name;
}

const API_KEY_HEADER = 'X-API-KEY';

/** A valid request for the operation, built from the contract's examples. */
function validRequest(op: ContractOperation): { given: Given; gaps: string[] } {
  const gaps: string[] = [];
  const params = parametersOf(op);
  const valueFor = (p: Parameter) => {
    const value = exampleValue(p);
    if (value === undefined) gaps.push(`required ${p.in} parameter "${p.name}" has no example`);
    return String(value ?? '');
  };

  let path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const param = params.find((p) => p.in === 'path' && p.name === name);
    if (!param) {
      gaps.push(`path template {${name}} has no path parameter`);
      return name;
    }
    return encodeURIComponent(valueFor(param));
  });
  const query = params.filter((p) => p.in === 'query' && p.required).map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(valueFor(p))}`);
  if (query.length > 0) path += `?${query.join('&')}`;

  const keyParam = params.find((p) => p.in === 'header' && p.name.toLowerCase() === API_KEY_HEADER.toLowerCase());
  const headers: Record<string, string> = { [API_KEY_HEADER]: String(exampleValue(keyParam) ?? 'test-api-key') };
  for (const p of params) {
    if (p.in === 'header' && p.required && p.name.toLowerCase() !== API_KEY_HEADER.toLowerCase()) headers[p.name] = valueFor(p);
  }

  const given: Given = { method: op.method.toUpperCase(), path, headers };
  const requestBody = deref<RequestBody | undefined>(contract, op.operation.requestBody);
  const [mediaType, media] = Object.entries(requestBody?.content ?? {})[0] ?? [];
  if (mediaType && media) {
    const first = namedExamples(media)[0]?.example;
    if (first?.value !== undefined) {
      headers['Content-Type'] = mediaType;
      given.body = first.value;
    } else if (requestBody?.required) {
      gaps.push(`required request body (${mediaType}) has no example`);
    }
  }
  return { given, gaps };
}

/** Required response headers with the values the contract documents for them (example, examples, schema example). */
function requiredHeadersOf(response: Response, status: string, gaps: string[]): Want['requiredHeaders'] {
  return Object.entries(response.headers ?? {})
    .map(([name, raw]) => ({ name, header: deref<Header>(contract, raw) }))
    .filter(({ name, header }) => header.required === true && name.toLowerCase() !== 'content-type')
    .map(({ name, header }) => {
      const values = namedExamples(header)
        .map((e) => e.example.value)
        .filter((v) => v !== undefined)
        .map((v) => String(v));
      const fromSchema = exampleValue({ schema: header.schema });
      if (values.length === 0 && fromSchema !== undefined) values.push(String(fromSchema));
      if (values.length === 0) gaps.push(`required ${status} response header ${name} has no example`);
      return { name, values };
    });
}

/** A 3-digit code that makes Prism pick the documented status key (`default` and `4XX` included). */
function forcedCode(status: string, documented: string[]): number {
  if (/^\d{3}$/.test(status)) return Number(status);
  const [from, to] = /^[1-5]XX$/i.test(status) ? [Number(status[0]) * 100, Number(status[0]) * 100 + 99] : [500, 599];
  for (let code = from; code <= to; code++) if (!documented.includes(String(code))) return code;
  return from;
}

/** The first example of the first content of a documented status that has one. */
function firstExampleResponse(op: ContractOperation, status: string, gaps: string[]): Want {
  const raw = (op.operation.responses as Record<string, unknown> | undefined)?.[status];
  const want: Want = { status: Number(status), mediaType: null, requiredHeaders: [], violations: 'request', contractGaps: gaps };
  if (raw === undefined) {
    gaps.push(`no ${status} response is documented`);
    return want;
  }
  const response = deref<Response>(contract, raw);
  want.requiredHeaders = requiredHeadersOf(response, status, gaps);
  const withExample = Object.entries(response.content ?? {}).find(([, media]) => namedExamples(media).length > 0);
  if (!withExample) {
    gaps.push(`the ${status} response has no example`);
    return want;
  }
  const [mediaType, media] = withExample;
  want.mediaType = mediaType;
  want.body = namedExamples(media)[0]?.example.value;
  return want;
}

/**
 * What the mock must answer a refused request: the status Prism picks, a problem of the type
 * and title of that status's first example (what the contract means by it), but about this
 * request - its path, and its wrong field - not the example's.
 */
function refusalResponse(op: ContractOperation, status: string, given: Given, gaps: string[], pointer?: string): Want {
  const want = firstExampleResponse(op, status, gaps);
  const example = want.body as JsonObject | undefined;
  if (example === undefined) return want;
  want.body = expect.objectContaining({
    type: example.type,
    title: example.title,
    status: Number(status),
    instance: given.path.split('?')[0],
    detail: pointer === undefined ? expect.any(String) : expect.stringContaining(pointer === '' ? 'the body' : pointer.slice(1)),
    ...(pointer === undefined ? {} : { errors: expect.arrayContaining([expect.objectContaining({ pointer })]) }),
  });
  return want;
}

// --- invalid bodies ----------------------------------------------------------------------------

function bodySchemaOf(op: ContractOperation): Schema | undefined {
  const requestBody = deref<RequestBody | undefined>(contract, op.operation.requestBody);
  const media = Object.values(requestBody?.content ?? {})[0];
  return flattenAllOf(deref<Schema | undefined>(contract, media?.schema));
}

function flattenAllOf(schema: Schema | undefined): Schema | undefined {
  if (!schema?.allOf) return schema;
  const parts = schema.allOf.map((part) => flattenAllOf(deref<Schema>(contract, part)) ?? {});
  return {
    ...schema,
    required: [...(schema.required ?? []), ...parts.flatMap((p) => p.required ?? [])],
    properties: Object.assign({}, ...parts.map((p) => p.properties ?? {}), schema.properties ?? {}),
  };
}

/** A value whose JSON type is none of the property's declared types. */
function wrongTypeValue(type: string | string[]): unknown {
  const types = Array.isArray(type) ? type : [type];
  const candidates: unknown[] = [12345, 'not-of-the-declared-type', true, ['not-of-the-declared-type'], { not: 'of the declared type' }];
  return candidates.find((value) => types.every((t) => !matchesType(t, value))) ?? null;
}

function matchesType(type: string, value: unknown): boolean {
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'array') return Array.isArray(value);
  if (type === 'null') return value === null;
  if (type === 'object') return typeof value === 'object' && value !== null && !Array.isArray(value);
  return typeof value === type;
}

/** `[label, mutated body, pointer of the broken field]` triples that make the operation's request-body example invalid. */
function invalidBodies(op: ContractOperation, body: unknown): Array<[string, unknown, string]> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [];
  const example = body as JsonObject;
  const schema = bodySchemaOf(op);
  const result: Array<[string, unknown, string]> = [];

  const dropped = (schema?.required ?? []).find((field) => field in example);
  if (dropped !== undefined) {
    const { [dropped]: _removed, ...rest } = example;
    result.push([`required "${dropped}" dropped`, rest, `/${dropped}`]);
  }

  const properties = schema?.properties ?? {};
  const ordered = [...(schema?.required ?? []), ...Object.keys(example)].filter((field) => field in example);
  for (const field of ordered) {
    const type = deref<Schema | undefined>(contract, properties[field])?.type;
    if (type === undefined) continue;
    result.push([`"${field}" of the wrong type`, { ...example, [field]: wrongTypeValue(type) }, `/${field}`]);
    break;
  }
  return result;
}

// --- the table ---------------------------------------------------------------------------------

const label = (op: ContractOperation) => `${op.method.toUpperCase()} ${op.path}`;

function documentedResponseCases(): Case[] {
  const cases: Case[] = [];
  for (const op of operations) {
    const responses = (op.operation.responses ?? {}) as Record<string, unknown>;
    const statuses = Object.keys(responses);
    for (const status of statuses) {
      const response = deref<Response>(contract, responses[status]);
      const code = forcedCode(status, statuses);
      const contents = Object.entries(response.content ?? {});
      const base = () => {
        const { given, gaps } = validRequest(op);
        const want: Want = {
          status: code,
          mediaType: null,
          requiredHeaders: requiredHeadersOf(response, status, gaps),
          violations: 'none',
          contractGaps: gaps,
        };
        return { given, want };
      };
      if (contents.length === 0) {
        const { given, want } = base();
        given.headers.Prefer = `code=${code}`;
        cases.push([`${label(op)} → ${status} (no content)`, { given, want }]);
        continue;
      }
      for (const [mediaType, media] of contents) {
        const examples = namedExamples(media);
        if (examples.length === 0) {
          const { given, want } = base();
          given.headers.Prefer = `code=${code}`;
          given.headers.Accept = mediaType;
          want.mediaType = mediaType;
          want.contractGaps.push(`the ${status} ${mediaType} response has no example`);
          cases.push([`${label(op)} → ${status} ${mediaType} (no example)`, { given, want }]);
          continue;
        }
        for (const { name, example } of examples) {
          const { given, want } = base();
          given.headers.Prefer = name === null ? `code=${code}` : `code=${code}, example=${name}`;
          given.headers.Accept = mediaType;
          want.mediaType = mediaType;
          want.body = example.value;
          if (example.value === undefined) want.contractGaps.push(`example "${name}" has no inline value`);
          cases.push([`${label(op)} → ${status} ${mediaType} example "${name ?? '(example)'}"`, { given, want }]);
        }
      }
    }
  }
  return cases;
}

function invalidBodyCases(): Case[] {
  const cases: Case[] = [];
  for (const op of operations) {
    if (op.operation.requestBody === undefined) continue;
    const { given: valid, gaps } = validRequest(op);
    const mutations = invalidBodies(op, valid.body);
    if (mutations.length === 0) {
      const want = firstExampleResponse(op, '422', [...gaps, 'request-body example is not a JSON object to make invalid']);
      cases.push([`${label(op)} with an invalid body → 422`, { given: valid, want }]);
      continue;
    }
    for (const [what, body, pointer] of mutations) {
      const given: Given = { ...valid, headers: { ...valid.headers }, body };
      cases.push([`${label(op)} with ${what} → 422 problem naming ${pointer}`, { given, want: refusalResponse(op, '422', given, [...gaps], pointer) }]);
    }
  }
  return cases;
}

function missingApiKeyCases(): Case[] {
  const cases: Case[] = [];
  for (const op of operations) {
    if (!apiKeyHeaderOf(op)) continue;
    const { given, gaps } = validRequest(op);
    for (const name of Object.keys(given.headers)) if (name.toLowerCase() === API_KEY_HEADER.toLowerCase()) delete given.headers[name];
    cases.push([`${label(op)} without ${API_KEY_HEADER} → 401 problem`, { given, want: refusalResponse(op, '401', given, gaps) }]);
  }
  return cases;
}

/**
 * Every documented answer (first example of each status) of an operation with an id of the
 * contract's kinds in its path that names the path parameter's example id, asked for another id
 * of that kind: the answer is the example naming the id asked for instead (scripts/mock/path-ids.ts).
 */
function pathIdCases(): Case[] {
  const kinds = idKinds(contract);
  const cases: Case[] = [];
  for (const op of operations) {
    const parameter = parametersOf(op).find((p) => p.in === 'path' && kinds.some((k) => k.pattern.source === deref<JsonObject>(contract, p.schema).pattern));
    const example = exampleValue(parameter);
    if (!parameter || typeof example !== 'string') continue;
    const asked = `${example.slice(0, example.indexOf('_') + 1)}askedfor${'7'.repeat(16)}`;
    const responses = (op.operation.responses ?? {}) as Record<string, unknown>;
    for (const status of Object.keys(responses)) {
      for (const [mediaType, media] of Object.entries(deref<Response>(contract, responses[status]).content ?? {})) {
        const first = namedExamples(media)[0];
        if (!first || !JSON.stringify(first.example.value).includes(example)) continue;
        const { given, gaps } = validRequest(op);
        given.path = given.path.replace(encodeURIComponent(example), asked);
        given.headers.Prefer = first.name === null ? `code=${status}` : `code=${status}, example=${first.name}`;
        given.headers.Accept = mediaType;
        const want: Want = {
          status: Number(status),
          mediaType,
          body: JSON.parse(JSON.stringify(first.example.value).replaceAll(example, asked)),
          requiredHeaders: requiredHeadersOf(deref<Response>(contract, responses[status]), status, gaps),
          violations: 'none',
          contractGaps: gaps,
        };
        cases.push([`${label(op)} → ${status} "${first.name ?? '(example)'}" names ${asked}, not ${example}`, { given, want }]);
      }
    }
  }
  return cases;
}

const documentedCases = documentedResponseCases();
const idCases = pathIdCases();
const invalidCases = invalidBodyCases();
const unauthorizedCases = missingApiKeyCases();

// --- the mock process --------------------------------------------------------------------------

// The run's shared mock: this file only sends it requests.
let mock: SharedMock | undefined;
let baseUrl = '';

beforeAll(async () => {
  mock = await sharedMock();
  baseUrl = mock.url;
});

// --- requests and assertions -------------------------------------------------------------------

interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

async function send(given: Given): Promise<Answer> {
  const response = await fetch(`${baseUrl}${given.path}`, {
    method: given.method,
    headers: given.headers,
    body: given.body === undefined ? undefined : JSON.stringify(given.body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

interface Violation {
  location: string[];
  severity: string;
  code?: string | number;
  message: string;
}

/** The parsed `sl-violations` header (`[]` when absent). */
function violationsOf(answer: Answer): Violation[] {
  const raw = answer.headers.get('sl-violations');
  if (raw === null) return [];
  try {
    return JSON.parse(raw) as Violation[];
  } catch {
    return [{ location: [], severity: 'Error', message: raw }];
  }
}

function expectNoViolations(answer: Answer): void {
  expect(answer.headers.get('sl-violations'), 'Prism reported violations (sl-violations header)').toBeNull();
}

function parseBody(text: string, mediaType: string): unknown {
  if (!isJsonMediaType(mediaType)) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { unparseableBody: text };
  }
}

const DOCUMENTED = 'present, with a documented value';

/**
 * One strict comparison of everything the case checks, so a failure shows every mismatch at
 * once (status, media type, body, headers, Prism's violations, contract gaps) in a single diff.
 */
function expectAnswer(answer: Answer, want: Want): void {
  const violations = violationsOf(answer);
  const mediaType = answer.headers.get('content-type')?.split(';')[0]?.trim().toLowerCase() ?? null;
  const headerState = ({ name, values }: Want['requiredHeaders'][number]) => {
    const value = answer.headers.get(name);
    return value !== null && (values.length === 0 || values.includes(value)) ? DOCUMENTED : value;
  };

  const observed = {
    status: answer.status,
    contractGaps: want.contractGaps,
    // `none`: the raw header must be absent. `request`: reported, but only against the request -
    // a `response` entry would mean the served 401/422 example breaks its own schema.
    slViolations: want.violations === 'none' ? answer.headers.get('sl-violations') : violations.filter((v) => v.location[0] !== 'request'),
    requestViolationsReported: want.violations === 'request' ? violations.some((v) => v.location[0] === 'request') : undefined,
    mediaType: want.mediaType === null ? null : mediaType,
    body: want.mediaType === null ? answer.text : parseBody(answer.text, want.mediaType),
    requiredHeaders: Object.fromEntries(want.requiredHeaders.map((h) => [h.name, headerState(h)])),
  };
  const expected = {
    status: want.status,
    contractGaps: [],
    slViolations: want.violations === 'none' ? null : [],
    requestViolationsReported: want.violations === 'request' ? true : undefined,
    mediaType: want.mediaType === null ? null : want.mediaType.toLowerCase(),
    body: want.mediaType === null ? '' : want.body,
    requiredHeaders: Object.fromEntries(want.requiredHeaders.map((h) => [h.name, DOCUMENTED])),
  };
  expect(observed).toStrictEqual(expected);
}

// --- tests -------------------------------------------------------------------------------------

describe('Prism mock (scripts/mock.mjs) serves the contract', () => {
  test('the contract has operations to mock', () => {
    expect(operations.length).toBeGreaterThan(0);
    expect(documentedCases.length).toBeGreaterThanOrEqual(operations.length);
  });

  describe('every documented response × example, for a valid request', () => {
    test.each(documentedCases)('%s', async (_, { given, want }) => {
      expectAnswer(await send(given), want);
    });
  });

  describe("an answer to a path with an id names that id, not the example's", () => {
    test('there are such answers: reads, changes and their 404s', () => {
      expect(idCases.length).toBeGreaterThan(10);
      expect(idCases.filter(([name]) => / → 404 /.test(name)).length).toBeGreaterThan(5);
    });
    test.each(idCases)('%s', async (_, { given, want }) => {
      expectAnswer(await send(given), want);
    });
  });

  test("the integrator's guide's mock lines, run by bash against this mock: the 404 names the charge asked for", async () => {
    const block = fencedBlocks(readFileSync(join(repoRoot, 'docs', 'integrating.md'), 'utf8'), '## The mock', 'sh')[0] ?? '';
    // The lines after `npm run mock` (this test's mock is on a port of its own, not 4010).
    const lines = block
      .split('\n')
      .filter((line) => line.startsWith('curl '))
      .map((line) => `${line.replaceAll('http://127.0.0.1:4010', baseUrl)}; echo`);
    expect(lines.length).toBe(2);
    const { code, stdout, stderr } = await runBash(lines.join('\n'), { env: { PATH: process.env.PATH }, timeoutMs: 20_000 });
    expect(code, stderr).toBe(0);
    const [found, missing] = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as JsonObject);
    expect((found!.data as JsonObject).id).toBe(/\/charge\/(\w+)/.exec(lines[0]!)![1]);
    const asked = /\/charge\/(\w+)/.exec(lines[1]!)![1]!;
    expect(missing).toMatchObject({ status: 404, instance: `/charge/${asked}`, detail: expect.stringContaining(asked) });
  });

  describe('an invalid request body gets a 422 problem naming the broken field', () => {
    test('there are operations with request bodies to make invalid', () => {
      expect(invalidCases.length).toBeGreaterThan(0);
    });
    test.each(invalidCases)('%s', async (_, { given, want }) => {
      expectAnswer(await send(given), want);
    });
  });

  describe(`a request without ${API_KEY_HEADER} gets a 401 problem about this request`, () => {
    test('there are operations guarded by the API key', () => {
      expect(unauthorizedCases.length).toBeGreaterThan(0);
    });
    test.each(unauthorizedCases)('%s', async (_, { given, want }) => {
      expectAnswer(await send(given), want);
    });
  });

  describe('self-checks: the violation check can fail', () => {
    const guarded = unauthorizedCases[0];
    const invalid = invalidCases.find(([, { want }]) => want.contractGaps.length === 0) ?? invalidCases[0];
    const selfChecks: Case[] = [];
    if (guarded) selfChecks.push([`${guarded[0]} is flagged`, guarded[1]]);
    if (invalid) selfChecks.push([`${invalid[0]} is flagged`, invalid[1]]);

    test('there is an invalid request to send', () => {
      expect(selfChecks.length).toBeGreaterThan(0);
    });
    test.each(selfChecks)('%s', async (_, { given }) => {
      const answer = await send(given);
      expect(answer.headers.get('sl-violations')).not.toBeNull();
      expect(violationsOf(answer).some((v) => v.location[0] === 'request' && v.severity === 'Error')).toBe(true);
      expect(() => expectNoViolations(answer)).toThrow(/sl-violations/);
    });

    test('an undocumented Prefer example is not passed off as a documented one', async () => {
      const named = documentedCases.find(([, c]) => c.want.mediaType !== null && c.given.headers.Prefer?.includes('example='));
      expect(named, 'a documented response with a named example').toBeDefined();
      if (!named) return;
      const [, { given, want }] = named;
      const answer = await send({ ...given, headers: { ...given.headers, Prefer: `code=${want.status}, example=no-such-example` } });
      expect(() => expectAnswer(answer, want)).toThrow();
    });
  });

  test('the banner names the URL and both base URLs', () => {
    expect(mock!.output()).toContain(`Mock server`);
    expect(mock!.output()).toContain(baseUrl);
    const variables = new Set(operations.map((op) => op.server).filter(Boolean));
    for (const name of variables) expect(mock!.output()).toContain(`{${name}}`);
    expect(mock!.output()).toMatch(/curl -i /);
    expect(mock!.output()).toMatch(/Prefer: code=\d{3}, example=/);
  });
});

describe('scripts/mock.mjs rejects a bad MOCK_PORT', () => {
  test.each([['abc'], ['0'], ['65536'], ['40.5'], ['-1']])('MOCK_PORT=%s exits 2 with one line', (value) => {
    const result = spawnSync(process.execPath, [mockScript], { env: { ...process.env, MOCK_PORT: value }, encoding: 'utf8', timeout: 10_000 });
    expect(result.status).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain('MOCK_PORT');
  });
});

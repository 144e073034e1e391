/**
 * Robustness (issue 7): a property-based fuzz of every operation of the contract, in process
 * through the harness. Each run sends one generated request, built from a valid example body
 * of the contract and then broken: truncated or malformed JSON, wrong or duplicated media types,
 * bodies over the size limit, 10,000-deep nesting, extreme numbers, NaN-like strings, negative
 * amounts, control characters and lone surrogates, nulls, extra fields, wrong types, ids with
 * path tricks and SQL metacharacters, missing, wrong and duplicated API keys.
 *
 * The property: the answer settles within 5 s; it is a 4xx problem (RFC 9457: the problem media
 * type, a JSON body with `type`, `title`, `status` equal to the HTTP status, and `detail`) or,
 * where the input happened to be valid, a 2xx with a JSON body (or an empty 204); never a 5xx;
 * and it conforms to the contract (the harness's `violations` stays empty, so an undocumented
 * status fails too). The answer must also fit the body sent: 413 only over the limit, 400 only
 * for a body that is not JSON, 2xx only for a body the contract's schema accepts. After the run
 * the server still answers and every record made before it is unchanged; company B, whose key
 * the fuzz never sends but whose ids it does, has exactly what it had.
 *
 * The body limit is set to 32 KiB rather than 1 MiB: small enough for cheap oversized bodies,
 * large enough that 10,000 nested arrays (20,000 bytes) reach the JSON parser.
 *
 * Replay: FUZZ_SEED=<seed> [FUZZ_PATH=<path>] npx vitest run server/robustness/fuzz.test.ts
 * (fast-check prints both on a failure, with the failing request). FUZZ_RUNS raises the number of
 * requests (never below 2,000). Under `npm run test:operation` it fuzzes the operation's scope only
 * (scripts/test-operation/scope.ts), with at least 200 requests.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { deref, listOperations, loadBundledContract, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { ContractValidator } from '../../lib/contract/ajv.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { clientBody, customers, productBody, taxIds } from '../test-support/fixtures.js';
import { inScope } from '../../scripts/test-operation/scope.js';

type Schemas = components['schemas'];

const MIN_RUNS = 2_000;
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
if (seed !== undefined && !Number.isInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, got ${process.env.FUZZ_SEED}`);
const replayPath = process.env.FUZZ_PATH || undefined;
/** Large enough for 10,000 nested arrays (20,000 bytes), small enough to make oversized bodies cheap. */
const BODY_LIMIT = 32_768;
const SETTLE_MS = 5_000;

const contract = loadBundledContract();
/**
 * Every operation but the sandbox reset (`x-resets-company`, D51): a valid request to it deletes
 * the very records whose survival the run checks, and it takes no input to break but the key
 * (server/routes/sandbox.test.ts checks its answers).
 */
const operations = listOperations(contract).filter((op) => op.operation['x-resets-company'] !== true);
/**
 * The operations fuzzed: all of them, or under `npm run test:operation` its scope (scope.ts), with
 * as many requests each as a whole run gives one at least.
 */
const fuzzed = inScope(operations);
const minRuns = Math.max(200, Math.ceil((MIN_RUNS * fuzzed.length) / operations.length));
const numRuns = Math.max(minRuns, Number(process.env.FUZZ_RUNS ?? 0) || 0);
if (fuzzed.length === 0)
  console.warn(
    `NOTICE: server/robustness/fuzz.test.ts: the fuzz run is skipped: TEST_OPERATION_SCOPE names no operation it fuzzes (the sandbox reset is not fuzzed).`,
  );

/** The request examples of an operation's JSON body, as the contract gives them. */
function examplesOf(op: ContractOperation): unknown[] {
  const body = deref<JsonObject | undefined>(contract, op.operation.requestBody);
  if (!body) return [];
  const media = (body.content as Record<string, JsonObject | undefined>)['application/json'];
  const examples = Object.values((media?.examples ?? {}) as Record<string, unknown>).map((e) => deref<JsonObject>(contract, e).value);
  if (media?.example !== undefined) examples.push(media.example);
  return examples;
}

// ---------------------------------------------------------------------------------------------
// The request and how it is shown in a failure report.

interface FuzzRequest {
  operationId: string;
  /** What was broken, in a few words. */
  what: string;
  method: string;
  path: string;
  /** Appended in order, so a name may repeat (Headers.append joins duplicates with ", "). */
  headers: Array<[string, string]>;
  body?: Uint8Array;
}

function bodyPreview(body: Uint8Array | undefined): string {
  if (body === undefined) return '(none)';
  const text = new TextDecoder().decode(body.subarray(0, 2_000));
  return `${body.byteLength} bytes: ${JSON.stringify(text.slice(0, 500))}${body.byteLength > 500 ? ' …' : ''}`;
}

function describeRequest(r: FuzzRequest): string {
  const headers = r.headers.map(([n, v]) => `  ${n}: ${JSON.stringify(v.length > 200 ? `${v.slice(0, 200)}… (${v.length} chars)` : v)}`).join('\n');
  const path = r.path.length > 300 ? `${r.path.slice(0, 300)}… (${r.path.length} chars)` : r.path;
  return `${r.operationId} [${r.what}]\n${r.method} ${path}\n${headers || '  (no headers)'}\nbody ${bodyPreview(r.body)}`;
}

/** Gives the request a readable form in fast-check's counterexample. */
function shown(r: FuzzRequest): FuzzRequest {
  return Object.assign(r, { [fc.toStringMethod]: () => describeRequest(r) });
}

// ---------------------------------------------------------------------------------------------
// Values.

const encoder = new TextEncoder();
const utf8 = (text: string) => encoder.encode(text);

/** JSON texts of hostile values, spliced raw into a body (so `1e-400` or `-0` arrive as written). */
const hostileJson: readonly string[] = [
  // numbers at and past the edges
  '1e308',
  '-1e308',
  '1e309',
  '-1e309',
  '-0',
  '0',
  '-0.0',
  '1e-400',
  '-1e-400',
  '5e-324',
  '12345678901234567890',
  '-12345678901234567890',
  '123456789012345678901234567890.123456789',
  '9007199254740993',
  '2147483648',
  '99999999999',
  '100000000000',
  '999999999.99',
  '1000000000',
  '0.001',
  '1.005',
  '4.999',
  '64.951',
  '1E2',
  '0e0',
  '1e2',
  '10000',
  '10001',
  // negative amounts
  '-1',
  '-0.01',
  '-64.95',
  '-500',
  '-99999999999',
  '-1000000000',
  // NaN-like and numbers as strings
  '"NaN"',
  '"Infinity"',
  '"-Infinity"',
  '"1e308"',
  '"-0"',
  '"64.95"',
  '"12990"',
  '"0x10"',
  '" 1"',
  // control characters, lone surrogates, NUL, direction marks, emoji, combining marks
  '""',
  '" "',
  '"\\u0000"',
  '"a\\u0000b"',
  '"\\u0000\\u0001\\u001f\\u007f"',
  '"\\ud800"',
  '"\\udfff"',
  '"x\\ud800y"',
  '"\\udbff\\udfff"',
  '"\\udc00\\ud800"',
  '"\\u202eevil"',
  '"\\ufeff"',
  '"\\u200b"',
  '"\\u001b[31mred"',
  '"line\\nbreak\\r\\n"',
  '"\\t"',
  '"😀👩🏽‍💻"',
  '"e\\u0301\\u0301\\u0301"',
  '"Ωmega ção"',
  // SQL, path and template metacharacters
  '"\' OR 1=1 --"',
  '"\\"; DROP TABLE clients; --"',
  '"1; DELETE FROM charges"',
  "\"%' OR '%'='\"",
  '"../../etc/passwd"',
  '"..%2F..%2F"',
  '"%00"',
  '"<script>alert(1)</script>"',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a Log4Shell-style lookup string, sent as it is.
  '"${jndi:ldap://example.invalid/a}"',
  '"{{7*7}}"',
  '"$where"',
  '"*"',
  // timestamps at and past the edges
  '"2026-02-30T25:61:61Z"',
  '"9999-12-31T23:59:59.999-23:59"',
  '"0000-01-01T00:00:00+23:59"',
  '"+275760-09-13T00:00:00.000Z"',
  '"2026-11-21T14:30:00.0000000000000000001Z"',
  '"2026-12-31T23:59:60Z"',
  '"2026-11-21"',
  '"1e308"',
  // huge strings, the format-checked shapes among them (e-mail, URL)
  JSON.stringify('x'.repeat(20_000)),
  JSON.stringify(`${'a'.repeat(15_000)}@example.com`),
  JSON.stringify(`${'a.'.repeat(8_000)}@x`),
  JSON.stringify(`https://${'a.'.repeat(8_000)}example.com/`),
  JSON.stringify(`https://example.com/${'%'.repeat(10_000)}`),
  `"${'\\ud800'.repeat(2_000)}"`,
  JSON.stringify('ç'.repeat(9_000)),
  JSON.stringify('0'.repeat(10_000)),
  // nulls and wrong types
  'null',
  'true',
  'false',
  '[]',
  '{}',
  '[null]',
  '[[]]',
  '[{}]',
  '{"$gt":""}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '[1,2,3]',
  '["charge.paid","charge.paid"]',
  '{"a":{"b":{"c":null}}}',
];

/** Text that is not JSON (or not only JSON). */
const malformedJson: readonly string[] = [
  '{',
  '}',
  '[',
  ']',
  '{"',
  '{"a"',
  '{"a":',
  '{"a":1,',
  '{"a":1,}',
  '[1,]',
  "{'a':1}",
  '{a:1}',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":-Infinity}',
  '{"a":undefined}',
  '{"a":01}',
  '{"a":1.}',
  '{"a":.5}',
  '{"a":+1}',
  '{"a":0x10}',
  '{"a":1e}',
  '{"a":"\\x41"}',
  '{"a":"\\u12"}',
  '{"a":"\\ud8"}',
  '{"a":"line\nbreak"}',
  '{"a":"nul\u0000"}',
  '{"a":"tab\there"}',
  '{"a":1}{"b":2}',
  '{"a":1} x',
  '/* comment */ {}',
  '{"a":1 // comment\n}',
  '\u0000',
  '\u0000{}',
  '\ufeff{}',
  'null null',
  '"unterminated',
  '{"a":"\\"}',
  '{}}',
  '{"a":[}',
  'true false',
  'tru',
  'nul',
  '1e',
  '-',
  '--1',
  '0.',
  ',',
  ':',
  '{,}',
  '{"a" 1}',
  '{"a"::1}',
  '{"":}',
  '\\',
  '\\u0000',
  '<xml/>',
  'a=1&b=2',
];

const extraKeys: readonly string[] = [
  'extra',
  '__proto__',
  'constructor',
  'prototype',
  'id',
  'companyId',
  'status',
  'createdAt',
  '',
  ' ',
  '\u0000',
  '$where',
  'a'.repeat(300),
  '😀',
  'name\u0000',
];

// ---------------------------------------------------------------------------------------------
// Records made before the run, filled in by beforeAll.

const foreignIds: string[] = [];
/** Company A's own ids of the records checked after the run: only sent to GET operations, which cannot change them. */
const ownIds: string[] = [];
/**
 * Company A's records the fuzz may change (not checked after the run): a development charge, a
 * live one and a webhook for the operations that move or edit them, and a webhook to delete.
 */
const scratch = { charges: [] as string[], webhook: '', doomedWebhook: '', subscription: '' };
/** Company A's records that bodies refer to (read only): a plain product, a subscription product, a client. */
const refs = { product: '', subscriptionProduct: '', client: '' };

/**
 * The contract's example with its references pointed at company A's records, so that a valid
 * body gets past the reference checks and its broken variants reach the handlers.
 */
function live(op: ContractOperation, example: unknown): unknown {
  const subscriptions = op.operationId === 'createSubscription' || op.operationId === 'updateSubscription';
  const replace = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(replace);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        if (key === 'productId') return [key, subscriptions ? refs.subscriptionProduct : refs.product];
        if (key === 'clientId' || key === 'customerId') return [key, refs.client];
        if (key === 'id' && op.operationId === 'updateSubscription') return [key, scratch.subscription];
        return [key, replace(item)];
      }),
    );
  };
  return replace(example);
}

/** The contract's examples and their live variants. */
function bodiesOf(op: ContractOperation): unknown[] {
  const examples = examplesOf(op);
  const variants = examples.map((e) => live(op, e)).filter((v) => JSON.stringify(v) !== JSON.stringify(examples[0]));
  return [...examples, ...variants];
}

/** Values that name real records of another company, as JSON texts. */
function foreignJson(): string[] {
  return foreignIds.map((id) => JSON.stringify(id));
}

// ---------------------------------------------------------------------------------------------
// Bodies.

type Path = Array<string | number>;

/** Every member and element of a JSON value, containers included, the root excluded. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  const result: Path[] = [];
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      result.push([...prefix, index], ...pathsOf(item, [...prefix, index]));
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) result.push([...prefix, key], ...pathsOf(item, [...prefix, key]));
  }
  return result;
}

/** Objects inside a JSON value, the root included. */
function objectPathsOf(value: unknown): Path[] {
  const isObject = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v);
  return [[], ...pathsOf(value)].filter((path) => isObject(at(value, path)));
}

function at(value: unknown, path: Path): unknown {
  return path.reduce<unknown>((current, key) => (current as Record<string | number, unknown>)[key], value);
}

const RAW = '@@FUZZ-RAW@@';
const KEY = '@@FUZZ-KEY@@';

/** The example with the value at `path` replaced by the JSON text `raw`. */
function withRaw(example: unknown, path: Path, raw: string): string {
  const copy = structuredClone(example);
  const parent = at(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  parent[path[path.length - 1]!] = RAW;
  return JSON.stringify(copy).replace(`"${RAW}"`, () => raw);
}

function without(example: unknown, path: Path): string {
  const copy = structuredClone(example);
  const parent = at(copy, path.slice(0, -1)) as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else delete parent[last];
  return JSON.stringify(copy);
}

/** The example with one more member `key: raw` in the object at `path` (a key may repeat one already there). */
function withMember(example: unknown, path: Path, key: string, raw: string): string {
  const copy = structuredClone(example);
  (at(copy, path) as Record<string, unknown>)[KEY] = RAW;
  return JSON.stringify(copy).replace(`"${KEY}":"${RAW}"`, () => `${JSON.stringify(key)}:${raw}`);
}

function nested(depth: number, open: string, close: string, inner = '1'): string {
  return `${open.repeat(depth)}${inner}${close.repeat(depth)}`;
}

const hostileValue = (): fc.Arbitrary<string> =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...hostileJson), weight: 6 },
    { arbitrary: fc.constantFrom(...foreignJson()), weight: 1 },
    { arbitrary: fc.json({ maxDepth: 3 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map((s) => JSON.stringify(s)), weight: 2 },
    { arbitrary: fc.double().map((n) => JSON.stringify(n)), weight: 1 },
    { arbitrary: fc.integer().map(String), weight: 1 },
  );

interface BodyChoice {
  what: string;
  body: Uint8Array;
}

function bodyArb(examples: readonly unknown[]): fc.Arbitrary<BodyChoice> {
  const example = fc.constantFrom(...(examples.length > 0 ? examples : [{}]));
  const text =
    (what: string) =>
    (t: string): BodyChoice => ({ what, body: utf8(t) });
  return fc.oneof(
    // the example as it is: a control that may well succeed
    { arbitrary: example.map((e) => text('valid example')(JSON.stringify(e))), weight: 1 },
    // truncated at a random point
    {
      arbitrary: fc.tuple(example, fc.nat()).map(([e, cut]) => {
        const t = JSON.stringify(e);
        return text(`truncated at ${cut % t.length}`)(t.slice(0, cut % t.length));
      }),
      weight: 4,
    },
    // not JSON
    { arbitrary: fc.constantFrom(...malformedJson).map(text('malformed JSON')), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 200 }).map(text('random text')), weight: 1 },
    {
      arbitrary: fc.tuple(example, fc.nat(), fc.constantFrom('{', '}', '"', ',', ':', '\\', '\u0000', '\n', 'x', ']')).map(([e, at, c]) => {
        const t = JSON.stringify(e);
        const i = at % (t.length + 1);
        return text(`${JSON.stringify(c)} inserted at ${i}`)(`${t.slice(0, i)}${c}${t.slice(i)}`);
      }),
      weight: 2,
    },
    // one member broken
    {
      arbitrary: fc.tuple(example, fc.nat(), hostileValue()).map(([e, pick, raw]) => {
        const paths = pathsOf(e);
        if (paths.length === 0) return text(`body ${raw.slice(0, 40)}`)(raw);
        const path = paths[pick % paths.length]!;
        return text(`/${path.join('/')} = ${raw.slice(0, 60)}`)(withRaw(e, path, raw));
      }),
      weight: 10,
    },
    {
      arbitrary: fc.tuple(example, fc.nat()).map(([e, pick]) => {
        const paths = pathsOf(e);
        const path = paths[pick % Math.max(paths.length, 1)];
        return path ? text(`/${path.join('/')} removed`)(without(e, path)) : text('empty object')('{}');
      }),
      weight: 2,
    },
    {
      arbitrary: fc
        .tuple(example, fc.nat(), fc.oneof(fc.constantFrom(...extraKeys), fc.string({ maxLength: 12 })), hostileValue())
        .map(([e, pick, key, raw]) => {
          const paths = objectPathsOf(e);
          const path = paths[pick % paths.length]!;
          return text(`extra member ${JSON.stringify(key.slice(0, 30))} at /${path.join('/')}`)(withMember(e, path, key, raw));
        }),
      weight: 3,
    },
    {
      // a member repeated: the parser keeps the last, which must still be validated
      arbitrary: fc.tuple(example, fc.nat(), hostileValue()).map(([e, pick, raw]) => {
        const paths = objectPathsOf(e).filter((p) => Object.keys(at(e, p) as object).length > 0);
        const path = paths[pick % Math.max(paths.length, 1)] ?? [];
        const key = Object.keys(at(e, path) as object)[0] ?? 'a';
        return text(`duplicate member ${key} at /${path.join('/')}`)(withMember(e, path, key, raw));
      }),
      weight: 2,
    },
    // a whole body of another type
    { arbitrary: hostileValue().map((raw) => text(`body ${raw.slice(0, 40)}`)(raw)), weight: 2 },
    // deep nesting, at the root and inside a member
    {
      arbitrary: fc
        .tuple(example, fc.constantFrom(1_000, 5_000, 10_000), fc.constantFrom('arrays', 'objects', 'unclosed', 'member'), fc.nat())
        .map(([e, depth, shape, pick]) => {
          switch (shape) {
            case 'arrays':
              return text(`${depth} nested arrays`)(nested(depth, '[', ']'));
            case 'objects': {
              const d = Math.min(depth, 5_000);
              return text(`${d} nested objects`)(nested(d, '{"a":', '}'));
            }
            case 'unclosed':
              return text(`${depth} unclosed arrays`)('['.repeat(depth));
            default: {
              const paths = pathsOf(e);
              const path = paths[pick % Math.max(paths.length, 1)];
              const deep = nested(depth, '[', ']');
              return text(`${depth} nested arrays at /${path?.join('/') ?? ''}`)(path ? withRaw(e, path, deep) : deep);
            }
          }
        }),
      weight: 2,
    },
    // over the size limit (and exactly at it)
    {
      arbitrary: fc
        .tuple(example, fc.integer({ min: BODY_LIMIT + 1, max: BODY_LIMIT * 3 }), fc.constantFrom('padded', 'string', 'garbage', 'exact'))
        .map(([e, size, shape]) => {
          const t = JSON.stringify(e);
          switch (shape) {
            case 'padded':
              return text(`valid JSON padded to ${size} bytes`)(`${t}${' '.repeat(Math.max(0, size - t.length))}`);
            case 'exact':
              return text(`valid JSON padded to exactly ${BODY_LIMIT} bytes`)(`${t}${' '.repeat(Math.max(0, BODY_LIMIT - t.length))}`);
            case 'string': {
              const paths = pathsOf(e);
              const path = paths[size % Math.max(paths.length, 1)];
              const big = JSON.stringify('x'.repeat(size));
              return text(`a ${size}-character member`)(path ? withRaw(e, path, big) : big);
            }
            default:
              return text(`${size} bytes of garbage`)('\u0001'.repeat(size));
          }
        }),
      weight: 2,
    },
    // bytes that are not UTF-8 text, or not only
    {
      arbitrary: fc.tuple(example, fc.constantFrom('utf16', 'bom', 'latin1', 'random', 'nul')).chain(([e, shape]) => {
        const t = JSON.stringify(e);
        switch (shape) {
          case 'utf16':
            return fc.constant({ what: 'UTF-16LE example', body: new Uint8Array(Buffer.from(t, 'utf16le')) });
          case 'bom':
            return fc.constant({ what: 'UTF-8 BOM + example', body: new Uint8Array(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t)])) });
          case 'latin1':
            return fc.constant({
              what: 'example with \\xff bytes in strings',
              body: new Uint8Array(Buffer.from(t.replace(/"([^"]+)"/, '"$1\xff\xfe"'), 'latin1')),
            });
          case 'nul':
            return fc.constant({ what: 'example with a raw NUL byte', body: new Uint8Array(Buffer.from(t.replace(/":"/, '":"\u0000'))) });
          default:
            return fc.uint8Array({ maxLength: 300 }).map((bytes) => ({ what: 'random bytes', body: new Uint8Array(bytes) }));
        }
      }),
      weight: 2,
    },
    { arbitrary: fc.constant(text('empty body')('')), weight: 1 },
  );
}

// ---------------------------------------------------------------------------------------------
// Paths.

const idTricks: readonly string[] = [
  '..%2F..',
  '..%2F..%2Fclient',
  '..%2f..%2f..%2fetc%2fpasswd',
  '%2e%2e%2f%2e%2e',
  '..',
  '.',
  '..%5C..',
  '%00',
  'a%00b',
  'char_%00',
  '%ZZ',
  '%',
  '%2',
  '%ff%fe',
  '%c0%ae%c0%ae',
  '%ED%A0%80',
  '%F0%9F%98%80',
  encodeURIComponent("' OR 1=1 --"),
  encodeURIComponent('"; DROP TABLE clients; --'),
  "'",
  "1'--",
  '1;',
  '*',
  '%2A',
  '%25',
  'null',
  'undefined',
  'NaN',
  '0',
  '-1',
  '1e308',
  'char_',
  'wbhk_',
  'char_ZZ',
  `char_${'a'.repeat(32)}`,
  `wbhk_${'a'.repeat(40)}`,
  'x'.repeat(10_000),
  '%41'.repeat(3_000),
  'a/b',
  '../client',
  '%2e%2e/client',
  'a|b',
  'a^b',
  'a[b]',
  'a\\b',
  'a{b}',
  '',
  ' ',
  '%20',
  '+',
  '%0d%0aX-Injected:%201',
  '%u0000',
  '\u00e7',
  'ç%C3%A7',
  '😀',
];

function idArb(readOnly: boolean, scratchIds: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { arbitrary: fc.constantFrom(...idTricks), weight: 6 },
    { arbitrary: fc.constantFrom(...foreignIds), weight: 2 },
    ...(readOnly ? [{ arbitrary: fc.constantFrom(...ownIds), weight: 2 }] : []),
    { arbitrary: fc.constantFrom(...scratchIds), weight: 3 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }).map((s) => encodeURIComponent(s)), weight: 2 },
    { arbitrary: fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@-]{1,40}$/), weight: 1 },
  );
}

const querySuffix = fc.oneof(
  { arbitrary: fc.constant(''), weight: 8 },
  {
    arbitrary: fc.constantFrom(
      '?',
      '?id=1%27%20OR%201=1',
      '?limit=-1&offset=1e308',
      '?a[b]=1',
      '?%00=%00',
      `?q=${'x'.repeat(5_000)}`,
      '#frag',
      '?__proto__[x]=1',
    ),
    weight: 1,
  },
);

function pathArb(op: ContractOperation): fc.Arbitrary<string> {
  if (op.path.includes('{')) {
    const scratchIds = op.method === 'delete' ? [scratch.doomedWebhook] : [...scratch.charges, scratch.webhook];
    return fc.tuple(idArb(op.method === 'get', scratchIds), querySuffix).map(([id, query]) => `${op.path.replace(/\{[^}]+\}/g, () => id)}${query}`);
  }
  return fc
    .tuple(
      fc.oneof(
        { arbitrary: fc.constant(op.path), weight: 8 },
        fc.constantFrom(`${op.path}/`, `/${op.path}`, `${op.path.toUpperCase()}`, `${op.path};x=1`, `${op.path}%2F`),
      ),
      querySuffix,
    )
    .map(([p, q]) => `${p}${q}`);
}

// ---------------------------------------------------------------------------------------------
// Headers.

/** Header values the Fetch API accepts: bytes 1–255 but CR and LF (NUL is refused by Headers). */
const headerValue = fc.string({
  unit: fc
    .integer({ min: 1, max: 255 })
    .filter((c) => c !== 10 && c !== 13)
    .map((c) => String.fromCharCode(c)),
  maxLength: 60,
});
const headerName = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,30}$/);

let apiKeyA = '';

interface HeaderChoice {
  what: string;
  values: string[];
}

function apiKeyArb(): fc.Arbitrary<HeaderChoice> {
  const one = (what: string, value: string): HeaderChoice => ({ what, values: [value] });
  return fc.oneof(
    { arbitrary: fc.constant(one('API key', apiKeyA)), weight: 14 },
    { arbitrary: fc.constant<HeaderChoice>({ what: 'no API key', values: [] }), weight: 2 },
    {
      arbitrary: fc.constantFrom(
        one('empty API key', ''),
        one('Bearer API key', `Bearer ${apiKeyA}`),
        one('upper-case API key', apiKeyA.toUpperCase()),
        one('API key with a changed secret', `${apiKeyA.slice(0, -1)}${apiKeyA.endsWith('A') ? 'B' : 'A'}`),
        one('API key with another key id', `sk_${'a'.repeat(24)}${apiKeyA.slice(27)}`),
        one('API key without its secret', apiKeyA.slice(0, 28)),
        one('very long API key', `sk_${'a'.repeat(8_000)}`),
        one('SQL in the API key', "' OR 1=1 --"),
        one('SQL in the API key', '"; DROP TABLE clients; --'),
        one('API key with a tab inside', `${apiKeyA.slice(0, 10)}\t${apiKeyA.slice(10)}`),
        one('API key in latin-1', `${apiKeyA}\u00ff`),
        { what: 'duplicate API key (same)', values: [apiKeyA, apiKeyA] },
        { what: 'duplicate API key (valid, wrong)', values: [apiKeyA, 'sk_wrong'] },
        { what: 'duplicate API key (wrong, valid)', values: ['sk_wrong', apiKeyA] },
        { what: 'duplicate API key (empty, valid)', values: ['', apiKeyA] },
      ),
      weight: 4,
    },
    { arbitrary: headerValue.map((v) => one('random API key', v)), weight: 1 },
  );
}

const contentTypes: ReadonlyArray<string | string[]> = [
  'text/plain',
  'text/plain;charset=UTF-8',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json;charset="UTF-8"',
  'APPLICATION/JSON',
  'Application/Json; Charset=UTF-8',
  'application/jsonx',
  'application/json+x',
  'application/problem+json',
  'application/merge-patch+json',
  'application/*',
  '*/*',
  ';',
  'application/json; charset=',
  'application/json;;',
  'json',
  'application/json, text/plain',
  'application/json; boundary="\u00ff"',
  'application/json\u00a0',
  ['application/json', 'application/json'],
  ['application/json', 'text/plain'],
  ['text/plain', 'application/json'],
  [''],
];

function contentTypeArb(): fc.Arbitrary<HeaderChoice> {
  return fc.oneof(
    { arbitrary: fc.constant<HeaderChoice>({ what: 'JSON', values: ['application/json'] }), weight: 12 },
    { arbitrary: fc.constant<HeaderChoice>({ what: 'no Content-Type', values: [] }), weight: 1 },
    { arbitrary: fc.constantFrom(...contentTypes).map((t) => ({ what: `Content-Type ${JSON.stringify(t)}`, values: Array.isArray(t) ? t : [t] })), weight: 3 },
    { arbitrary: headerValue.map((t) => ({ what: 'random Content-Type', values: [t] })), weight: 1 },
  );
}

const otherHeaders: fc.Arbitrary<Array<[string, string]>> = fc.oneof(
  { arbitrary: fc.constant<Array<[string, string]>>([]), weight: 8 },
  {
    arbitrary: fc.constantFrom<Array<[string, string]>>(
      [['Idempotency-Key', '8e03978e-40d5-43e8-bc93-6894a57f9324']],
      [['Idempotency-Key', '"quoted key"']],
      [['Idempotency-Key', '']],
      [['Idempotency-Key', '""']],
      [['Idempotency-Key', 'k'.repeat(300)]],
      [['Idempotency-Key', "' OR 1=1 --"]],
      [
        ['Idempotency-Key', 'a'],
        ['Idempotency-Key', 'b'],
      ],
      [['Content-Length', '0']],
      [['Content-Length', '99999999999']],
      [['Content-Length', '-1']],
      [['Content-Length', 'abc']],
      [['Content-Length', '1e3']],
      [['X-Padding', 'p'.repeat(17_000)]],
      [['X-HTTP-Method-Override', 'DELETE']],
      [['X-Forwarded-For', '127.0.0.1']],
      [['Accept', 'application/xml']],
      [['Accept', 'text/html']],
      [['Accept-Charset', 'utf-16']],
      [['Content-Encoding', 'gzip']],
      [['Expect', '100-continue']],
      [['If-None-Match', '*']],
      [['Range', 'bytes=0-1']],
    ),
    weight: 3,
  },
  { arbitrary: fc.array(fc.tuple(fc.oneof(headerName, fc.constant('Idempotency-Key')), headerValue), { maxLength: 4 }), weight: 1 },
);

// ---------------------------------------------------------------------------------------------
// The request arbitrary: every operation, every kind of breakage.

/**
 * The operation's method, and now and then another one: HEAD for a GET (D37), another or an
 * unknown one otherwise. (Not a lower-case `patch`: Fetch leaves it as sent, the server rightly
 * answers 405, but the harness's contract check folds case and would call that undocumented.)
 */
function methodArb(op: ContractOperation): fc.Arbitrary<string> {
  const method = op.method.toUpperCase();
  const others = method === 'GET' ? ['HEAD'] : ['OPTIONS', 'PROPFIND', method === 'POST' ? 'PUT' : 'POST'];
  return fc.oneof({ arbitrary: fc.constant(method), weight: 19 }, { arbitrary: fc.constantFrom(...others), weight: 1 });
}

function requestArb(op: ContractOperation): fc.Arbitrary<FuzzRequest> {
  const method = op.method.toUpperCase();
  const examples = bodiesOf(op);
  // GET cannot carry a body (Fetch refuses it); other bodiless operations get bodies too, to be ignored.
  const canCarry = method !== 'GET';
  const body: fc.Arbitrary<BodyChoice | undefined> = canCarry
    ? examples.length > 0
      ? bodyArb(examples)
      : fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: bodyArb([{}]), weight: 1 })
    : fc.constant(undefined);
  return fc
    .record({ method: methodArb(op), path: pathArb(op), apiKey: apiKeyArb(), contentType: contentTypeArb(), others: otherHeaders, body })
    .map(({ method, path, apiKey, contentType, others, body }) => {
      const headers: Array<[string, string]> = apiKey.values.map((v) => ['X-API-KEY', v]);
      if (body) headers.push(...contentType.values.map((v): [string, string] => ['Content-Type', v]));
      headers.push(...others);
      const what = [
        ...(method !== op.method.toUpperCase() ? [`method ${method}`] : []),
        apiKey.what,
        ...(body ? [contentType.what, body.what] : []),
        ...others.map(([n]) => n),
      ].join('; ');
      return shown({ operationId: op.operationId, what, method, path, headers, ...(body ? { body: body.body } : {}) });
    });
}

// ---------------------------------------------------------------------------------------------
// Sending and judging.

interface Answer {
  status: number;
  contentType: string | null;
  text: string;
}

let server: TestServer;

async function send(r: FuzzRequest): Promise<Answer> {
  const headers = new Headers();
  for (const [name, value] of r.headers) headers.append(name, value);
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${SETTLE_MS} ms`)), SETTLE_MS);
  });
  const answer = (async () => {
    const response = await server.request(r.path, { method: r.method, headers, apiKey: null, ...(r.body !== undefined ? { body: r.body } : {}) });
    return { status: response.status, contentType: response.headers.get('content-type'), text: await response.text() };
  })();
  try {
    return await Promise.race([answer, hang]);
  } finally {
    clearTimeout(timer);
  }
}

const requestValidator = new ContractValidator(contract, { useDefaults: false });

/** The request body as the server reads it (UTF-8, a BOM kept), parsed; undefined when it is not JSON. */
function parsedBody(r: FuzzRequest): { value: unknown } | undefined {
  if (r.body === undefined) return undefined;
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(r.body);
  if (text.trim() === '') return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/**
 * What the answer says about the body, checked against the body itself: a 413 only for a body
 * over the limit (or declared so), a 400 only for one that is not JSON, a 2xx only for a body
 * valid against the operation's schema.
 */
function judgeBody(op: ContractOperation, r: FuzzRequest, status: number): string | undefined {
  if (r.body === undefined || r.method !== op.method.toUpperCase()) return undefined;
  const declared = r.headers.filter(([n]) => n.toLowerCase() === 'content-length').map(([, v]) => Number(v));
  if (status === 413 && r.body.byteLength <= BODY_LIMIT && !declared.some((n) => n > BODY_LIMIT))
    return `413 for a body of ${r.body.byteLength} bytes, within the limit`;
  const parsed = parsedBody(r);
  if (status === 400 && parsed && r.body.byteLength <= BODY_LIMIT) return '400 (malformed) for a body that is JSON';
  if (status >= 200 && status < 300 && op.operation.requestBody !== undefined) {
    // Zero bytes are no body (D34, as `curl -X POST` without `-d`), which an optional body allows;
    // so is a declared Content-Length of 0, whatever bytes follow it (they are not this request's).
    const optional = deref<JsonObject>(contract, op.operation.requestBody).required !== true;
    if (optional && (r.body.byteLength === 0 || declared.includes(0))) return undefined;
    if (!parsed) return `${status} for a body that is not JSON`;
    const validate = requestValidator.at(
      `/paths/${op.path.replace(/~/g, '~0').replace(/\//g, '~1')}/${op.method}/requestBody/content/application~1json/schema`,
    );
    if (!validate(parsed.value))
      return `${status} for a body the contract refuses: ${JSON.stringify(validate.errors?.slice(0, 3).map((e) => `${e.instancePath} ${e.message}`))}`;
  }
  return undefined;
}

const byId = new Map(operations.map((op) => [op.operationId, op]));

/** Why the answer breaks the property, or undefined when it holds. */
function judge(r: FuzzRequest, answer: Answer): string | undefined {
  const { status, contentType, text } = answer;
  if (status >= 500) return `server error ${status}`;
  const bodyFault = judgeBody(byId.get(r.operationId)!, r, status);
  if (bodyFault) return bodyFault;
  // A path whose dot segments resolve to the root (`/charge/..`) is the root, which sends a person to the docs.
  if (status === 302 && (r.method === 'GET' || r.method === 'HEAD') && new URL(r.path, 'http://localhost').pathname === '/') return undefined;
  if (r.method === 'HEAD') {
    if (text !== '') return `HEAD answered with a body`;
    if (status >= 400 && contentType !== 'application/problem+json') return `${status} with Content-Type ${contentType}, not application/problem+json`;
    return status >= 200 && status < 500 && (status < 300 || status >= 400) ? undefined : `unexpected status ${status}`;
  }
  if (status >= 200 && status < 300) {
    if (status === 204) return text === '' ? undefined : '204 with a body';
    if (!contentType?.startsWith('application/json')) return `${status} with Content-Type ${contentType}`;
    try {
      JSON.parse(text);
      return undefined;
    } catch {
      return `${status} with a body that is not JSON`;
    }
  }
  if (status < 400) return `unexpected status ${status}`;
  if (contentType !== 'application/problem+json') return `${status} with Content-Type ${contentType}, not application/problem+json`;
  let problem: Record<string, unknown>;
  try {
    problem = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return `${status} problem whose body is not JSON`;
  }
  for (const member of ['type', 'title', 'detail'] as const) {
    if (typeof problem[member] !== 'string' || (problem[member] as string).length === 0) return `${status} problem without a ${member}`;
  }
  if (problem.status !== status) return `${status} problem with status ${JSON.stringify(problem.status)}`;
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// The records made before the run, and their state then.

interface Snapshot {
  clientsA: Schemas['Client'][];
  clientsB: Schemas['Client'][];
  charges: Array<[string, unknown]>;
  webhooks: Array<[string, unknown]>;
  webhooksB: unknown;
  products: Array<[string, string[], unknown]>;
  subscriptions: Array<[string, string, unknown]>;
}

let snapshot: Snapshot;

async function created<T>(what: string, call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (response.status !== 201 || data === undefined) throw new Error(`setup: ${what} answered ${response.status}`);
  return data;
}

/** Records of one company: two clients, two products, two charges, a webhook and a subscription. */
async function makeRecords(api: TestServer['api'], tag: string) {
  const clients = [
    await created('client', api.POST('/client', { body: clientBody({ name: `Maria ${tag}` }) })),
    await created('client', api.POST('/client', { body: clientBody({ name: `Padaria ${tag}`, cpfCnpj: taxIds.cnpj, status: 'INACTIVE' }) })),
  ];
  const products = [
    await created('product', api.POST('/product', { body: productBody({ sku: `CAF-${tag}` }) })),
    await created('product', api.POST('/product', { body: productBody({ sku: `ASS-${tag}`, isSubscription: true, defaultPeriod: 'MONTHLY', price: 49.9 }) })),
  ];
  const charges = [
    await created('charge', api.POST('/charge/payment-link', { body: { total: 12990, devMode: true, customer: customers.joao } })),
    await created('charge', api.POST('/charge/payment-link', { body: { items: [{ productId: products[0]!.id, quantity: 2 }], customerId: clients[0]!.id } })),
  ];
  const webhook = await created(
    'webhook',
    api.POST('/webhook', { body: { url: `https://${tag}.example.com/hooks`, name: `Loja ${tag}`, events: ['charge.paid'] } }),
  );
  const subscription = await created(
    'subscription',
    api.POST('/subscription', { body: { productId: products[1]!.id, clientId: clients[0]!.id, period: 'MONTHLY', price: 49.9, trialDays: 7 } }),
  );
  return { clients, products, charges: charges.map((c) => c.data.id), webhook: webhook.id, subscription: subscription.id };
}

async function listClients(api: TestServer['api']): Promise<Schemas['Client'][]> {
  const { data, response } = await api.GET('/client');
  if (response.status !== 200 || !data) throw new Error(`GET /client answered ${response.status}`);
  return data;
}

async function readState(a: Awaited<ReturnType<typeof makeRecords>>, b: Awaited<ReturnType<typeof makeRecords>>): Promise<Snapshot> {
  const getCharge = async (api: TestServer['api'], id: string) => (await api.GET('/charge/{id}', { params: { path: { id } } })).data;
  const getWebhook = async (api: TestServer['api'], id: string) => (await api.GET('/webhook/{id}', { params: { path: { id } } })).data;
  const store = server.deps.store;
  return {
    clientsA: await listClients(server.api),
    clientsB: await listClients(server.other.api),
    charges: [
      ...(await Promise.all(a.charges.map(async (id): Promise<[string, unknown]> => [id, await getCharge(server.api, id)]))),
      ...(await Promise.all(b.charges.map(async (id): Promise<[string, unknown]> => [id, await getCharge(server.other.api, id)]))),
    ],
    webhooks: [
      [a.webhook, await getWebhook(server.api, a.webhook)],
      [b.webhook, await getWebhook(server.other.api, b.webhook)],
    ],
    webhooksB: (await server.other.api.GET('/webhook')).data,
    products: [
      [
        server.companyId,
        a.products.map((p) => p.id),
        Object.fromEntries(
          await store.getProducts(
            server.companyId,
            a.products.map((p) => p.id),
          ),
        ),
      ],
      [
        server.other.companyId,
        b.products.map((p) => p.id),
        Object.fromEntries(
          await store.getProducts(
            server.other.companyId,
            b.products.map((p) => p.id),
          ),
        ),
      ],
    ],
    subscriptions: [
      [server.companyId, a.subscription, await store.getSubscription(server.companyId, a.subscription)],
      [server.other.companyId, b.subscription, await store.getSubscription(server.other.companyId, b.subscription)],
    ],
  };
}

let seededA: Awaited<ReturnType<typeof makeRecords>>;
let seededB: Awaited<ReturnType<typeof makeRecords>>;

beforeAll(async () => {
  server = await createTestServer({ config: { bodyLimitBytes: BODY_LIMIT } });
  apiKeyA = server.apiKey;
  seededA = await makeRecords(server.api, 'a');
  seededB = await makeRecords(server.other.api, 'b');
  ownIds.push(...seededA.charges, seededA.webhook);
  Object.assign(refs, { product: seededA.products[0]!.id, subscriptionProduct: seededA.products[1]!.id, client: seededA.clients[0]!.id });
  for (const devMode of [true, false]) {
    scratch.charges.push((await created('charge', server.api.POST('/charge/payment-link', { body: { total: 5000, devMode } }))).data.id);
  }
  const webhook = { url: 'https://scratch.example.com/hooks', name: 'Rascunho', events: ['charge.paid' as const] };
  scratch.webhook = (await created('webhook', server.api.POST('/webhook', { body: webhook }))).id;
  scratch.doomedWebhook = (await created('webhook', server.api.POST('/webhook', { body: webhook }))).id;
  const subscription = { productId: refs.subscriptionProduct, period: 'MONTHLY' as const, price: 49.9, trialDays: 0 };
  scratch.subscription = (await created('subscription', server.api.POST('/subscription', { body: subscription }))).id;
  foreignIds.push(...seededB.charges, seededB.webhook, seededB.subscription, ...seededB.products.map((p) => p.id), ...seededB.clients.map((c) => c.id));
  snapshot = await readState(seededA, seededB);
  // The snapshot holds the records themselves, not failed reads.
  expect(snapshot.clientsA.length).toBeGreaterThanOrEqual(2);
  for (const [id, value] of [...snapshot.charges, ...snapshot.webhooks]) expect(value, id).toMatchObject({});
  for (const [, ids, found] of snapshot.products) expect(Object.keys(found as object).sort()).toEqual([...ids].sort());
  for (const [, id, found] of snapshot.subscriptions) expect(found, id).toMatchObject({ id });
  expect(server.violations).toEqual([]);
});

afterAll(async () => server?.close());

test('every operation has a request example to break', () => {
  const withBody = operations.filter((op) => op.operation.requestBody !== undefined);
  expect(withBody.length).toBeGreaterThan(0);
  for (const op of withBody) expect(examplesOf(op).length, op.operationId).toBeGreaterThan(0);
});

test.for(operations.filter((op) => op.operation.requestBody !== undefined).map((op) => [op.operationId, op] as const))(
  '%s: the live example (references to company A) is accepted, so its broken variants reach the handler',
  async ([, op]) => {
    const examples = bodiesOf(op);
    const body = examples[examples.length - 1];
    const path = op.path.replace('{id}', op.operationId === 'updateWebhook' ? scratch.webhook : scratch.charges[0]!);
    const answer = await send(
      shown({
        operationId: op.operationId,
        what: 'live example',
        method: op.method.toUpperCase(),
        path,
        headers: [
          ['X-API-KEY', apiKeyA],
          ['Content-Type', 'application/json'],
        ],
        body: utf8(JSON.stringify(body)),
      }),
    );
    expect(answer.status, answer.text).toBeGreaterThanOrEqual(200);
    expect(answer.status, answer.text).toBeLessThan(300);
    expect(server.violations).toEqual([]);
  },
);

test.skipIf(fuzzed.length === 0)(
  `${minRuns}+ generated requests across ${fuzzed.length === operations.length ? 'every operation' : fuzzed.map((op) => op.operationId).join(', ')}: 4xx problems or valid 2xx, never a 5xx or a hang; the data survives`,
  async () => {
    const sentTo = new Map<string, number>();
    const statuses = new Map<number, number>();
    const started = performance.now();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...fuzzed).chain(requestArb), async (r) => {
        sentTo.set(r.operationId, (sentTo.get(r.operationId) ?? 0) + 1);
        const before = server.violations.length;
        let answer: Answer;
        try {
          answer = await send(r);
        } catch (error) {
          throw new Error(`${(error as Error).message}\n${describeRequest(r)}`);
        }
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        const why = judge(r, answer) ?? (server.violations.length > before ? `contract violation: ${server.violations.slice(before).join('; ')}` : undefined);
        // Violations of this request are in the message; they must not fail the later runs too.
        server.violations.length = before;
        if (why) throw new Error(`${why}\n${describeRequest(r)}\nanswer ${answer.status} ${answer.contentType}: ${answer.text.slice(0, 500)}`);
      }),
      { numRuns, ...(seed !== undefined ? { seed } : {}), ...(replayPath !== undefined ? { path: replayPath } : {}) },
    );
    const seconds = (performance.now() - started) / 1000;
    const tally = (m: Map<string | number, number>) =>
      [...m]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, n]) => `${k} ${n}`)
        .join(', ');
    console.info(`fuzz: ${numRuns} requests in ${seconds.toFixed(1)} s\n  statuses: ${tally(statuses)}\n  operations: ${tally(sentTo)}`);

    // Every operation of the contract (of the scope) was fuzzed.
    expect([...sentTo.keys()].sort()).toEqual(fuzzed.map((op) => op.operationId).sort());
    expect([...sentTo.values()].reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(minRuns);
    expect(server.violations).toEqual([]);

    // The server still answers, reads and writes.
    expect((await server.api.GET('/client')).response.status).toBe(200);
    expect((await server.api.POST('/client', { body: clientBody({ name: 'Depois do fuzz' }) })).response.status).toBe(201);

    // Nothing made before the run changed; company B, never given its key, has exactly what it had.
    const after = await readState(seededA, seededB);
    for (const client of snapshot.clientsA)
      expect(
        after.clientsA.find((c) => c.id === client.id),
        client.id,
      ).toEqual(client);
    expect(after.clientsB).toEqual(snapshot.clientsB);
    expect(after.charges).toEqual(snapshot.charges);
    expect(after.webhooks).toEqual(snapshot.webhooks);
    expect(after.webhooksB).toEqual(snapshot.webhooksB);
    expect(after.products).toEqual(snapshot.products);
    expect(after.subscriptions).toEqual(snapshot.subscriptions);
    // No body reached an object's prototype.
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(server.violations).toEqual([]);
  },
  Math.max(60_000, numRuns * 25),
);

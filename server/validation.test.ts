/**
 * The compiled server's request validators, made at build time: built here as `npm run
 * build:server` builds them (scripts/bundle-node.mjs with scripts/server-validators.ts), each
 * answers exactly as the one compiled at run time (valid or not, with the same errors and the same
 * defaults filled in), and together they are every validator the server asks for: a whole
 * conformance run against a server that has them compiles none at run time.
 *
 * @operation-wide: it enumerates the contract's operations and paged lists, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runInProcess } from '../conformance/test-support/in-process.js';
import { ContractValidator, toFieldErrors, type Validate } from '../lib/contract/ajv.js';
import {
  deref,
  isJsonObject,
  listOperations,
  loadBundledContract,
  requestBodySchemaPointer,
  resolvePointer,
  type JsonObject,
} from '../lib/contract/bundled.js';
import { listPagedLists } from '../lib/contract/lists.js';
import type { PrecompiledValidators } from '../lib/contract/precompiled.js';
import { bundleNodeCommand } from '../scripts/bundle-node.mjs';
import { OperationCatalog } from './http/operations.js';
import { createTestServer } from './test-support/harness.js';
import { repoRoot } from './test-support/processes.js';
import { namedSchemas, serverValidatorOptions, validatedSchemaPointers } from './validation.js';
import { operationScope } from '../scripts/test-operation/scope.js';

const contract = loadBundledContract();
const catalog = new OperationCatalog(new ContractValidator(contract));
/** Compiles at run time: from source there are no validators made ahead. */
const atRunTime = new ContractValidator(contract, serverValidatorOptions);

// In dist/, as the build's: the generated code requires Ajv's runtime from the repository's packages.
mkdirSync(join(repoRoot, 'dist'), { recursive: true });
const folder = mkdtempSync(join(repoRoot, 'dist', 'validators-test-'));
let precompiled: PrecompiledValidators;

beforeAll(async () => {
  // lib/contract/precompiled.ts as the compiled server has it: the build's own module in its place.
  const outfile = join(folder, 'precompiled.mjs');
  await bundleNodeCommand({ entry: 'lib/contract/precompiled.ts', outfile, validators: 'scripts/server-validators.ts' });
  const built: { precompiled: PrecompiledValidators } = await import(pathToFileURL(outfile).href);
  precompiled = built.precompiled;
}, 60_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

function bodyPointer(operationId: string): string {
  const op = listOperations(contract).find((o) => o.operationId === operationId);
  const pointer = op && requestBodySchemaPointer(contract, op);
  if (pointer === undefined) throw new Error(`${operationId} takes no body`);
  return pointer;
}

/** The request examples of an operation's body, as the contract gives them. */
function bodyExamples(operationId: string): Array<[string, JsonObject]> {
  const op = listOperations(contract).find((o) => o.operationId === operationId);
  const media = deref<JsonObject>(contract, op?.operation.requestBody).content as Record<string, JsonObject>;
  const examples = (media['application/json']?.examples ?? {}) as Record<string, unknown>;
  return Object.entries(examples).map(([name, example]) => {
    const value = deref<JsonObject>(contract, example).value;
    if (!isJsonObject(value)) throw new Error(`${operationId}'s example ${name} is not an object`);
    return [name, value];
  });
}

function parameterPointer(operationId: string, name: string): string {
  const parameter = catalog.get(operationId).parameters.find((p) => p.name === name);
  if (!parameter) throw new Error(`${operationId} has no parameter ${name}`);
  return parameter.schemaPointer;
}

/** What a validator answers for (a copy of) `input`: validity, the data as left (defaults filled in), the errors, and the field errors a problem lists. */
function answer(validate: Validate, input: unknown) {
  const data = structuredClone(input);
  const valid = validate(data);
  const errors = validate.errors ?? [];
  return { valid, data, errors: [...errors], fieldErrors: toFieldErrors(errors) };
}

function compare(pointer: string, input: unknown) {
  const ahead = precompiled.validators[pointer];
  expect(ahead, `no validator made ahead for ${pointer}`).toBeDefined();
  const got = answer(ahead!, input);
  const want = answer(atRunTime.at(pointer), input);
  expect(got).toEqual(want);
  return want;
}

const everyExample = listOperations(contract)
  .filter((op) => requestBodySchemaPointer(contract, op) !== undefined)
  .flatMap((op) => bodyExamples(op.operationId).map(([name, value]) => [op.operationId, name, value] as const));

/** Bodies broken one way each: a required field, a pattern, a format, a bound, an enum, an unknown field, anyOf, dependentSchemas. */
const brokenBodies: Array<[operationId: string, how: string, breakIt: (body: JsonObject) => void]> = [
  ['createClient', 'a required field missing', (b) => delete b.email],
  ['createClient', 'a CPF with wrong check digits (cpf-cnpj format)', (b) => (b.cpfCnpj = '529.982.247-26')],
  ['createClient', 'an e-mail that is no address (email format)', (b) => (b.email = 'maria at example')],
  ['createClient', 'a phone that is no phone (phone-br format and pattern)', (b) => (b.phone = '12')],
  ['createClient', 'a CEP of 7 digits (cep format)', (b) => (b.postalCode = '0131010')],
  ['createClient', 'a status out of its enum', (b) => (b.status = 'BLOCKED')],
  ['createClient', 'a field the schema does not name', (b) => (b.nickname = 'Mari')],
  ['createClient', 'a name past its maxLength, and a number for a string', (b) => Object.assign(b, { name: 'x'.repeat(256), address: 42 })],
  ['createPaymentLink', 'a total under its minimum', (b) => (b.total = 499)],
  ['createPaymentLink', 'a customerId not of its pattern', (b) => (b.customerId = 'client-7')],
  ['createPaymentLink', 'neither total nor items (anyOf)', (b) => delete b.total],
  [
    'createPaymentLink',
    'customer sent with customerId (dependentSchemas)',
    (b) => (b.customer = { name: 'Maria', taxId: '52998224725', email: 'maria@example.com', phone: '11987654321' }),
  ],
  ['createPaymentLink', 'a successUrl that is no URL (uri format)', (b) => (b.successUrl = 'obrigado')],
  ['createWebhook', 'no events (minItems)', (b) => (b.events = [])],
  ['createWebhook', 'an event twice (uniqueItems)', (b) => (b.events = ['charge.paid', 'charge.paid'])],
  ['createProduct', 'a price of zero (exclusiveMinimum)', (b) => (b.price = 0)],
  ['createProduct', 'a price with three decimal places (brl format)', (b) => (b.price = 64.955)],
  ['createSubscription', 'trialDays past its maximum, and a fraction', (b) => Object.assign(b, { trialDays: 366.5 })],
  ['createOrder', 'a state that is no state, and no total', (b) => Object.assign(b, { state: 'XX', total: undefined })],
  ['updateWebhook', 'an empty body', (b) => delete b.status],
];

/** Every paged list of the contract (D48), each walked below: a new one needs no row here. */
const pagedLists = listPagedLists(contract);

/** The examples the contract gives of a schema (OpenAPI 3.1's `examples`, or `example`). */
function idExamples(pointer: string): unknown[] {
  const schema = resolvePointer(contract, pointer);
  if (!isJsonObject(schema)) return [];
  return Array.isArray(schema.examples) ? schema.examples : 'example' in schema ? [schema.example] : [];
}

/** Parameter values, valid and not, each as the catalog hands it to the validator (a query number already read as one). */
const parameterValues: Array<[operationId: string, name: string, value: unknown]> = [
  ...pagedLists.flatMap(
    ({ operation: { operationId }, largestPage }): Array<[string, string, unknown]> => [
      [operationId, 'limit', 100],
      [operationId, 'limit', 0],
      [operationId, 'limit', largestPage + 1],
      [operationId, 'limit', 'ten'],
      [operationId, 'after', 'MjAyNi0xMS0yMVQxNDozNToxMi4zNDVa'],
      [operationId, 'after', 'not/base64url'],
    ],
  ),
  ['getCharge', 'id', 'chrg_qf1ntfya8fmpj4swmjr4645w'],
  ['getCharge', 'id', 'chrg_'],
  ['getClient', 'id', `clnt_${'a'.repeat(40)}`],
  ['createPaymentLink', 'Idempotency-Key', '8e03978e-40d5-43e8-bc93-6894a57f9324'],
  ['createPaymentLink', 'Idempotency-Key', '"with spaces, quoted"'],
  ['createPaymentLink', 'Idempotency-Key', 'bare "quote"'],
];

describe('the validators made at build time', () => {
  test('are every schema the server validates, made with the server option', () => {
    expect(precompiled.useDefaults).toBe(serverValidatorOptions.useDefaults);
    expect(Object.keys(precompiled.validators).sort()).toEqual(validatedSchemaPointers(contract).sort());
  });

  test.each(everyExample)('%s: its example %s is valid, as at run time (defaults filled in alike)', (operationId, _name, example) => {
    expect(compare(bodyPointer(operationId), example).valid).toBe(true);
  });

  test.each(brokenBodies)('%s: %s is refused with the same errors as at run time', (operationId, _how, breakIt) => {
    const body = structuredClone(bodyExamples(operationId).at(-1)![1]);
    breakIt(body);
    const want = compare(bodyPointer(operationId), body);
    expect(want.valid).toBe(false);
    expect(want.fieldErrors.length).toBeGreaterThan(0);
  });

  test.each(parameterValues)('%s: parameter %s = %j answers as at run time', (operationId, name, value) => {
    compare(parameterPointer(operationId, name), value);
  });

  test.each<[string, unknown]>([
    [namedSchemas.cents, 12_990],
    [namedSchemas.cents, 499],
    [namedSchemas.cents, 12.5],
    // The id a page cursor names, of each paged list's records: the contract's examples, and one of no record.
    ...pagedLists.flatMap(
      ({ idSchema }): Array<[string, unknown]> => [
        ...idExamples(idSchema!).map((id): [string, unknown] => [idSchema!, id]),
        [idSchema!, 'nope_qf1ntfya8fmpj4swmjr4645w'],
      ],
    ),
  ])('%s: %j answers as at run time', (pointer, value) => {
    compare(pointer, value);
  });
});

/** A validator that notes every schema it is asked for. */
class NotingValidator extends ContractValidator {
  readonly asked = new Set<string>();

  override at(pointer: string): Validate {
    this.asked.add(pointer);
    return super.at(pointer);
  }
}

/** Under `npm run test:operation`, the run of the operation's scope (scripts/test-operation/scope.ts) rather than a whole one. */
const scope = operationScope();

test(`${scope ? `a conformance run of ${scope.join(', ')}` : 'a whole conformance run'} against a server with them compiles no validator at run time`, async () => {
  const validator = new NotingValidator(contract, { ...serverValidatorOptions, precompiled });
  const server = await createTestServer({ validator });
  try {
    const report = await runInProcess(server, { runId: 'precompiled', webhookReceiver: undefined, ...(scope ? { only: [...scope] } : {}) });
    expect(report.results.length).toBeGreaterThan(0);
    expect(report.results.filter((r) => r.outcome === 'fail')).toEqual([]);
    // The run follows no page cursor: a walk through each paged list's pages does (a list's create is in its scope).
    const walked = pagedLists.filter((list) => !scope || scope.includes(list.operation.operationId));
    if (!scope) expect(pagedLists.length).toBeGreaterThan(0);
    for (const { operation } of walked) {
      const first = await server.request(`${operation.path}?limit=1`);
      expect(first.status, `GET ${operation.path}?limit=1`).toBe(200);
      const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
      expect(next, `the run left fewer than two records of ${operation.operationId} to page through`).toBeDefined();
      const nextPage = new URL(next!, 'http://localhost');
      expect((await server.request(`${nextPage.pathname}${nextPage.search}`)).status).toBe(200);
    }
    // The run reached the schemas the server's code names, not only the operations' own (a whole run does).
    const reached = [...(scope ? [] : Object.values(namedSchemas)), ...walked.map((list) => list.idSchema)];
    expect([...validator.asked]).toEqual(expect.arrayContaining(reached));
    expect(validator.compiledAtRunTime).toBe(0);
  } finally {
    await server.close();
  }
}, 120_000);

import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { ContractValidator, validatorMaker as maker } from './ajv.js';
import { loadBundledContract, type JsonObject } from './bundled.js';
import { readOrMake, schemaPointersOf } from './validator-cache.js';

const folder = mkdtempSync(join(tmpdir(), 'validator-cache-test-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

const contract = loadBundledContract();

const cases: Array<[string, unknown]> = [
  ['/components/schemas/PaymentLinkCreate', { total: 500 }],
  ['/components/schemas/PaymentLinkCreate', { devMode: true }],
  ['/components/schemas/PaymentLinkCreate', { total: 500, customer: { name: 'Maria', taxId: '52998224726', email: 'x', phone: '1' } }],
  ['/components/schemas/ClientCreate', { name: 'A', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'a@example.com' }],
  ['/components/schemas/Cents', -1],
];

test('validators read from the cache answer and err as validators compiled at run time, for both options', () => {
  for (const useDefaults of [false, true]) {
    const kept = readOrMake(contract, useDefaults, maker, folder);
    const compiled = new ContractValidator(contract, { useDefaults, onDisk: false });
    for (const [pointer, value] of cases) {
      const fromCache = kept[pointer];
      expect(fromCache, pointer).toBeDefined();
      const [a, b] = [structuredClone(value), structuredClone(value)];
      expect(fromCache!(a), `${pointer} ${JSON.stringify(value)}`).toBe(compiled.at(pointer)(b));
      expect(fromCache!.errors ?? null).toEqual(compiled.at(pointer).errors ?? null);
      // useDefaults fills in the same defaults.
      expect(a).toEqual(b);
    }
    expect(compiled.compiledAtRunTime).toBeGreaterThan(0);
  }
  expect(readdirSync(folder).filter((name) => name.endsWith('.cjs'))).toHaveLength(2);
});

test('a contract changed in content is another entry, whose validators follow the change', () => {
  const changed = structuredClone(contract) as JsonObject & { components: { schemas: { Cents: JsonObject } } };
  changed.components.schemas.Cents = { ...changed.components.schemas.Cents, minimum: -5 };
  const before = readdirSync(folder).length;
  expect(readOrMake(contract, false, maker, folder)['/components/schemas/Cents']!(-1)).toBe(false);
  expect(readdirSync(folder)).toHaveLength(before);
  expect(readOrMake(changed, false, maker, folder)['/components/schemas/Cents']!(-1)).toBe(true);
  expect(readdirSync(folder)).toHaveLength(before + 1);
});

test('every parameter, header and body schema of the contract is kept, and each named schema', () => {
  const pointers = schemaPointersOf(contract);
  expect(pointers).toContain('/components/schemas/Cents');
  expect(pointers).toContain('/components/parameters/IdempotencyKey/schema');
  expect(pointers.filter((pointer) => pointer.startsWith('/paths/') && pointer.includes('/requestBody/')).length).toBeGreaterThan(0);
  expect(pointers.filter((pointer) => pointer.includes('/responses/')).length).toBeGreaterThan(0);
  // Nothing inside a schema or an example is taken for one.
  expect(pointers.filter((pointer) => /\/(properties|examples?)\//.test(pointer))).toEqual([]);
});

test('from source, the bundled contract is validated without compiling: its validators come from the cache', () => {
  const validator = new ContractValidator();
  for (const [pointer, value] of cases) validator.at(pointer)(value);
  expect(validator.compiledAtRunTime).toBe(0);
  // Another contract is compiled when asked for, unless it asks for the cache.
  const other = new ContractValidator(structuredClone(contract));
  other.at('/components/schemas/Cents');
  expect(other.compiledAtRunTime).toBe(1);
});

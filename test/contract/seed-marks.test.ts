/**
 * The other half of seed coverage: what the `seed` profile holds a deployment to is only what
 * the seed says. Every constraint left on a seed operation's success answer once the marked
 * decisions are taken out (the seed view the conformance suite validates with) must be one the
 * seed-coverage table records for that field; anything else is a decision without its mark,
 * and a live service that decided otherwise would fail the `seed` profile for nothing.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { deref, listOperations, type JsonObject } from '../../lib/contract/bundled.js';
import { seedView } from '../../conformance/engine/seed-view.js';
import { isObject, loadContract } from './support.js';
import { flattenFields, table, type FieldRow, type OperationRow } from './seed-table.js';

/** One constraint of a schema at a location in the table's notation (`data.items[].companyId`, `[].id`). */
interface Constraint {
  at: string;
  keyword: string;
  value: unknown;
}

const constraintKeywords = [
  'pattern',
  'format',
  'maxLength',
  'minLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'enum',
  'const',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'additionalProperties',
  'not',
  'if',
  'dependentRequired',
  'dependentSchemas',
];

const child = (at: string, name: string) => (at === '' ? name : `${at}.${name}`);

/** Every constraint of `raw` and what it contains, `$ref`s followed and composed schemas merged into their location. */
function constraintsOf(doc: JsonObject, raw: unknown, at = '', seen: string[] = []): Constraint[] {
  if (!isObject(raw)) return [];
  if (typeof raw.$ref === 'string') {
    if (seen.includes(raw.$ref)) return [];
    return constraintsOf(doc, deref(doc, raw), at, [...seen, raw.$ref]);
  }
  const found: Constraint[] = [];
  for (const keyword of constraintKeywords)
    if (keyword in raw && !(keyword === 'additionalProperties' && raw[keyword] === true)) found.push({ at, keyword, value: raw[keyword] });
  if (raw.type === 'integer' || (Array.isArray(raw.type) && raw.type.includes('integer'))) found.push({ at, keyword: 'type', value: 'integer' });
  if (Array.isArray(raw.required)) for (const name of raw.required) found.push({ at: child(at, String(name)), keyword: 'required', value: true });
  if (isObject(raw.properties)) for (const [name, schema] of Object.entries(raw.properties)) found.push(...constraintsOf(doc, schema, child(at, name), seen));
  if (raw.items !== undefined) found.push(...constraintsOf(doc, raw.items, `${at}[]`, seen));
  for (const keyword of ['allOf', 'anyOf', 'oneOf'])
    if (Array.isArray(raw[keyword])) for (const member of raw[keyword] as unknown[]) found.push(...constraintsOf(doc, member, at, seen));
  return found;
}

/** Whether the table's row for the location records the constraint as the seed's. */
function recorded(row: FieldRow | undefined, { keyword, value }: Constraint): boolean {
  if (!row) return false;
  switch (keyword) {
    case 'required':
      return row.required === true;
    case 'pattern':
      return row.pattern === value || (row.prefix !== undefined && typeof value === 'string' && value.startsWith(`^${row.prefix}`));
    case 'format':
      return row.format === value || (value === 'date-time' && row.type === 'date-time');
    case 'maxLength':
      return row.maxLength === value;
    case 'minimum':
      return row.minimum === value;
    case 'const':
      // Seed §3 rule 1: a single value the seed fixes (a new order is CREATED/PENDING).
      return Array.isArray(row.enum) && row.enum.length === 1 && row.enum[0] === value;
    case 'enum':
      return row.type === 'enum' || row.enum !== undefined || row.enum_if_declared !== undefined || row.enum_if_declared_includes !== undefined;
    case 'type':
      // Seed §1: a charge total in cents is an integer-valued number.
      return row.unit === 'cents';
    default:
      return false;
  }
}

/** Unmarked constraints of an operation's success answers that its table rows do not record. */
function unrecorded(doc: JsonObject, row: OperationRow): string[] {
  const op = listOperations(doc).find((o) => o.method === row.method.toLowerCase() && o.path === row.path);
  if (!op) return [`${row.method} ${row.path}: not in the contract`];
  const rows = new Map(flattenFields(row.response.fields).map((r) => [r.at, r]));
  const problems: string[] = [];
  for (const [code, response] of Object.entries((op.operation.responses ?? {}) as JsonObject)) {
    if (!/^2/.test(code)) continue;
    const media = (deref(doc, response).content as JsonObject | undefined)?.['application/json'];
    const schema = isObject(media) ? media.schema : undefined;
    for (const constraint of constraintsOf(doc, schema)) {
      if (!recorded(rows.get(constraint.at), constraint))
        problems.push(`${row.method} ${row.path} ${code} ${constraint.at || '(root)'}: ${constraint.keyword} ${JSON.stringify(constraint.value)}`);
    }
  }
  return problems;
}

describe('rules (self-check on fixtures)', () => {
  const doc: JsonObject = {
    paths: {
      '/thing': {
        get: { responses: { '200': { content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Thing' } } } } } } },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['id'],
          properties: {
            id: { type: 'string', pattern: '^thng_' },
            ownerId: { type: 'string', allOf: [{ $ref: '#/components/schemas/OwnerId' }] },
            count: { type: 'integer', maximum: 9 },
          },
        },
        OwnerId: { type: 'string', pattern: '^ownr_' },
      },
    },
  };
  const row = (fields: FieldRow[]): OperationRow => ({
    seed: '1',
    method: 'GET',
    path: '/thing',
    server: 'base_url',
    api_key: 'required',
    success: 200,
    response: { root: 'array', fields },
  });
  test.each<[string, { fields: FieldRow[]; want: string[] }]>([
    [
      'everything recorded',
      {
        fields: [
          { at: '[].id', required: true, prefix: 'thng_' },
          { at: '[].ownerId', prefix: 'ownr_' },
          { at: '[].count', unit: 'cents' },
        ],
        want: ['GET /thing 200 [].count: maximum 9'],
      },
    ],
    [
      'a pattern reached through allOf and not recorded',
      {
        fields: [{ at: '[].id', required: true, prefix: 'thng_' }, { at: '[].ownerId' }],
        want: ['GET /thing 200 [].ownerId: pattern "^ownr_"', 'GET /thing 200 [].count: type "integer"', 'GET /thing 200 [].count: maximum 9'],
      },
    ],
    [
      'required where the seed does not say so',
      {
        fields: [{ at: '[].id', prefix: 'thng_' }],
        want: [
          'GET /thing 200 [].id: required true',
          'GET /thing 200 [].ownerId: pattern "^ownr_"',
          'GET /thing 200 [].count: type "integer"',
          'GET /thing 200 [].count: maximum 9',
        ],
      },
    ],
  ])('%s', (_name, { fields, want }) => {
    expect(unrecorded(doc, row(fields)).sort()).toEqual(want.sort());
  });
});

describe('the seed view of the bundled contract', () => {
  const loaded = loadContract();
  const seed = loaded.value ? seedView(loaded.value) : {};
  test.each(table.operations.map((row) => [`${row.method} ${row.path}`, row] as const))(
    "%s: every unmarked constraint of its success answer is the seed's",
    (_name, row) => {
      expect(loaded.error).toBeUndefined();
      expect(unrecorded(seed, row)).toEqual([]);
    },
  );
});

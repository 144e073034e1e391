/**
 * Every example of the bundled contract validates against its schema (Ajv,
 * JSON Schema 2020-12 as OpenAPI 3.1 uses it), and example data is realistic
 * Brazilian data: CPF/CNPJ check digits, phones with a real DDD, Pix BR Codes
 * with a right CRC whose QR image decodes to the same code, charge totals in
 * whole cents of at least 500.
 *
 * @operation-wide: it enumerates the contract's examples, so `npm run test:operation` runs it, but its rows for other operations.
 */
import QRCode from 'qrcode';
import { describe, expect, test } from 'vitest';
import { ContractValidator } from '../../lib/contract/ajv.js';
import { resolvePointer } from '../../lib/contract/bundled.js';
import { isValidDdd, phoneProblems, taxIdProblems } from './brazil.js';
import { brCodeAmountCents, brCodePixKey, brCodeProblems, qrTextOfDataUri } from '../../conformance/pix/brcode-check.js';
import { isUnregistrablePixKey } from '../../lib/pix/pix-key.js';
import { bcbExample, pixBody, withCrc } from '../../conformance/pix/brcode-fixtures.js';
import { childPointer, follow, httpMethods, isObject, lastToken, loadContract, type JsonObject } from './support.js';

// ---------------------------------------------------------------------------
// Collecting examples
// ---------------------------------------------------------------------------

interface ExampleCase {
  /** JSON Pointer of the example value in the bundled contract. */
  pointer: string;
  /** JSON Pointer of the schema it must validate against; undefined when the example has no schema. */
  schemaPointer: string | undefined;
  value: unknown;
  /** Name of the property, parameter or header the value stands for (schema-level, parameter and header examples). */
  key: string | undefined;
  /** Reached from a /charge operation or a Charge / PaymentLink schema: `total` is a charge total in cents. */
  charge: boolean;
  /** Set when the example object has no `value` to check. */
  problem?: string;
}

const schemaMapKeywords = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const schemaListKeywords = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const schemaKeywords = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];

const isChargePath = (path: string): boolean => /^\/charge(\/|$)/.test(path);
const isChargePointer = (pointer: string): boolean =>
  /^\/paths\/~1charge(~1|\/|$)/.test(pointer) || /^\/components\/schemas\/[^/]*(charge|paymentlink)/i.test(pointer);

/** Every example of `doc` with the schema it must validate against. */
function collectExamples(doc: JsonObject): ExampleCase[] {
  const cases = new Map<string, ExampleCase>();
  const schemaRoots = new Map<string, boolean>();

  const add = (c: ExampleCase): void => {
    const id = `${c.pointer}|${c.schemaPointer ?? ''}`;
    const existing = cases.get(id);
    if (existing) existing.charge ||= c.charge;
    else cases.set(id, c);
  };
  const addSchemaRoot = (pointer: string, charge: boolean): void => {
    schemaRoots.set(pointer, (schemaRoots.get(pointer) ?? false) || charge);
  };

  /** `example` / `examples` of a media type, parameter or header object found at `pointer`. */
  const exampleHolder = (node: JsonObject, pointer: string, key: string | undefined, charge: boolean, examplesMap: boolean): void => {
    const schemaPointer = 'schema' in node ? childPointer(pointer, 'schema') : undefined;
    if (schemaPointer) addSchemaRoot(schemaPointer, charge);
    if ('example' in node) add({ pointer: childPointer(pointer, 'example'), schemaPointer, value: node.example, key, charge });
    if (examplesMap && isObject(node.examples)) {
      for (const [name, raw] of Object.entries(node.examples)) {
        const { node: example, pointer: at } = follow(doc, raw, childPointer(childPointer(pointer, 'examples'), name));
        if (isObject(example) && 'value' in example) {
          add({ pointer: childPointer(at, 'value'), schemaPointer, value: example.value, key, charge });
        } else {
          add({ pointer: at, schemaPointer, value: undefined, key, charge, problem: 'example has no `value`' });
        }
      }
    }
  };
  const content = (node: unknown, pointer: string, key: string | undefined, charge: boolean): void => {
    if (!isObject(node)) return;
    for (const [mediaType, mt] of Object.entries(node)) {
      if (isObject(mt)) exampleHolder(mt, childPointer(pointer, mediaType), key, charge, true);
    }
  };
  const parameterOrHeader = (raw: unknown, pointer: string, name: string | undefined, charge: boolean): void => {
    const { node, pointer: at } = follow(doc, raw, pointer);
    if (!isObject(node)) return;
    const key = typeof node.name === 'string' ? node.name : name;
    exampleHolder(node, at, key, charge, true);
    content(node.content, childPointer(at, 'content'), key, charge);
  };
  const response = (raw: unknown, pointer: string, charge: boolean): void => {
    const { node, pointer: at } = follow(doc, raw, pointer);
    if (!isObject(node)) return;
    content(node.content, childPointer(at, 'content'), undefined, charge);
    if (isObject(node.headers)) {
      for (const [name, header] of Object.entries(node.headers)) parameterOrHeader(header, childPointer(childPointer(at, 'headers'), name), name, charge);
    }
  };
  const requestBody = (raw: unknown, pointer: string, charge: boolean): void => {
    const { node, pointer: at } = follow(doc, raw, pointer);
    if (isObject(node)) content(node.content, childPointer(at, 'content'), undefined, charge);
  };

  const pathItem = (rawItem: unknown, pointer: string, charge: boolean): void => {
    const { node: item, pointer: itemPointer } = follow(doc, rawItem, pointer);
    if (!isObject(item)) return;
    (Array.isArray(item.parameters) ? item.parameters : []).forEach((p, i) => {
      parameterOrHeader(p, `${itemPointer}/parameters/${i}`, undefined, charge);
    });
    for (const method of httpMethods) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const at = childPointer(itemPointer, method);
      (Array.isArray(operation.parameters) ? operation.parameters : []).forEach((p, i) => {
        parameterOrHeader(p, `${at}/parameters/${i}`, undefined, charge);
      });
      if (operation.requestBody !== undefined) requestBody(operation.requestBody, `${at}/requestBody`, charge);
      for (const [code, raw] of Object.entries(isObject(operation.responses) ? operation.responses : {})) response(raw, `${at}/responses/${code}`, charge);
    }
  };
  for (const [path, rawItem] of Object.entries(isObject(doc.paths) ? doc.paths : {})) pathItem(rawItem, childPointer('/paths', path), isChargePath(path));
  // OpenAPI 3.1 webhooks (events the service sends): a charge event's `total` is a charge total too.
  for (const [name, rawItem] of Object.entries(isObject(doc.webhooks) ? doc.webhooks : {}))
    pathItem(rawItem, childPointer('/webhooks', name), /charge/i.test(name));
  const components = isObject(doc.components) ? doc.components : {};
  const each = (kind: string, visit: (raw: unknown, pointer: string, name: string) => void): void => {
    for (const [name, raw] of Object.entries(isObject(components[kind]) ? components[kind] : {}))
      visit(raw, `/components/${kind}/${childPointer('', name).slice(1)}`, name);
  };
  each('parameters', (raw, pointer) => parameterOrHeader(raw, pointer, undefined, false));
  each('headers', (raw, pointer, name) => parameterOrHeader(raw, pointer, name, false));
  each('responses', (raw, pointer) => response(raw, pointer, false));
  each('requestBodies', (raw, pointer) => requestBody(raw, pointer, false));
  each('schemas', (_raw, pointer) => addSchemaRoot(pointer, isChargePointer(pointer)));

  // Schema-level `examples` (JSON Schema) and `example` (OpenAPI, deprecated) anywhere inside a schema.
  const visitedSchemas = new Set<string>();
  const schema = (node: unknown, pointer: string, charge: boolean): void => {
    if (!isObject(node) || visitedSchemas.has(pointer)) return;
    visitedSchemas.add(pointer);
    const parent = pointer.slice(0, pointer.lastIndexOf('/'));
    const key = lastToken(parent) === 'properties' ? lastToken(pointer) : undefined;
    if (Array.isArray(node.examples)) {
      node.examples.forEach((value, i) => {
        add({ pointer: `${pointer}/examples/${i}`, schemaPointer: pointer, value, key, charge });
      });
    }
    if ('example' in node) add({ pointer: `${pointer}/example`, schemaPointer: pointer, value: node.example, key, charge });
    for (const keyword of schemaMapKeywords) {
      if (isObject(node[keyword]))
        for (const [name, sub] of Object.entries(node[keyword])) schema(sub, childPointer(childPointer(pointer, keyword), name), charge);
    }
    for (const keyword of schemaListKeywords) {
      if (Array.isArray(node[keyword]))
        node[keyword].forEach((sub: unknown, i: number) => {
          schema(sub, `${pointer}/${keyword}/${i}`, charge);
        });
    }
    for (const keyword of schemaKeywords) if (isObject(node[keyword])) schema(node[keyword], childPointer(pointer, keyword), charge);
  };
  for (const [pointer, charge] of schemaRoots) {
    schema(resolvePointer(doc, pointer), pointer, charge || isChargePointer(pointer));
  }
  // A components/examples entry that no media type, parameter or header uses has no schema to be checked against.
  each('examples', (_raw, pointer) => {
    if (![...cases.values()].some((c) => c.pointer === pointer || c.pointer.startsWith(`${pointer}/`))) {
      add({
        pointer,
        schemaPointer: undefined,
        value: undefined,
        key: undefined,
        charge: false,
        problem: 'example is used by no media type, parameter or header, so it has no schema',
      });
    }
  });
  return [...cases.values()];
}

// ---------------------------------------------------------------------------
// Schema validation
// ---------------------------------------------------------------------------

/**
 * Validates values against schemas of one OpenAPI 3.1 document, by JSON Pointer, with the
 * contract's own formats (`cpf-cnpj`, `brl`) registered: the validator the server uses.
 */
function schemaValidator(doc: JsonObject): (schemaPointer: string, value: unknown) => string[] {
  const validator = new ContractValidator(doc);
  return (schemaPointer, value) => {
    let validate: ReturnType<typeof validator.at>;
    try {
      validate = validator.at(schemaPointer);
    } catch (error) {
      return [`schema ${schemaPointer} does not compile: ${(error as Error).message}`];
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) => `${e.instancePath || '(root)'} ${e.message ?? ''} (${e.schemaPath}${e.params ? ` ${JSON.stringify(e.params)}` : ''})`,
    );
  };
}

// ---------------------------------------------------------------------------
// Domain checks on example data
// ---------------------------------------------------------------------------

const taxIdKey = /cpf|cnpj|taxid/i;
const phoneKey = /phone/i;

interface DomainFindings {
  problems: string[];
  /** Which checks found something to look at: 'taxId', 'phone', 'brCode', 'brCodeBase64', 'chargeTotal'. */
  checked: Set<string>;
}

/** Walks example data; `key` of array items is the key of the array. */
function domainFindings(value: unknown, key: string | undefined, charge: boolean): DomainFindings {
  const findings: DomainFindings = { problems: [], checked: new Set() };
  const visit = (node: unknown, k: string | undefined, parent: JsonObject | undefined, at: string): void => {
    const where = at || '(root)';
    if (k !== undefined && typeof node === 'string') {
      if (taxIdKey.test(k)) {
        findings.checked.add('taxId');
        for (const p of taxIdProblems(node)) findings.problems.push(`${where}: ${p}`);
      }
      if (phoneKey.test(k)) {
        findings.checked.add('phone');
        for (const p of phoneProblems(node)) findings.problems.push(`${where}: ${p}`);
      }
      if (k === 'brCode') {
        findings.checked.add('brCode');
        for (const p of brCodeProblems(node)) findings.problems.push(`${where}: brCode ${p}`);
        const total = parent?.total;
        if (charge && typeof total === 'number' && brCodeProblems(node).length === 0) {
          const cents = brCodeAmountCents(node);
          if (cents !== undefined && cents !== total)
            findings.problems.push(`${where}: brCode amount (tag 54) is ${cents} cents but the sibling total is ${total}`);
        }
      }
      if (k === 'brCodeBase64') {
        findings.checked.add('brCodeBase64');
        const sibling = parent?.brCode;
        const qr = qrTextOfDataUri(node);
        if ('problem' in qr) findings.problems.push(`${where}: brCodeBase64 ${qr.problem}`);
        else if (typeof sibling !== 'string') {
          // Nothing to compare with (e.g. a schema-level example): the QR must at least hold a valid BR Code.
          for (const p of brCodeProblems(qr.text))
            findings.problems.push(`${where}: brCodeBase64 has no sibling brCode and its QR text is not a valid BR Code: ${p}`);
        } else if (qr.text !== sibling)
          findings.problems.push(`${where}: the QR code decodes to ${JSON.stringify(qr.text)}, not the sibling brCode ${JSON.stringify(sibling)}`);
      }
    }
    if (charge && k === 'total' && !Array.isArray(node)) {
      findings.checked.add('chargeTotal');
      if (typeof node !== 'number' || !Number.isInteger(node) || node < 500) {
        findings.problems.push(`${where}: charge total ${JSON.stringify(node)} must be an integer number of cents >= 500`);
      }
    }
    if (Array.isArray(node))
      node.forEach((item, i) => {
        visit(item, k, parent, `${at}/${i}`);
      });
    else if (isObject(node)) for (const [ck, cv] of Object.entries(node)) visit(cv, ck, node, childPointer(at, ck));
  };
  visit(value, key, undefined, '');
  return findings;
}

// ---------------------------------------------------------------------------
// Self-checks of the helpers
// ---------------------------------------------------------------------------

describe('helpers (self-check)', () => {
  describe('taxIdProblems', () => {
    const cases: Array<[string, { given: string; want: RegExp | undefined }]> = [
      ['valid CPF digits', { given: '52998224725', want: undefined }],
      ['valid masked CPF', { given: '529.982.247-25', want: undefined }],
      ['valid CNPJ digits', { given: '11222333000181', want: undefined }],
      ['valid masked CNPJ', { given: '11.222.333/0001-81', want: undefined }],
      ['invalid CPF', { given: '12345678900', want: /not a valid CPF/ }],
      ['invalid CNPJ', { given: '12345678000100', want: /not a valid CNPJ/ }],
      ['12 digits is neither', { given: '123456789012', want: /neither/ }],
      ['letters', { given: 'abc', want: /neither/ }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const problems = taxIdProblems(given);
      if (want === undefined) expect(problems).toEqual([]);
      else expect(problems.join('\n')).toMatch(want);
    });
  });

  describe('isValidDdd', () => {
    const cases: Array<[string, { given: string; want: boolean }]> = [
      ['São Paulo 11', { given: '11', want: true }],
      ['Rio 21', { given: '21', want: true }],
      ['Brasília 61', { given: '61', want: true }],
      ['Manaus 92', { given: '92', want: true }],
      ['São Luís 98', { given: '98', want: true }],
      ['10 unassigned', { given: '10', want: false }],
      ['20 unassigned', { given: '20', want: false }],
      ['23 unassigned', { given: '23', want: false }],
      ['36 unassigned', { given: '36', want: false }],
      ['52 unassigned', { given: '52', want: false }],
      ['90 unassigned', { given: '90', want: false }],
      ['00', { given: '00', want: false }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      expect(isValidDdd(given)).toBe(want);
    });
  });

  describe('phoneProblems', () => {
    const cases: Array<[string, { given: string; want: RegExp | undefined }]> = [
      ['São Paulo mobile', { given: '11987654321', want: undefined }],
      ['Rio landline', { given: '2133334444', want: undefined }],
      ['Porto Alegre mobile', { given: '51991234567', want: undefined }],
      ['with +55 prefix', { given: '+5511987654321', want: /does not match/ }],
      ['formatted', { given: '(11) 98765-4321', want: /does not match/ }],
      ['9 digits', { given: '119876543', want: /does not match/ }],
      ['12 digits', { given: '551198765432', want: /does not match/ }],
      ['unassigned DDD 20', { given: '20987654321', want: /not a Brazilian area code/ }],
      ['11 digits without mobile 9', { given: '11387654321', want: /not a mobile number/ }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const problems = phoneProblems(given);
      if (want === undefined) expect(problems).toEqual([]);
      else expect(problems.join('\n')).toMatch(want);
    });
  });

  describe('domainFindings', () => {
    const cases: Array<[string, { given: { value: unknown; key?: string; charge?: boolean }; want: RegExp | undefined }]> = [
      ['valid customer', { given: { value: { customer: { taxId: '52998224725', phone: '11987654321' } } }, want: undefined }],
      ['invalid CPF at taxId', { given: { value: { customer: { taxId: '52998224724' } } }, want: /\/customer\/taxId: 52998224724 is not a valid CPF/ }],
      ['invalid CNPJ at cpfCnpj', { given: { value: { client: { cpfCnpj: '11222333000180' } } }, want: /\/client\/cpfCnpj: .* not a valid CNPJ/ }],
      ['tax ids inside a list', { given: { value: [{ taxId: '52998224725' }, { taxId: '00000000000' }] }, want: /\/1\/taxId/ }],
      ['schema-level example keyed by property name', { given: { value: '12345678900', key: 'taxId' }, want: /\(root\): 12345678900 is not a valid CPF/ }],
      ['phone with a bad DDD', { given: { value: { phone: '2098765432' } }, want: /\/phone: .* not a Brazilian area code/ }],
      ['phone with punctuation', { given: { value: { phone: '(11) 98765-4321' } }, want: /does not match/ }],
      ['charge total in cents', { given: { value: { data: { total: 12990 } }, charge: true }, want: undefined }],
      ['charge total under 500', { given: { value: { total: 499 }, charge: true }, want: /charge total 499/ }],
      ['charge total with decimals', { given: { value: { total: 129.9 }, charge: true }, want: /charge total 129.9/ }],
      ['charge total as a string', { given: { value: { total: '12990' }, charge: true }, want: /charge total "12990"/ }],
      ['order total outside charges may be decimal', { given: { value: { total: 129.9 }, charge: false }, want: undefined }],
      ['brCode with a wrong CRC', { given: { value: { brCode: `${bcbExample.slice(0, -4)}0000` } }, want: /brCode CRC 0000/ }],
      [
        'brCode amount disagrees with the total',
        { given: { value: { total: 12000, brCode: withCrc(pixBody()) }, charge: true }, want: /12990 cents but the sibling total is 12000/ },
      ],
      ['brCode amount agrees with the total', { given: { value: { total: 12990, brCode: withCrc(pixBody()) }, charge: true }, want: undefined }],
      ['brCodeBase64 that is no PNG', { given: { value: { brCodeBase64: 'data:image/png;base64,AAAA' } }, want: /brCodeBase64 not a readable PNG/ }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const { problems } = domainFindings(given.value, given.key, given.charge ?? false);
      if (want === undefined) expect(problems).toEqual([]);
      else expect(problems.join('\n')).toMatch(want);
    });

    test.each([
      ['QR decodes to the sibling brCode', { given: { brCode: bcbExample, qr: bcbExample }, want: undefined }],
      ['QR of another code', { given: { brCode: bcbExample, qr: withCrc(pixBody()) }, want: /decodes to .* not the sibling brCode/ }],
      ['no sibling, QR holds a valid BR Code', { given: { brCode: undefined, qr: bcbExample }, want: undefined }],
      [
        'no sibling, QR holds something else',
        { given: { brCode: undefined, qr: 'https://example.com' }, want: /no sibling brCode and its QR text is not a valid BR Code/ },
      ],
    ] as Array<[string, { given: { brCode: string | undefined; qr: string }; want: RegExp | undefined }]>)('%s', async (_name, { given, want }) => {
      const value = { brCode: given.brCode, brCodeBase64: await QRCode.toDataURL(given.qr) };
      const { problems } = domainFindings(value, undefined, true);
      if (want === undefined) expect(problems).toEqual([]);
      else expect(problems.join('\n')).toMatch(want);
    });
  });

  describe('collectExamples and schemaValidator', () => {
    const fixture = (): JsonObject => ({
      openapi: '3.1.0',
      paths: {
        '/charge/{id}': {
          parameters: [{ $ref: '#/components/parameters/Id' }],
          get: {
            responses: {
              200: {
                description: 'ok',
                headers: { 'X-Rate': { schema: { type: 'integer' }, example: 'ten' } },
                content: {
                  'application/json': {
                    schema: { $ref: '#/components/schemas/Charge' },
                    examples: { a: { $ref: '#/components/examples/Charge' }, b: { summary: 'no value' } },
                  },
                },
              },
            },
          },
        },
      },
      webhooks: {
        chargePaid: {
          post: { requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Charge' }, example: { total: 250 } } } } },
        },
      },
      components: {
        parameters: { Id: { name: 'id', in: 'path', required: true, schema: { type: 'string', minLength: 3 }, example: 'ch' } },
        examples: { Charge: { value: { total: 400, at: 'yesterday' } }, Orphan: { value: 1 } },
        schemas: {
          Charge: {
            type: 'object',
            required: ['total'],
            properties: { total: { type: 'integer', minimum: 500, examples: [12990] }, at: { type: 'string', format: 'date-time' } },
          },
        },
      },
    });
    const doc = fixture();
    const found = collectExamples(doc);
    const validate = schemaValidator(doc);
    const byPointer = (pointer: string): ExampleCase | undefined => found.find((c) => c.pointer === pointer);
    const cases: Array<
      [string, { given: string; want: { schemaPointer?: string; key?: string; charge: boolean; errors: RegExp | undefined; problem?: RegExp } }]
    > = [
      [
        'referenced components/examples value',
        {
          given: '/components/examples/Charge/value',
          want: {
            schemaPointer: '/paths/~1charge~1{id}/get/responses/200/content/application~1json/schema',
            charge: true,
            errors: /\/total must be >= 500[\s\S]*\/at must match format "date-time"/,
          },
        },
      ],
      [
        'example object without value',
        {
          given: '/paths/~1charge~1{id}/get/responses/200/content/application~1json/examples/b',
          want: {
            schemaPointer: '/paths/~1charge~1{id}/get/responses/200/content/application~1json/schema',
            charge: true,
            errors: undefined,
            problem: /no `value`/,
          },
        },
      ],
      [
        'response header example',
        {
          given: '/paths/~1charge~1{id}/get/responses/200/headers/X-Rate/example',
          want: { schemaPointer: '/paths/~1charge~1{id}/get/responses/200/headers/X-Rate/schema', key: 'X-Rate', charge: true, errors: /must be integer/ },
        },
      ],
      [
        'parameter example via $ref',
        {
          given: '/components/parameters/Id/example',
          want: { schemaPointer: '/components/parameters/Id/schema', key: 'id', charge: true, errors: /must NOT have fewer than 3 characters/ },
        },
      ],
      [
        'webhook request example',
        {
          given: '/webhooks/chargePaid/post/requestBody/content/application~1json/example',
          want: { schemaPointer: '/webhooks/chargePaid/post/requestBody/content/application~1json/schema', charge: true, errors: /\/total must be >= 500/ },
        },
      ],
      [
        'unused components/examples entry',
        { given: '/components/examples/Orphan', want: { charge: false, errors: undefined, problem: /used by no media type/ } },
      ],
      [
        'schema-level examples of a property',
        {
          given: '/components/schemas/Charge/properties/total/examples/0',
          want: { schemaPointer: '/components/schemas/Charge/properties/total', key: 'total', charge: true, errors: undefined },
        },
      ],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const found = byPointer(given);
      expect(found, `${given} not collected`).toBeDefined();
      const c = found as ExampleCase;
      if (want.schemaPointer) expect(c.schemaPointer).toBe(want.schemaPointer);
      if (want.key) expect(c.key).toBe(want.key);
      expect(c.charge).toBe(want.charge);
      if (want.problem) {
        expect(c.problem).toMatch(want.problem);
        return;
      }
      const errors = validate(c.schemaPointer as string, c.value);
      if (want.errors === undefined) expect(errors).toEqual([]);
      else expect(errors.join('\n')).toMatch(want.errors);
    });

    test('collects exactly the fixture examples', () => {
      expect(found.map((c) => c.pointer).sort()).toEqual([
        '/components/examples/Charge/value',
        '/components/examples/Orphan',
        '/components/parameters/Id/example',
        '/components/schemas/Charge/properties/total/examples/0',
        '/paths/~1charge~1{id}/get/responses/200/content/application~1json/examples/b',
        '/paths/~1charge~1{id}/get/responses/200/headers/X-Rate/example',
        '/webhooks/chargePaid/post/requestBody/content/application~1json/example',
      ]);
    });
  });
});

// ---------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------

const bundled = loadContract();
const examples = bundled.value ? collectExamples(bundled.value) : [];
const validate = bundled.value ? schemaValidator(bundled.value) : () => ['no contract'];
const exampleCases = examples.map((c): [string, ExampleCase] => [c.pointer, c]);
const domain = examples.map((c) => ({ example: c, findings: domainFindings(c.value, c.key, c.charge) }));
const domainCases = domain
  .filter((d) => d.findings.checked.size > 0)
  .map((d): [string, DomainFindings] => [`${d.example.pointer} (${[...d.findings.checked].join(', ')})`, d.findings]);

describe('examples of generated/openapi.yaml', () => {
  test('the bundled contract loads and has examples', () => {
    expect(bundled.error).toBeUndefined();
    expect(examples.length).toBeGreaterThan(0);
  });

  test.each(exampleCases)('%s validates against its schema', (_pointer, c) => {
    expect(c.problem, `${c.pointer}: ${c.problem ?? ''}`).toBeUndefined();
    expect(c.schemaPointer, `${c.pointer}: example without a schema`).toBeDefined();
    expect(validate(c.schemaPointer as string, c.value)).toEqual([]);
  });

  // Each domain check must have found something to check, or it proves nothing.
  const checks: Array<[string, { given: string; want: string }]> = [
    ['a CPF/CNPJ value', { given: 'taxId', want: 'taxId' }],
    ['a phone value', { given: 'phone', want: 'phone' }],
    ['a brCode value', { given: 'brCode', want: 'brCode' }],
    ['a brCodeBase64 value', { given: 'brCodeBase64', want: 'brCodeBase64' }],
    ['a charge total', { given: 'chargeTotal', want: 'chargeTotal' }],
  ];
  test.each(checks)('the examples include %s', (_name, { given, want }) => {
    const seen = new Set(domain.flatMap((d) => [...d.findings.checked]));
    expect(seen.has(given) ? given : undefined).toBe(want);
  });

  test.each(domainCases)('%s passes the domain checks', (_label, findings) => {
    expect(findings.problems).toEqual([]);
  });

  // D43: a sandbox example is what integrators copy and what the mock serves; its QR must not be payable.
  const sandboxCharges = (value: unknown): Array<{ brCode: string }> =>
    Array.isArray(value)
      ? value.flatMap(sandboxCharges)
      : value && typeof value === 'object'
        ? [
            ...((value as JsonObject).devMode === true && typeof (value as JsonObject).brCode === 'string' ? [value as { brCode: string }] : []),
            ...Object.values(value).flatMap(sandboxCharges),
          ]
        : [];
  const sandboxCases = examples.flatMap((c) => sandboxCharges(c.value).map((charge): [string, string] => [c.pointer, charge.brCode]));
  test('some examples are development charges with a BR Code', () => {
    expect(sandboxCases.length).toBeGreaterThan(0);
  });
  test.each(sandboxCases)('%s: a development charge names a Pix key no one can register (D43)', (_pointer, brCode) => {
    expect(isUnregistrablePixKey(brCodePixKey(brCode) ?? '')).toBe(true);
  });
});

import { describe, expect, test } from 'vitest';
import { loadBundledContract, type JsonObject } from './bundled.js';
import { ContractValidator } from './ajv.js';
import { contractNormaliser } from './normalise.js';

const contract = loadBundledContract();
const validator = new ContractValidator(contract);

/** A small contract of its own, to show the walk without depending on the real schemas' fields. */
const toy: JsonObject = {
  components: {
    schemas: {
      Doc: {
        type: 'object',
        properties: {
          tax: { allOf: [{ $ref: '#/components/schemas/Tax' }] },
          plain: { type: 'string' },
          list: { type: 'array', items: { $ref: '#/components/schemas/Holder' } },
          self: { $ref: '#/components/schemas/Doc' },
        },
      },
      Holder: { type: 'object', properties: { phone: { type: 'string', format: 'phone-br' }, cep: { format: 'cep' } } },
      Tax: { type: 'string', format: 'cpf-cnpj' },
    },
  },
};

describe('contractNormaliser on a schema of its own', () => {
  const normalise = contractNormaliser(toy, '/components/schemas/Doc');
  const cases: Array<[string, { given: unknown; want: unknown }]> = [
    ['through allOf and $ref', { given: { tax: '529.982.247-25', plain: '529.982.247-25' }, want: { tax: '52998224725', plain: '529.982.247-25' } }],
    [
      'array items',
      {
        given: { list: [{ phone: '+55 11 98765-4321', cep: '01310-100' }, { phone: '(21) 3456-7890' }] },
        want: { list: [{ phone: '11987654321', cep: '01310100' }, { phone: '2134567890' }] },
      },
    ],
    ['a schema that refers to itself', { given: { self: { self: { tax: '11.222.333/0001-81' } } }, want: { self: { self: { tax: '11222333000181' } } } }],
    ['values of another type are left alone', { given: { tax: 52998224725, list: 'x' }, want: { tax: 52998224725, list: 'x' } }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(normalise(structuredClone(given))).toEqual(want);
  });

  test('is the identity for a schema without formats that have a normal form', () => {
    const body = { plain: ' 1.2 ' };
    expect(contractNormaliser(toy, '/components/schemas/Doc/properties/plain')(body)).toBe(body);
    expect(body).toEqual({ plain: ' 1.2 ' });
  });
});

describe('contractNormaliser on the contract request bodies (D46)', () => {
  const cases: Array<[string, { schema: string; given: JsonObject; want: JsonObject }]> = [
    [
      'a client',
      {
        schema: 'ClientCreate',
        given: {
          name: 'Maria',
          status: 'ACTIVE',
          cpfCnpj: '529.982.247-25',
          email: 'maria@example.com',
          phone: '(11) 98765-4321',
          postalCode: '01310-100',
          number: '1-A',
        },
        want: {
          name: 'Maria',
          status: 'ACTIVE',
          cpfCnpj: '52998224725',
          email: 'maria@example.com',
          phone: '11987654321',
          postalCode: '01310100',
          number: '1-A',
        },
      },
    ],
    [
      'a payment link customer',
      {
        schema: 'PaymentLinkCreate',
        given: {
          total: 500,
          customer: { name: 'Maria', taxId: '11.222.333/0001-81', email: 'maria@example.com', phone: '+55 11 98765-4321', postalCode: '01310-100' },
        },
        want: { total: 500, customer: { name: 'Maria', taxId: '11222333000181', email: 'maria@example.com', phone: '11987654321', postalCode: '01310100' } },
      },
    ],
    [
      'an order',
      {
        schema: 'OrderCreate',
        given: { subtotal: 10, total: 10, cpfCnpj: '529.982.247-25', phone: '11 98765-4321', postalCode: '01310-100', street: 'Rua 1-2' },
        want: { subtotal: 10, total: 10, cpfCnpj: '52998224725', phone: '11987654321', postalCode: '01310100', street: 'Rua 1-2' },
      },
    ],
  ];
  test.each(cases)('%s: valid as sent, digits once normalised', (_name, { schema, given, want }) => {
    const pointer = `/components/schemas/${schema}`;
    expect(validator.at(pointer)(given), JSON.stringify(validator.at(pointer).errors)).toBe(true);
    const normalised = contractNormaliser(contract, pointer)(structuredClone(given));
    expect(normalised).toEqual(want);
    // The stored form passes the same rules: normalising twice changes nothing.
    expect(contractNormaliser(contract, pointer)(structuredClone(normalised))).toEqual(want);
  });
});

import { describe, expect, test } from 'vitest';
import { ContractValidator, toFieldErrors, type FieldError } from './ajv.js';

const validator = new ContractValidator();

function fieldErrors(schema: string, value: unknown): FieldError[] {
  const validate = validator.at(`/components/schemas/${schema}`);
  return validate(value) ? [] : toFieldErrors(validate.errors ?? []);
}

const customer = { name: 'Maria', taxId: '52998224725', email: 'maria@example.com', phone: '11987654321' };

describe('toFieldErrors', () => {
  const cases: Array<
    [string, { given: { schema: string; value: unknown }; want: Array<Pick<FieldError, 'pointer' | 'keyword'> & { detail?: string | RegExp }> }]
  > = [
    ['valid body', { given: { schema: 'PaymentLinkCreate', value: { total: 500 } }, want: [] }],
    [
      'neither total nor items',
      {
        given: { schema: 'PaymentLinkCreate', value: { devMode: true } },
        want: [{ pointer: '', keyword: 'anyOf', detail: 'must have at least one of: total, items' }],
      },
    ],
    [
      'customer and customerId together',
      {
        given: { schema: 'PaymentLinkCreate', value: { total: 500, customerId: 'clnt_abc', customer } },
        want: [{ pointer: '/customer', keyword: 'not', detail: 'must not be sent together with customerId' }],
      },
    ],
    [
      'missing required member points at the member',
      {
        given: { schema: 'ClientCreate', value: { name: 'A', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'a@example.com' } },
        want: [{ pointer: '/phone', keyword: 'required', detail: 'is required' }],
      },
    ],
    [
      'unknown member points at the member',
      { given: { schema: 'PaymentLinkCreate', value: { total: 500, devmode: true } }, want: [{ pointer: '/devmode', keyword: 'additionalProperties' }] },
    ],
    [
      'bad check digits',
      {
        given: { schema: 'PaymentLinkCreate', value: { total: 500, customer: { ...customer, taxId: '52998224726' } } },
        want: [{ pointer: '/customer/taxId', keyword: 'format', detail: /check digits/ }],
      },
    ],
    [
      'a customer written with Brazilian punctuation (D46)',
      {
        given: {
          schema: 'PaymentLinkCreate',
          value: { total: 500, customer: { ...customer, taxId: '529.982.247-25', phone: '+55 (11) 98765-4321', postalCode: '01310-100' } },
        },
        want: [],
      },
    ],
    [
      'bad check digits behind the punctuation',
      {
        given: { schema: 'PaymentLinkCreate', value: { total: 500, customer: { ...customer, taxId: '529.982.247-26' } } },
        want: [{ pointer: '/customer/taxId', keyword: 'format', detail: /check digits/ }],
      },
    ],
    [
      'a phone of 12 digits once +55 is dropped',
      {
        given: { schema: 'ClientCreate', value: { name: 'A', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'a@example.com', phone: '+55 11 98765-43210' } },
        want: [{ pointer: '/phone', keyword: 'format', detail: /10 or 11 digits/ }],
      },
    ],
    [
      'a CEP of 9 digits',
      {
        given: { schema: 'OrderCreate', value: { subtotal: 1, total: 1, postalCode: '01310-1000' } },
        want: [{ pointer: '/postalCode', keyword: 'format', detail: /8 digits/ }],
      },
    ],
    [
      'a response tax number stays digits only (the seed pattern)',
      {
        given: {
          schema: 'ClientCreateResult',
          value: {
            id: 'clnt_abc',
            cpfCnpj: '529.982.247-25',
            name: 'A',
            email: 'a@example.com',
            phone: '11987654321',
            status: 'ACTIVE',
            companyId: 'comp_abc',
            createdAt: '2026-11-21T14:30:00.000Z',
            updatedAt: '2026-11-21T14:30:00.000Z',
          },
        },
        want: [{ pointer: '/cpfCnpj', keyword: 'pattern' }],
      },
    ],
    [
      'three decimal places',
      {
        given: { schema: 'ProductCreate', value: { name: 'A', description: 'B', price: 1.005, sku: 'S', displayId: 'D' } },
        want: [{ pointer: '/price', keyword: 'format', detail: /two decimal places/ }],
      },
    ],
    [
      'two decimal places are fine',
      { given: { schema: 'ProductCreate', value: { name: 'A', description: 'B', price: 64.95, sku: 'S', displayId: 'D' } }, want: [] },
    ],
    [
      'nested item quantity',
      {
        given: { schema: 'PaymentLinkCreate', value: { items: [{ productId: 'prod_abc', quantity: 0 }] } },
        want: [{ pointer: '/items/0/quantity', keyword: 'minimum' }],
      },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const errors = fieldErrors(given.schema, given.value);
    expect(errors.map(({ pointer, keyword }) => ({ pointer, keyword }))).toEqual(want.map(({ pointer, keyword }) => ({ pointer, keyword })));
    want.forEach((w, i) => {
      if (w.detail instanceof RegExp) expect(errors[i]?.detail).toMatch(w.detail);
      else if (w.detail !== undefined) expect(errors[i]?.detail).toBe(w.detail);
    });
  });
});

describe('ContractValidator', () => {
  test('compiles each schema once', () => {
    expect(validator.at('/components/schemas/Charge')).toBe(validator.at('/components/schemas/Charge'));
  });

  test('fills in defaults only when asked to', () => {
    const withDefaults = new ContractValidator(undefined, { useDefaults: true });
    const body: Record<string, unknown> = { total: 500 };
    expect(withDefaults.at('/components/schemas/PaymentLinkCreate')(body)).toBe(true);
    expect(body).toMatchObject({ devMode: false, needShipping: false, notifyCustomer: false });
    const untouched: Record<string, unknown> = { total: 500 };
    validator.at('/components/schemas/PaymentLinkCreate')(untouched);
    expect(untouched).toEqual({ total: 500 });
  });
});

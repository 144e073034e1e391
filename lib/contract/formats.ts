import type { Ajv as AjvCore } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { isValidCpfOrCnpj } from '../brazil/tax-id.js';

/**
 * The custom `format`s the contract names, with the messages a Problem shows for them.
 * The server, the conformance suite and the tests all register them from here.
 */
export const customFormats = {
  'cpf-cnpj': {
    type: 'string',
    validate: (value: string) => isValidCpfOrCnpj(value),
    message: 'must be a CPF (11 digits) or CNPJ (14 digits) with valid check digits',
  },
  brl: {
    type: 'number',
    // At most two decimal places: the value times 100 is an integer, allowing for binary rounding.
    validate: (value: number) => Number.isFinite(value) && Math.abs(value * 100 - Math.round(value * 100)) < 1e-6,
    message: 'must be an amount in reais with at most two decimal places',
  },
} as const;

export type CustomFormat = keyof typeof customFormats;

// CommonJS interop: the function is also the module's `default`, which is what NodeNext types see.
const addFormats = addFormatsModule.default;

export function addContractFormats<T extends AjvCore>(ajv: T): T {
  addFormats(ajv);
  ajv.addFormat('cpf-cnpj', { type: 'string', validate: customFormats['cpf-cnpj'].validate });
  ajv.addFormat('brl', { type: 'number', validate: customFormats.brl.validate });
  return ajv;
}

import type { Ajv as AjvCore, Format } from 'ajv';
import type addFormatsModule from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { isValidCpfOrCnpj } from '../brazil/tax-id.js';
import { isPhoneDigits, isPostalCodeDigits, normalisePhone, normalisePostalCode, normaliseTaxId } from '../brazil/normalise.js';
import { onFirstUse } from './on-first-use.js';

interface CustomFormat<T> {
  type: 'string' | 'number';
  validate: (value: T) => boolean;
  /** Problem text for a value that fails. */
  message: string;
  /**
   * How the server stores a valid value (D46): the form the responses carry. The format
   * validates the value as sent, so a value passes exactly when its normal form is right.
   */
  normalise?: (value: T) => T;
}

/**
 * The custom `format`s the contract names, with the messages a Problem shows for them.
 * The server, the conformance suite and the tests all register them from here.
 */
export const customFormats = {
  'cpf-cnpj': {
    type: 'string',
    validate: (value: string) => isValidCpfOrCnpj(normaliseTaxId(value)),
    message:
      'must be a CPF (11 digits) or CNPJ (14 digits) with valid check digits, as digits or punctuated the usual way (529.982.247-25, 11.222.333/0001-81)',
    normalise: normaliseTaxId,
  } satisfies CustomFormat<string>,
  'phone-br': {
    type: 'string',
    validate: (value: string) => isPhoneDigits(normalisePhone(value)),
    message:
      'must be a Brazilian phone number: area code (DDD) and number, 10 or 11 digits, as digits or written the usual way (+55 11 98765-4321, (11) 98765-4321)',
    normalise: normalisePhone,
  } satisfies CustomFormat<string>,
  cep: {
    type: 'string',
    validate: (value: string) => isPostalCodeDigits(normalisePostalCode(value)),
    message: 'must be a CEP of 8 digits, as digits or written the usual way (01310-100)',
    normalise: normalisePostalCode,
  } satisfies CustomFormat<string>,
  brl: {
    type: 'number',
    // At most two decimal places: the value times 100 is an integer, allowing for binary rounding.
    validate: (value: number) => Number.isFinite(value) && Math.abs(value * 100 - Math.round(value * 100)) < 1e-6,
    message: 'must be an amount in reais with at most two decimal places',
  } satisfies CustomFormat<number>,
} as const;

export type CustomFormatName = keyof typeof customFormats;

/** The normaliser of a format, when the contract's value of that format has a stored form other than the sent one. */
export function formatNormaliser(format: string): ((value: string) => string) | undefined {
  const entry = (customFormats as Record<string, { type: string; normalise?: (value: never) => unknown }>)[format];
  return entry?.type === 'string' && entry.normalise ? (entry.normalise as (value: string) => string) : undefined;
}

// Loaded when an Ajv instance is first given the formats (it loads Ajv itself): the validators made
// ahead of time read `contractFormats` only. CommonJS interop: the function is also the module's
// `default`, which is what NodeNext types see.
const ajvFormatsModule = onFirstUse<typeof addFormatsModule>(() => require('ajv-formats'), 'ajv-formats', import.meta.url);

/** The contract's own formats, as Ajv takes them. */
const ownFormats: Record<CustomFormatName, Format> = {
  'cpf-cnpj': { type: 'string', validate: customFormats['cpf-cnpj'].validate },
  'phone-br': { type: 'string', validate: customFormats['phone-br'].validate },
  cep: { type: 'string', validate: customFormats.cep.validate },
  brl: { type: 'number', validate: customFormats.brl.validate },
};

/**
 * Every format a schema of the contract may name, by name: ajv-formats' and the contract's own.
 * Validators made ahead of time (Ajv's standalone code, lib/contract/standalone.ts) have no Ajv
 * instance to ask for a format: their code reads it from here.
 */
export const contractFormats: Record<string, Format> = { ...fullFormats, ...ownFormats };

export function addContractFormats<T extends AjvCore>(ajv: T): T {
  // ajv-formats' formats, and the keywords that compare by format (formatMinimum…).
  ajvFormatsModule().default(ajv);
  for (const [name, format] of Object.entries(ownFormats)) ajv.addFormat(name, format);
  return ajv;
}

import { describe, expect, test } from 'vitest';
import { isPhoneDigits, isPostalCodeDigits, normalisePhone, normalisePostalCode, normaliseTaxId } from './normalise.js';
import { isValidCpfOrCnpj } from './tax-id.js';

describe('normaliseTaxId', () => {
  const cases: Array<[string, { given: string; want: string; valid: boolean }]> = [
    ['CPF digits', { given: '52998224725', want: '52998224725', valid: true }],
    ['CPF mask', { given: '529.982.247-25', want: '52998224725', valid: true }],
    ['CPF with spaces', { given: '529 982 247 25', want: '52998224725', valid: true }],
    ['CNPJ mask', { given: '11.222.333/0001-81', want: '11222333000181', valid: true }],
    ['CNPJ digits', { given: '11222333000181', want: '11222333000181', valid: true }],
    ['CNPJ separators anywhere', { given: '1122/2333.0001 81', want: '11222333000181', valid: true }],
    ['CPF mask, wrong check digit', { given: '529.982.247-26', want: '52998224726', valid: false }],
    ['commas are not separators', { given: '529,982,247-25', want: '529,982,24725', valid: false }],
    ['letters stay', { given: '529.982.247-2x', want: '5299822472x', valid: false }],
    ['a tab stays', { given: '529982247\t25', want: '529982247\t25', valid: false }],
    ['separators only', { given: '..-/', want: '', valid: false }],
  ];
  test.each(cases)('%s', (_name, { given, want, valid }) => {
    expect(normaliseTaxId(given)).toBe(want);
    expect(isValidCpfOrCnpj(normaliseTaxId(given))).toBe(valid);
  });
});

describe('normalisePhone', () => {
  const cases: Array<[string, { given: string; want: string; valid: boolean }]> = [
    ['digits', { given: '11987654321', want: '11987654321', valid: true }],
    ['+55, spaces and a dash', { given: '+55 11 98765-4321', want: '11987654321', valid: true }],
    ['area code in parentheses', { given: '(11) 98765-4321', want: '11987654321', valid: true }],
    ['spaces and a dash', { given: '11 98765-4321', want: '11987654321', valid: true }],
    ['+55 without separators', { given: '+5511987654321', want: '11987654321', valid: true }],
    ['+55 and parentheses, landline', { given: '+55 (21) 3456-7890', want: '2134567890', valid: true }],
    ['dots', { given: '11.98765.4321', want: '11987654321', valid: true }],
    ['DDD 55 without country code', { given: '(55) 3222-1234', want: '5532221234', valid: true }],
    ['55 without plus is not a country code', { given: '5511987654321', want: '5511987654321', valid: false }],
    ['another country code', { given: '+1 415 555 2671', want: '+14155552671', valid: false }],
    ['+55 in the middle', { given: '11 +55 98765-4321', want: '11+5598765-4321'.replace(/[ ().-]/g, ''), valid: false }],
    ['a slash is not a phone separator', { given: '11/98765-4321', want: '11/987654321', valid: false }],
    ['a letter', { given: '(11) 98765-432a', want: '119876543' + '2a', valid: false }],
    ['too short', { given: '(11) 8765-432', want: '118765432', valid: false }],
  ];
  test.each(cases)('%s', (_name, { given, want, valid }) => {
    expect(normalisePhone(given)).toBe(want);
    expect(isPhoneDigits(normalisePhone(given))).toBe(valid);
  });
});

describe('normalisePostalCode', () => {
  const cases: Array<[string, { given: string; want: string; valid: boolean }]> = [
    ['digits', { given: '01310100', want: '01310100', valid: true }],
    ['dash', { given: '01310-100', want: '01310100', valid: true }],
    ['dot and dash', { given: '01.310-100', want: '01310100', valid: true }],
    ['a space', { given: '01310 100', want: '01310100', valid: true }],
    ['a slash is not a CEP separator', { given: '01310/100', want: '01310/100', valid: false }],
    ['7 digits', { given: '0131-010', want: '0131010', valid: false }],
    ['9 digits', { given: '01310-1000', want: '013101000', valid: false }],
  ];
  test.each(cases)('%s', (_name, { given, want, valid }) => {
    expect(normalisePostalCode(given)).toBe(want);
    expect(isPostalCodeDigits(normalisePostalCode(given))).toBe(valid);
  });
});

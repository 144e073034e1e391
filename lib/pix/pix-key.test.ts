import { describe, expect, test } from 'vitest';
import { isUnregistrablePixKey, readPixKey, UNPAYABLE_PIX_KEY, type PixKeyReading } from './pix-key.js';

describe('readPixKey', () => {
  const cases: Array<[string, { given: string; want: PixKeyReading | RegExp }]> = [
    ['a CPF', { given: '52998224725', want: { key: '52998224725', kind: 'cpf' } }],
    ['a CNPJ', { given: '11222333000181', want: { key: '11222333000181', kind: 'cnpj' } }],
    ['a CPF with a wrong check digit', { given: '52998224726', want: /CPF key needs valid check digits/ }],
    ['a CNPJ with a wrong check digit', { given: '11222333000182', want: /CNPJ key needs valid check digits/ }],
    ['12 digits', { given: '112223330001', want: /CPF \(11\) or a CNPJ \(14\)/ }],
    ['a formatted CNPJ', { given: '11.222.333/0001-81', want: /a Pix key is/ }],
    ['an e-mail, lower-cased as the DICT holds it', { given: ' Financeiro@Padaria.COM.br ', want: { key: 'financeiro@padaria.com.br', kind: 'email' } }],
    ['an e-mail of 77 characters', { given: `${'a'.repeat(65)}@example.com`, want: { key: `${'a'.repeat(65)}@example.com`, kind: 'email' } }],
    ['an e-mail of 78 characters', { given: `${'a'.repeat(66)}@example.com`, want: /at most 77/ }],
    ['an e-mail without a domain dot', { given: 'pix@localhost', want: /e-mail key/ }],
    ['an e-mail with a space', { given: 'pix pix@example.com', want: /e-mail key/ }],
    ['the unpayable key itself', { given: UNPAYABLE_PIX_KEY, want: /reserved domain \(\.invalid.*can never be registered/ }],
    ['an e-mail at .test', { given: 'pay@shop.test', want: /reserved domain/ }],
    ['any e-mail at .invalid', { given: 'loja@exemplo.INVALID', want: /reserved domain/ }],
    ['a mobile number', { given: '+5511987654321', want: { key: '+5511987654321', kind: 'phone' } }],
    ['a landline (no leading 9)', { given: '+551133334444', want: /nine-digit mobile number/ }],
    ['a phone without +55', { given: '+14155550100', want: /phone key is \+55/ }],
    ['a DDD with a zero', { given: '+5510987654321', want: /phone key/ }],
    ['a random key (EVP)', { given: '3f2b8c1e-7d4a-4e6b-9a1c-5e8f0d2b7c46', want: { key: '3f2b8c1e-7d4a-4e6b-9a1c-5e8f0d2b7c46', kind: 'evp' } }],
    ['a random key in upper case', { given: '3F2B8C1E-7D4A-4E6B-9A1C-5E8F0D2B7C46', want: { key: '3f2b8c1e-7d4a-4e6b-9a1c-5e8f0d2b7c46', kind: 'evp' } }],
    ['a UUID that is not version 4', { given: '3f2b8c1e-7d4a-1e6b-9a1c-5e8f0d2b7c46', want: /a Pix key is/ }],
    ['empty', { given: '', want: /a Pix key is/ }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const reading = readPixKey(given);
    if (want instanceof RegExp) expect('problem' in reading ? reading.problem : JSON.stringify(reading)).toMatch(want);
    else expect(reading).toEqual(want);
  });
});

describe('isUnregistrablePixKey', () => {
  const cases: Array<[string, { given: string; want: boolean }]> = [
    ['an e-mail at .invalid', { given: 'sandbox@pix.invalid', want: true }],
    ['an e-mail at .test, any case', { given: 'Loja@Sandbox.TEST', want: true }],
    ['an e-mail at .example', { given: 'pix@example', want: true }],
    ['an e-mail at a real domain', { given: 'pix@empresa.com.br', want: false }],
    ['an e-mail at a domain that only ends in "invalid"', { given: 'pix@notinvalid', want: false }],
    ['a CNPJ', { given: '45723174000110', want: false }],
    ['a phone', { given: '+5511987654321', want: false }],
    ['a random key', { given: '123e4567-e12b-12d1-a456-426655440000', want: false }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(isUnregistrablePixKey(given)).toBe(want);
  });
});

import { describe, expect, test } from 'vitest';
import { formatTaxId, isValidCnpj, isValidCpf, isValidCpfOrCnpj, withCheckDigits } from './tax-id.js';
import { loadBundledContract, resolvePointer } from '../contract/bundled.js';
import { normaliseTaxId } from './normalise.js';

describe('isValidCpfOrCnpj', () => {
  const cases: Array<[string, { given: string; want: boolean }]> = [
    ['valid CPF', { given: '52998224725', want: true }],
    ['valid CPF ending in 0', { given: '39053344705', want: true }],
    ['CPF with a wrong first check digit', { given: '52998224715', want: false }],
    ['CPF with a wrong second check digit', { given: '52998224726', want: false }],
    ['CPF of one repeated digit', { given: '11111111111', want: false }],
    ['valid CNPJ', { given: '45723174000110', want: true }],
    ['valid CNPJ with check digits 81', { given: '11222333000181', want: true }],
    ['CNPJ with a wrong check digit', { given: '11222333000182', want: false }],
    ['CNPJ of one repeated digit', { given: '00000000000000', want: false }],
    ['12 digits', { given: '529982247251', want: false }],
    ['13 digits', { given: '4572317400011', want: false }],
    ['formatted CPF', { given: '529.982.247-25', want: false }],
    ['alphanumeric CNPJ (not accepted, D23)', { given: '12ABC34501DE35', want: false }],
    ['empty', { given: '', want: false }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(isValidCpfOrCnpj(given)).toBe(want);
  });
});

describe('withCheckDigits', () => {
  const cases: Array<[string, { given: string; want: string }]> = [
    ['CPF base', { given: '529982247', want: '52998224725' }],
    ['CNPJ base', { given: '457231740001', want: '45723174000110' }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const full = withCheckDigits(given);
    expect(full).toBe(want);
    expect(full.length === 11 ? isValidCpf(full) : isValidCnpj(full)).toBe(true);
  });
});

describe('isValidCpf', () => {
  const cases: Array<[string, { given: string; want: boolean }]> = [
    ['valid 529.982.247-25', { given: '52998224725', want: true }],
    ['valid 111.444.777-35', { given: '11144477735', want: true }],
    ['valid 123.456.789-09', { given: '12345678909', want: true }],
    ['second check digit wrong', { given: '52998224724', want: false }],
    ['first check digit wrong', { given: '52998224735', want: false }],
    ['body digit changed', { given: '52998224625', want: false }],
    ['all ones (passes mod 11, never issued)', { given: '11111111111', want: false }],
    ['all zeros', { given: '00000000000', want: false }],
    ['10 digits', { given: '5299822472', want: false }],
    ['masked form is not digits', { given: '529.982.247-25', want: false }],
    ['a valid CNPJ is not a CPF', { given: '11222333000181', want: false }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(isValidCpf(given)).toBe(want);
  });
});

describe('isValidCnpj', () => {
  const cases: Array<[string, { given: string; want: boolean }]> = [
    ['valid 11.222.333/0001-81', { given: '11222333000181', want: true }],
    ['valid Banco do Brasil 00.000.000/0001-91', { given: '00000000000191', want: true }],
    ['valid 33.000.167/0001-01', { given: '33000167000101', want: true }],
    ['second check digit wrong', { given: '11222333000180', want: false }],
    ['first check digit wrong', { given: '11222333000171', want: false }],
    ['branch digit changed', { given: '11222333000281', want: false }],
    ['all ones', { given: '11111111111111', want: false }],
    ['13 digits', { given: '1122233300018', want: false }],
    ['a valid CPF is not a CNPJ', { given: '52998224725', want: false }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(isValidCnpj(given)).toBe(want);
  });
});

describe('formatTaxId', () => {
  const taxIdInputPattern = resolvePointer(loadBundledContract(), '/components/schemas/TaxIdInput/pattern') as string;
  const cases: Array<[string, { given: string; want: ReturnType<typeof formatTaxId> }]> = [
    ['a CNPJ', { given: '12345678000190', want: { kind: 'CNPJ', text: '12.345.678/0001-90' } }],
    ['a CNPJ with check digits 81', { given: '11222333000181', want: { kind: 'CNPJ', text: '11.222.333/0001-81' } }],
    ['a CPF', { given: '12345678909', want: { kind: 'CPF', text: '123.456.789-09' } }],
    ['a CPF with leading zeros', { given: '00012345600', want: { kind: 'CPF', text: '000.123.456-00' } }],
    ['12 digits: no mask', { given: '123456789012', want: undefined }],
    ['13 digits: no mask', { given: '1234567890123', want: undefined }],
    ['already formatted: not digits', { given: '12.345.678/0001-90', want: undefined }],
    ['alphanumeric CNPJ (not accepted, D23)', { given: '12ABC34501DE35', want: undefined }],
    ['empty', { given: '', want: undefined }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const formatted = formatTaxId(given);
    expect(formatted).toEqual(want);
    // The mask is one that requests may use (the contract's TaxIdInput, D46), and reads back as the digits.
    if (!formatted) return;
    expect(formatted.text).toMatch(new RegExp(taxIdInputPattern));
    expect(normaliseTaxId(formatted.text)).toBe(given);
  });
});

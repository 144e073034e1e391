import { describe, expect, test } from 'vitest';
import { brCodeAmountCents, brCodeProblems, parseTlv } from '../../conformance/pix/brcode-check.js';
import { buildBrCode, carriesUnpayableKey, emvText } from './brcode.js';
import { UNPAYABLE_PIX_KEY } from './pix-key.js';
import { crc16Hex } from './crc16.js';

// The builder is checked by the contract tests' independent BR Code parser, not by itself.
describe('buildBrCode', () => {
  const cases: Array<[string, { given: Parameters<typeof buildBrCode>[0]; want: { amount: number; name: string; city: string } }]> = [
    [
      'accented names',
      {
        given: { pixKey: '45723174000110', amountCents: 12990, merchantName: 'Café Aurora Ltda', merchantCity: 'São Paulo', txid: 'abc123' },
        want: { amount: 12990, name: 'CAFE AURORA LTDA', city: 'SAO PAULO' },
      },
    ],
    [
      'long name and city are cut',
      {
        given: {
          pixKey: '52998224725',
          amountCents: 500,
          merchantName: 'Companhia Brasileira de Distribuição Alimentar',
          merchantCity: 'Santa Rita do Passa Quatro',
          txid: 'x',
        },
        want: { amount: 500, name: 'COMPANHIA BRASILEIRA DE D', city: 'SANTA RITA DO P' },
      },
    ],
    [
      'large amount',
      {
        given: { pixKey: '45723174000110', amountCents: 99999999999, merchantName: 'A', merchantCity: 'B', txid: 'z9' },
        want: { amount: 99999999999, name: 'A', city: 'B' },
      },
    ],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const code = buildBrCode(given);
    expect(brCodeProblems(code)).toEqual([]);
    expect(brCodeAmountCents(code)).toBe(want.amount);
    const fields = new Map(parseTlv(code).map((f) => [f.tag, f.value]));
    expect(fields.get('59')).toBe(want.name);
    expect(fields.get('60')).toBe(want.city);
    expect(code.slice(-4)).toBe(crc16Hex(code.slice(0, -4)));
  });

  test.each([
    ['zero amount', { amountCents: 0 }],
    ['fractional cents', { amountCents: 12.5 }],
    ['txid with an underscore', { txid: 'char_x' }],
    ['txid over 25 characters', { txid: 'a'.repeat(26) }],
  ])('refuses %s', (_name, change) => {
    expect(() => buildBrCode({ pixKey: '45723174000110', amountCents: 500, merchantName: 'A', merchantCity: 'B', txid: 'x', ...change })).toThrow(RangeError);
  });
});

describe('emvText', () => {
  const cases: Array<[string, { given: string; want: string }]> = [
    ['accents and case', { given: 'Açaí & Cia', want: 'ACAI & CIA' }],
    ['symbols become spaces', { given: 'Loja #1 (Centro)', want: 'LOJA 1 CENTRO' }],
    ['nothing printable', { given: '★★★', want: 'NA' }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(emvText(given, 25)).toBe(want);
  });
});

describe('carriesUnpayableKey', () => {
  const code = (pixKey: string, merchantName = 'A') => buildBrCode({ pixKey, amountCents: 500, merchantName, merchantCity: 'B', txid: 'x' });
  const cases: Array<[string, { given: string; want: boolean }]> = [
    ['the unpayable key', { given: code(UNPAYABLE_PIX_KEY), want: true }],
    ['a CNPJ key', { given: code('45723174000110'), want: false }],
    ['an e-mail key that ends like it', { given: code(`x${UNPAYABLE_PIX_KEY}`), want: false }],
    ['an e-mail key that starts like it', { given: code(`${UNPAYABLE_PIX_KEY}.br`), want: false }],
    ['a merchant named like the key (names lose their @)', { given: code('45723174000110', UNPAYABLE_PIX_KEY), want: false }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(carriesUnpayableKey(given)).toBe(want);
  });
});

/**
 * The independent Pix BR Code reader of the conformance suite (conformance/pix/brcode-check.ts):
 * TLV parsing, CRC16/CCITT-FALSE, the structural rules of a Pix copy-and-paste code, its
 * amount, and reading the QR code of a PNG data URI.
 */
import QRCode from 'qrcode';
import { describe, expect, test } from 'vitest';
import { brCodeAmountCents, brCodePixKey, brCodeProblems, crc16CcittFalse, parseTlv, qrTextOfDataUri } from './brcode-check.js';
import { bcbExample, pixBody, tlv, withCrc } from './brcode-fixtures.js';

describe('crc16CcittFalse', () => {
  const cases: Array<[string, { given: string; want: string }]> = [
    ['standard check value of "123456789"', { given: '123456789', want: '29B1' }],
    ['empty input is the initial value', { given: '', want: 'FFFF' }],
    ['BCB manual example payload up to 6304', { given: bcbExample.slice(0, -4), want: '1D3D' }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(crc16CcittFalse(given)).toBe(want);
  });
});

describe('parseTlv', () => {
  const cases: Array<[string, { given: string; want: string[] | RegExp }]> = [
    ['two objects', { given: '000201' + '5303986', want: ['00=01', '53=986'] }],
    ['nested template kept as value', { given: tlv('26', tlv('00', 'br.gov.bcb.pix')), want: ['26=0014br.gov.bcb.pix'] }],
    ['length longer than the rest', { given: '0005012', want: /declares length 5/ }],
    ['non-numeric length', { given: '00A101', want: /bad length/ }],
    ['non-numeric tag', { given: 'A00101', want: /bad tag/ }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    if (want instanceof RegExp) expect(() => parseTlv(given)).toThrow(want);
    else expect(parseTlv(given).map((t) => `${t.tag}=${t.value}`)).toEqual(want);
  });
});

describe('brCodeProblems', () => {
  const good = withCrc(pixBody());
  const flipped = `${good.slice(0, -4)}${good.slice(-4) === '0000' ? '0001' : '0000'}`;
  const cases: Array<[string, { given: string; want: RegExp | undefined }]> = [
    ['BCB manual static example', { given: bcbExample, want: undefined }],
    ['built dynamic-amount code', { given: good, want: undefined }],
    ['lower-case CRC accepted', { given: `${good.slice(0, -4)}${good.slice(-4).toLowerCase()}`, want: undefined }],
    ['BCB example with a flipped CRC', { given: `${bcbExample.slice(0, -4)}1D3E`, want: /CRC 1D3E does not match the computed CRC16\/CCITT-FALSE 1D3D/ }],
    ['flipped CRC', { given: flipped, want: /does not match the computed/ }],
    ['payload changed after the CRC was computed', { given: good.replace('Cafe Aurora Ltda', 'Cafe Aurora Ltdb'), want: /does not match the computed/ }],
    ['payload format indicator 02', { given: withCrc(pixBody({ '00': '02' })), want: /first data object must be 00/ }],
    ['payload format indicator not first', { given: withCrc(tlv('53', '986') + pixBody({ '53': undefined })), want: /first data object must be 00/ }],
    ['no merchant account template', { given: withCrc(pixBody({ '26': undefined })), want: /tag 26 .* missing/ }],
    ['other GUI in 26', { given: withCrc(pixBody({ '26': tlv('00', 'com.example.pay') })), want: /br.gov.bcb.pix/ }],
    ['26 not a template', { given: withCrc(pixBody({ '26': 'br.gov.bcb.pix' })), want: /tag 26 template does not parse/ }],
    ['no merchant category code (mandatory in EMV MPM)', { given: withCrc(pixBody({ '52': undefined })), want: /tag 52 .* must be 4 digits/ }],
    ['currency USD', { given: withCrc(pixBody({ '53': '840' })), want: /tag 53/ }],
    ['country US', { given: withCrc(pixBody({ '58': 'US' })), want: /tag 58/ }],
    ['no merchant name', { given: withCrc(pixBody({ '59': undefined })), want: /tag 59 .* missing/ }],
    ['no merchant city', { given: withCrc(pixBody({ '60': undefined })), want: /tag 60 .* missing/ }],
    ['merchant name over 25', { given: withCrc(pixBody({ '59': 'A Very Long Merchant Name Ltda' })), want: /at most 25/ }],
    ['accented merchant city', { given: withCrc(pixBody({ '60': 'São Paulo' })), want: /outside the EMV "ans" set/ }],
    ['amount with comma', { given: withCrc(pixBody({ '54': '129,90' })), want: /not a decimal amount/ }],
    ['CRC not last', { given: `${withCrc(pixBody())}0000`, want: /last data object must be 63/ }],
    ['CRC of length 3', { given: `${pixBody()}6303ABC`, want: /last data object must be 63/ }],
    ['truncated', { given: good.slice(0, 40), want: /TLV does not parse/ }],
    ['duplicate tag', { given: withCrc(pixBody() + tlv('58', 'BR')), want: /tag 58 occurs more than once/ }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const problems = brCodeProblems(given);
    if (want === undefined) expect(problems).toEqual([]);
    else expect(problems.join('\n')).toMatch(want);
  });
});

describe('qrTextOfDataUri', () => {
  const cases: Array<[string, { given: () => Promise<string>; want: { text: string } | RegExp }]> = [
    ['QR of the BCB example', { given: () => QRCode.toDataURL(bcbExample, { errorCorrectionLevel: 'M', margin: 2, scale: 4 }), want: { text: bcbExample } }],
    ['QR without quiet zone options', { given: () => QRCode.toDataURL('hello pix'), want: { text: 'hello pix' } }],
    ['JPEG data URI', { given: async () => 'data:image/jpeg;base64,AAAA', want: /not a data:image\/png/ }],
    ['not a PNG', { given: async () => `data:image/png;base64,${Buffer.from('plain text').toString('base64')}`, want: /not a readable PNG/ }],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    const result = qrTextOfDataUri(await given());
    if (want instanceof RegExp) expect('problem' in result ? result.problem : '').toMatch(want);
    else expect(result).toEqual(want);
  });
});

describe('brCodeAmountCents', () => {
  const cases: Array<[string, { given: string; want: number | undefined }]> = [
    ['two decimals', { given: withCrc(pixBody()), want: 12990 }],
    ['one decimal', { given: withCrc(pixBody({ '54': '129.9' })), want: 12990 }],
    ['whole reais', { given: withCrc(pixBody({ '54': '5' })), want: 500 }],
    ['centavos that binary floating point does not hold exactly', { given: withCrc(pixBody({ '54': '12.34' })), want: 1234 }],
    ['no amount (a static code)', { given: bcbExample, want: undefined }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(brCodeAmountCents(given)).toBe(want);
  });
});

describe('brCodePixKey', () => {
  const cases: Array<[string, { given: string; want: string | undefined }]> = [
    ["the BCB manual's example (a random key)", { given: bcbExample, want: '123e4567-e12b-12d1-a456-426655440000' }],
    ['an e-mail key', { given: withCrc(pixBody({ '26': tlv('00', 'br.gov.bcb.pix') + tlv('01', 'sandbox@pix.invalid') })), want: 'sandbox@pix.invalid' }],
    [
      'a template without a key (a dynamic code with a URL)',
      { given: withCrc(pixBody({ '26': tlv('00', 'br.gov.bcb.pix') + tlv('25', 'pix.example.com/qr/v2/x') })), want: undefined },
    ],
    ['no TLV at all', { given: 'not a BR Code', want: undefined }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    expect(brCodePixKey(given)).toBe(want);
  });
});

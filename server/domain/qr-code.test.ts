import QRCode from 'qrcode';
import { describe, expect, test } from 'vitest';
import { qrTextOfDataUri } from '../../conformance/pix/brcode-check.js';
import { buildBrCode } from '../../lib/pix/brcode.js';
import { qrPngDataUri } from './qr-code.js';

/** BR Codes as the server makes them: CNPJ, CPF, e-mail and random keys, many amounts and txids. */
const brCodes = Array.from({ length: 12 }, (_, i) =>
  buildBrCode({
    pixKey: ['11444777000161', '52998224725', 'maria.souza@example.com', '123e4567-e12b-12d1-a456-426655440000'][i % 4]!,
    amountCents: 1 + i * 104_729,
    merchantName: ['Padaria Bom Dia Ltda', 'Açaí da Ana', 'Pão de Açúcar Comércio de Alimentos S.A.'][i % 3]!,
    merchantCity: ['São Paulo', 'Belém', 'Ribeirão Preto'][i % 3]!,
    txid: `c${i.toString(36).padStart(24, 'x0')}`.slice(0, 25),
  }),
);

describe('qrPngDataUri', () => {
  test.each(brCodes.map((code) => [code]))('%s reads back as the same text', (code) => {
    expect(qrTextOfDataUri(qrPngDataUri(code))).toEqual({ text: code });
  });

  test('text beyond BR Codes (lower case, symbols, non-ASCII, long) reads back too', () => {
    for (const text of ['a', 'ABC123', 'pix://example.com/qr?id=42&x=ç', '0'.repeat(300)]) expect(qrTextOfDataUri(qrPngDataUri(text))).toEqual({ text });
  });

  test('has the modules qrcode lays out, 4 px each, with a 2-module quiet zone', () => {
    const code = brCodes[0]!;
    const { size } = QRCode.create(code, { errorCorrectionLevel: 'M' }).modules;
    const png = Buffer.from(qrPngDataUri(code).split(',')[1]!, 'base64');
    expect(png.readUInt32BE(16)).toBe((size + 4) * 4);
  });
});

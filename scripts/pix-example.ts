/**
 * Prints the `brCode` and `brCodeBase64` of the contract's charge example, so the
 * example stays a real, scannable Pix code: `npx tsx scripts/pix-example.ts`.
 * The inputs are the example company's and charge's values.
 */
import QRCode from 'qrcode';
import { buildBrCode } from '../lib/pix/brcode.js';

const brCode = buildBrCode({
  pixKey: '45723174000110',
  amountCents: 12990,
  merchantName: 'Café Aurora Ltda',
  merchantCity: 'São Paulo',
  txid: 'ndvw35rd8w4vqozp8gqwwcxt',
});
const brCodeBase64 = await QRCode.toDataURL(brCode, { errorCorrectionLevel: 'M', margin: 2, scale: 4 });
process.stdout.write(`${JSON.stringify({ brCode, brCodeBase64 }, null, 2)}\n`);

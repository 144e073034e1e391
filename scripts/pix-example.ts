/**
 * Prints the `brCode` and `brCodeBase64` of the contract's charge example, so the
 * example stays a real, scannable Pix code: `npx tsx scripts/pix-example.ts`.
 * The inputs are the example company's and charge's values; the example charge is a
 * development charge, so its code names the unpayable key (D43).
 */
import QRCode from 'qrcode';
import { buildBrCode } from '../lib/pix/brcode.js';
import { UNPAYABLE_PIX_KEY } from '../lib/pix/pix-key.js';

const brCode = buildBrCode({
  pixKey: UNPAYABLE_PIX_KEY,
  amountCents: 12990,
  merchantName: 'Café Aurora Ltda',
  merchantCity: 'São Paulo',
  txid: 'ndvw35rd8w4vqozp8gqwwcxt',
});
const brCodeBase64 = await QRCode.toDataURL(brCode, { errorCorrectionLevel: 'M', margin: 2, scale: 4 });
process.stdout.write(`${JSON.stringify({ brCode, brCodeBase64 }, null, 2)}\n`);

/**
 * The `brCodeBase64` micro-benchmark: the reference server's QR PNG encoder against the `qrcode`
 * package's `toDataURL` with the same options, on ~100 distinct real BR Codes. It runs in the
 * bench process before any target is started, so nothing competes for the CPU.
 */
import { createId } from '../../lib/ids/cuid2.js';
import QRCode from 'qrcode';
import { withCheckDigits } from '../../lib/brazil/tax-id.js';
import { buildBrCode } from '../../lib/pix/brcode.js';
import { qrPngDataUri } from '../../server/domain/qr-code.js';
import { HarnessError } from './harness-error.js';

const PAYLOAD_COUNT = 100;
const WARMUP_PASSES = 2;
const TIMED_PASSES = 5;

export interface QrFigures {
  payloads: number;
  passes: number;
  referenceMsPerPng: number;
  qrcodeMsPerPng: number;
  /** reference / qrcode: below 1 is faster. */
  ratio: number;
}

/** BR Codes as POST /charge/payment-link builds them: a company CNPJ, an amount, a cuid2 txid. */
function brCodes(): string[] {
  return Array.from({ length: PAYLOAD_COUNT }, (_, i) =>
    buildBrCode({
      pixKey: withCheckDigits(String(112_223_330_001 + i * 97).padStart(12, '0')),
      amountCents: 500 + i * 1_379,
      merchantName: `Loja Benchmark ${i}`,
      merchantCity: 'São Paulo',
      txid: createId(),
    }),
  );
}

// Either shape works: the encoder is being changed from async (qrcode-based) to a sync one.
const reference = async (text: string): Promise<string> => await qrPngDataUri(text);
const peer = (text: string): Promise<string> => QRCode.toDataURL(text, { errorCorrectionLevel: 'M', margin: 2, scale: 4 });

/** Milliseconds for one pass over every payload. */
async function pass(encode: (text: string) => Promise<string>, payloads: readonly string[]): Promise<number> {
  const started = process.hrtime.bigint();
  for (const payload of payloads) await encode(payload);
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function qrMicroBenchmark(): Promise<QrFigures> {
  const payloads = brCodes();
  for (const encode of [reference, peer]) {
    const uri = await encode(payloads[0]!);
    if (!uri.startsWith('data:image/png;base64,')) throw new HarnessError(`a QR encoder returned no PNG data URI: ${uri.slice(0, 80)}`);
  }
  for (let i = 0; i < WARMUP_PASSES; i++) {
    await pass(reference, payloads);
    await pass(peer, payloads);
  }
  let referenceMs = 0;
  let peerMs = 0;
  // Alternate which goes first, so neither always runs after the other's garbage.
  for (let i = 0; i < TIMED_PASSES; i++) {
    if (i % 2 === 0) {
      referenceMs += await pass(reference, payloads);
      peerMs += await pass(peer, payloads);
    } else {
      peerMs += await pass(peer, payloads);
      referenceMs += await pass(reference, payloads);
    }
  }
  const pngs = PAYLOAD_COUNT * TIMED_PASSES;
  const referenceMsPerPng = referenceMs / pngs;
  const qrcodeMsPerPng = peerMs / pngs;
  return { payloads: PAYLOAD_COUNT, passes: TIMED_PASSES, referenceMsPerPng, qrcodeMsPerPng, ratio: referenceMsPerPng / qrcodeMsPerPng };
}

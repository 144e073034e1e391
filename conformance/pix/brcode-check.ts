/**
 * Pix BR Code (EMV QRCPS merchant-presented payload) reading for the example
 * checks: a TLV parser, CRC16/CCITT-FALSE, the structural rules of a Pix
 * copy-and-paste code, and reading the QR code of a `data:image/png` URI.
 */
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';

type JsQr = typeof import('jsqr').default;
// jsqr is CommonJS whose module.exports is the function and also carries it as `default`.
const jsQR: JsQr = ((jsQRModule as unknown as { default?: JsQr }).default ?? jsQRModule) as JsQr;

export interface Tlv {
  tag: string;
  length: number;
  value: string;
  /** Offset of the tag in the parsed string. */
  offset: number;
}

/** Splits an EMV TLV string (2-digit tag, 2-digit decimal length, value) into its data objects; throws when malformed. */
export function parseTlv(input: string): Tlv[] {
  const result: Tlv[] = [];
  let offset = 0;
  while (offset < input.length) {
    const tag = input.slice(offset, offset + 2);
    const lengthText = input.slice(offset + 2, offset + 4);
    if (!/^\d{2}$/.test(tag)) throw new Error(`bad tag ${JSON.stringify(tag)} at offset ${offset}`);
    if (!/^\d{2}$/.test(lengthText)) throw new Error(`bad length ${JSON.stringify(lengthText)} of tag ${tag} at offset ${offset}`);
    const length = Number(lengthText);
    const value = input.slice(offset + 4, offset + 4 + length);
    if (value.length !== length) throw new Error(`tag ${tag} at offset ${offset} declares length ${length} but only ${value.length} characters remain`);
    result.push({ tag, length, value, offset });
    offset += 4 + length;
  }
  return result;
}

/** CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) over the UTF-8 bytes of `input`, as 4 uppercase hex digits. */
export function crc16CcittFalse(input: string | Uint8Array): string {
  const bytes = typeof input === 'string' ? new TextEncoder().encode(input) : input;
  let crc = 0xffff;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

const printableAscii = /^[\x20-\x7e]*$/;

/**
 * Everything wrong with a Pix BR Code; empty when it is well formed:
 * TLV parses, 00 = "01" first, 26 a template whose GUI (sub-tag 00) is
 * br.gov.bcb.pix, 52 four digits (the merchant category, mandatory in EMV MPM), 53 = "986", 58 = "BR", 59 (≤ 25) and 60 (≤ 15) present,
 * 54 (if any) a decimal amount, no tag twice, EMV "ans" characters (printable
 * ASCII) outside the language template 64, 63 last with length 04 holding the
 * CRC16/CCITT-FALSE of everything up to and including "6304".
 */
export function brCodeProblems(payload: string): string[] {
  let tlvs: Tlv[];
  try {
    tlvs = parseTlv(payload);
  } catch (error) {
    return [`TLV does not parse: ${(error as Error).message}`];
  }
  const problems: string[] = [];
  const byTag = new Map<string, Tlv>();
  for (const tlv of tlvs) {
    if (byTag.has(tlv.tag)) problems.push(`tag ${tlv.tag} occurs more than once`);
    byTag.set(tlv.tag, tlv);
  }
  const first = tlvs[0];
  if (first?.tag !== '00' || first.value !== '01') problems.push('first data object must be 00 (payload format indicator) = "01"');

  const account = byTag.get('26');
  if (!account) {
    problems.push('tag 26 (merchant account information) missing');
  } else {
    try {
      const gui = parseTlv(account.value).find((sub) => sub.tag === '00');
      if (gui?.value.toLowerCase() !== 'br.gov.bcb.pix') problems.push('tag 26 does not hold GUI (sub-tag 00) br.gov.bcb.pix');
    } catch (error) {
      problems.push(`tag 26 template does not parse: ${(error as Error).message}`);
    }
  }
  const category = byTag.get('52');
  if (!category || !/^\d{4}$/.test(category.value)) problems.push('tag 52 (merchant category code) must be 4 digits ("0000" when none)');
  if (byTag.get('53')?.value !== '986') problems.push('tag 53 (currency) must be "986" (BRL)');
  if (byTag.get('58')?.value !== 'BR') problems.push('tag 58 (country) must be "BR"');
  const name = byTag.get('59');
  if (!name || name.length === 0) problems.push('tag 59 (merchant name) missing');
  else if (name.length > 25) problems.push(`tag 59 (merchant name) is ${name.length} characters, at most 25 allowed`);
  const city = byTag.get('60');
  if (!city || city.length === 0) problems.push('tag 60 (merchant city) missing');
  else if (city.length > 15) problems.push(`tag 60 (merchant city) is ${city.length} characters, at most 15 allowed`);
  const amount = byTag.get('54');
  if (amount && !/^\d+(\.\d{1,2})?$/.test(amount.value)) problems.push(`tag 54 (amount) ${JSON.stringify(amount.value)} is not a decimal amount`);
  for (const tlv of tlvs) {
    if (tlv.tag !== '64' && !printableAscii.test(tlv.value)) {
      problems.push(`tag ${tlv.tag} value ${JSON.stringify(tlv.value)} has characters outside the EMV "ans" set (printable ASCII)`);
    }
  }

  const last = tlvs[tlvs.length - 1];
  if (last?.tag !== '63' || last.length !== 4) {
    problems.push('last data object must be 63 (CRC) with length 04');
  } else {
    const expected = crc16CcittFalse(payload.slice(0, last.offset + 4));
    if (last.value.toUpperCase() !== expected) problems.push(`CRC ${last.value} does not match the computed CRC16/CCITT-FALSE ${expected}`);
  }
  return problems;
}

/** The amount of tag 54 in cents, or undefined when the code carries no amount. */
export function brCodeAmountCents(payload: string): number | undefined {
  const amount = parseTlv(payload).find((tlv) => tlv.tag === '54');
  return amount ? Math.round(Number(amount.value) * 100) : undefined;
}

/** The Pix key of a BR Code (field 26, sub-field 01), or undefined when it has none. */
export function brCodePixKey(payload: string): string | undefined {
  try {
    const account = parseTlv(payload).find((tlv) => tlv.tag === '26');
    return account && parseTlv(account.value).find((sub) => sub.tag === '01')?.value;
  } catch {
    return undefined;
  }
}

/**
 * The text of the QR code in a `data:image/png;base64,…` URI, or why there is none.
 */
export function qrTextOfDataUri(uri: string): { text: string } | { problem: string } {
  const match = /^data:image\/png;base64,([A-Za-z0-9+/]+={0,2})$/.exec(uri);
  if (!match?.[1]) return { problem: 'not a data:image/png;base64,… URI' };
  let png: { width: number; height: number; data: Buffer };
  try {
    png = PNG.sync.read(Buffer.from(match[1], 'base64'));
  } catch (error) {
    return { problem: `not a readable PNG: ${(error as Error).message}` };
  }
  const pixels = new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.byteLength);
  const code = jsQR(pixels, png.width, png.height);
  if (!code) return { problem: `no QR code found in the ${png.width}x${png.height} PNG` };
  return { text: code.data };
}

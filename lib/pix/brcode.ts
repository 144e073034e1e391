import { crc16Hex } from './crc16.js';
import { UNPAYABLE_PIX_KEY } from './pix-key.js';

/**
 * Builds a Pix BR Code (EMV® QRCPS merchant-presented mode, as profiled by the
 * Banco Central do Brasil's "Manual de Padrões para Iniciação do Pix").
 */
export interface BrCodeInput {
  /** Pix key of the receiver: the company's own key, or UNPAYABLE_PIX_KEY (D43). */
  pixKey: string;
  /** Amount in cents; written as a decimal with two places (field 54). */
  amountCents: number;
  merchantName: string;
  merchantCity: string;
  /** Transaction id (field 62-05): up to 25 characters, A–Z a–z 0–9. */
  txid: string;
}

function tlv(id: string, value: string): string {
  const length = Buffer.byteLength(value, 'utf8');
  if (length > 99) throw new RangeError(`EMV field ${id} is ${length} bytes long; at most 99 fit`);
  return `${id}${String(length).padStart(2, '0')}${value}`;
}

/** Upper-case ASCII without accents: what every Pix-reading bank app displays reliably. */
export function emvText(text: string, maxLength: number): string {
  const ascii = text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9 .,\-/&]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim()
    .toUpperCase();
  return ascii.slice(0, maxLength).trim() || 'NA';
}

/** Field 26, the merchant account: the Pix GUI and the key. */
function merchantAccount(pixKey: string): string {
  return tlv('26', tlv('00', 'br.gov.bcb.pix') + tlv('01', pixKey));
}

/** Whether a BR Code this builder wrote names the key no one can register, so it can never move money. */
export function carriesUnpayableKey(brCode: string): boolean {
  return brCode.includes(merchantAccount(UNPAYABLE_PIX_KEY));
}

export function buildBrCode(input: BrCodeInput): string {
  if (!Number.isSafeInteger(input.amountCents) || input.amountCents <= 0) {
    throw new RangeError('amountCents must be a positive integer');
  }
  if (!/^[A-Za-z0-9]{1,25}$/.test(input.txid)) throw new RangeError('txid must be 1–25 letters or digits');
  const amount = `${Math.trunc(input.amountCents / 100)}.${String(input.amountCents % 100).padStart(2, '0')}`;
  const merchant = merchantFields(input.merchantName, input.merchantCity);
  const payload = `${receiverFields(input.pixKey)}${tlv('54', amount)}${merchant}${tlv('62', tlv('05', input.txid))}6304`;
  return payload + crc16Hex(payload);
}

/**
 * The fields of a BR Code that are the same for every charge of a company, made once per
 * company (a charge's create would otherwise normalise its name and city every time): at most
 * `KEPT_FIELDS` of each are kept, and the lot is dropped when full.
 */
const KEPT_FIELDS = 1_000;
const receivers = new Map<string, string>();
const merchants = new Map<string, string>();

function kept(map: Map<string, string>, key: string, make: () => string): string {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    if (map.size >= KEPT_FIELDS) map.clear();
    map.set(key, value);
  }
  return value;
}

/** Fields 00 (format), 01 (dynamic), 26 (the receiver's Pix key), 52 (category) and 53 (currency). */
function receiverFields(pixKey: string): string {
  return kept(receivers, pixKey, () => tlv('00', '01') + tlv('01', '12') + merchantAccount(pixKey) + tlv('52', '0000') + tlv('53', '986'));
}

/** Fields 58 (country), 59 (merchant name) and 60 (merchant city). */
function merchantFields(name: string, city: string): string {
  return kept(merchants, `${name}\u0000${city}`, () => tlv('58', 'BR') + tlv('59', emvText(name, 25)) + tlv('60', emvText(city, 15)));
}

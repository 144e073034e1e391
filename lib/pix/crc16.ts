/**
 * CRC16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR),
 * the checksum the Pix BR Code manual prescribes for field 63.
 */
const table = (() => {
  const t = new Uint16Array(256);
  for (let i = 0; i < 256; i++) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    t[i] = crc;
  }
  return t;
})();

export function crc16CcittFalse(input: string): number {
  let crc = 0xffff;
  const bytes = Buffer.from(input, 'utf8');
  // An indexed loop: a Buffer's iterator costs more than the table look-ups.
  for (let i = 0; i < bytes.length; i++) crc = ((crc << 8) & 0xffff) ^ table[((crc >> 8) ^ bytes[i]!) & 0xff]!;
  return crc;
}

/** The four upper-case hex digits that close a BR Code. */
export function crc16Hex(input: string): string {
  return crc16CcittFalse(input).toString(16).toUpperCase().padStart(4, '0');
}

import { crc32, deflateSync } from 'node:zlib';

/** A square grid of dark and light cells, as `qrcode`'s `BitMatrix` has it (row-major, 1 = dark). */
export interface CellGrid {
  size: number;
  data: ArrayLike<number | boolean>;
}

export interface MonochromePngOptions {
  /** Pixels per cell. */
  scale: number;
  /** Light cells around the grid (a QR code's quiet zone). */
  margin: number;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A grid as a 1-bit grayscale PNG (PNG 1.2: colour type 0, bit depth 1, filter 0 on every row).
 * Why our own: a QR code is black and white, so one bit a pixel is enough; the general encoder
 * behind `qrcode`'s `toDataURL` writes 32-bit RGBA and deflates 32 times as many bytes.
 */
export function encodeMonochromePng(grid: CellGrid, { scale, margin }: MonochromePngOptions): Buffer {
  const cells = grid.size + 2 * margin;
  const width = cells * scale;
  const rowBytes = 1 + Math.ceil(width / 8);
  const raw = Buffer.alloc(rowBytes * width);
  // Every pixel starts light (bit 1); dark cells clear their bits.
  for (let y = 0; y < width; y++) raw.fill(0xff, y * rowBytes + 1, (y + 1) * rowBytes);
  for (let row = 0; row < grid.size; row++) {
    const firstLine = (row + margin) * scale * rowBytes;
    for (let col = 0; col < grid.size; col++) {
      if (!grid.data[row * grid.size + col]) continue;
      const x0 = (col + margin) * scale;
      for (let x = x0; x < x0 + scale; x++) raw[firstLine + 1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
    }
    // The other lines of the cell row are copies of its first.
    for (let line = 1; line < scale; line++) raw.copy(raw, firstLine + line * rowBytes, firstLine, firstLine + rowBytes);
  }
  // The padding bits after the last pixel of each row are ignored by decoders; keep them light.
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(width, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // grayscale
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

import { PNG } from 'pngjs';
import { describe, expect, test } from 'vitest';
import { encodeMonochromePng, type CellGrid } from './monochrome-png.js';

/** A grid from rows of '#' (dark) and '.' (light). */
function grid(rows: string[]): CellGrid {
  return {
    size: rows.length,
    data: rows
      .join('')
      .split('')
      .map((ch) => (ch === '#' ? 1 : 0)),
  };
}

/** Whether the decoded pixel at (x, y) is dark (the decoder gives RGBA). */
function dark(png: PNG, x: number, y: number): boolean {
  return png.data[(y * png.width + x) * 4] === 0;
}

describe('encodeMonochromePng', () => {
  const cases: Array<[string, { given: { rows: string[]; scale: number; margin: number } }]> = [
    ['one dark cell, no margin, 1 px', { given: { rows: ['#'], scale: 1, margin: 0 } }],
    ['a checkerboard at 4 px with a 2-cell margin', { given: { rows: ['#.#', '.#.', '#.#'], scale: 4, margin: 2 } }],
    ['a width that is not a multiple of 8 bits (5 cells x 3 px)', { given: { rows: ['#...#', '.#.#.', '..#..', '.#.#.', '#...#'], scale: 3, margin: 0 } }],
    ['an all-light grid with a margin', { given: { rows: ['...', '...', '...'], scale: 2, margin: 1 } }],
    [
      'a 21-cell grid at 4 px (a version 1 QR code)',
      {
        given: {
          rows: Array.from({ length: 21 }, (_, r) => Array.from({ length: 21 }, (_, c) => ((r * 7 + c * 3) % 5 === 0 ? '#' : '.')).join('')),
          scale: 4,
          margin: 2,
        },
      },
    ],
  ];

  test.each(cases)('%s decodes to the same cells', (_name, { given }) => {
    const cells = grid(given.rows);
    const png = PNG.sync.read(encodeMonochromePng(cells, { scale: given.scale, margin: given.margin }));
    const side = (cells.size + 2 * given.margin) * given.scale;
    expect([png.width, png.height]).toEqual([side, side]);
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) {
        const [row, col] = [Math.floor(y / given.scale) - given.margin, Math.floor(x / given.scale) - given.margin];
        const inside = row >= 0 && col >= 0 && row < cells.size && col < cells.size;
        const want = inside && given.rows[row]![col] === '#';
        if (dark(png, x, y) !== want) throw new Error(`pixel (${x}, ${y}) is ${want ? 'light' : 'dark'}, want ${want ? 'dark' : 'light'}`);
      }
    }
  });

  test('is a 1-bit grayscale PNG whose chunk CRCs a strict decoder accepts', () => {
    const bytes = encodeMonochromePng(grid(['#.', '.#']), { scale: 2, margin: 1 });
    expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    // IHDR: width, height, bit depth 1, colour type 0 (grayscale).
    expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20), bytes[24], bytes[25]]).toEqual([8, 8, 1, 0]);
    expect(() => PNG.sync.read(bytes, { checkCRC: true })).not.toThrow();
    const broken = Buffer.from(bytes);
    broken[29] = broken[29]! ^ 0xff; // a byte of IHDR's CRC
    expect(() => PNG.sync.read(broken, { checkCRC: true })).toThrow();
  });
});

/**
 * BR Code fixtures of the tests that read Pix codes: a TLV writer, a valid code built from
 * data objects (with one object changed or left out), and the Banco Central's own example.
 */
import { crc16CcittFalse } from './brcode-check.js';

export const tlv = (tag: string, value: string): string => `${tag}${String(value.length).padStart(2, '0')}${value}`;
/** A BR Code from data objects, with its CRC appended. */
export const withCrc = (body: string): string => `${body}6304${crc16CcittFalse(`${body}6304`)}`;
export const pixBody = (over: Record<string, string | undefined> = {}): string => {
  // A list, not an object: integer-like keys ('26', '53', …) would be reordered before '00'.
  const objects: Array<[string, string]> = [
    ['00', '01'],
    ['26', tlv('00', 'br.gov.bcb.pix') + tlv('01', '11222333000181')],
    ['52', '0000'],
    ['53', '986'],
    ['54', '129.90'],
    ['58', 'BR'],
    ['59', 'Cafe Aurora Ltda'],
    ['60', 'Sao Paulo'],
    ['62', tlv('05', 'ndvw35rd8w4vqozp8gqwwcxt')],
  ];
  return objects
    .map(([tag, value]): [string, string | undefined] => [tag, tag in over ? over[tag] : value])
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([tag, value]) => tlv(tag, value))
    .join('');
};
/** The static BR Code example of the Banco Central do Brasil's Pix BR Code manual. */
export const bcbExample =
  '00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D';

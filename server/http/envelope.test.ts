import { describe, expect, test } from 'vitest';
import { asSerialised } from './define-operation.js';
import { EnvelopeBytes, envelopeJson } from './envelope.js';

const text = (bytes: unknown) => Buffer.from(bytes as Uint8Array).toString('utf8');

describe('EnvelopeBytes', () => {
  test('answers the envelope of the stored text as UTF-8 bytes, the same bytes for the same text', () => {
    const found = new EnvelopeBytes(200, 'Charge found');
    const stored = asSerialised<{ id: string; name: string }>('{"id":"ch_1","name":"Café"}');
    const first = found.of(stored);
    expect(first).toBeInstanceOf(Uint8Array);
    expect(text(first)).toBe(envelopeJson(200, 'Charge found', stored));
    expect(JSON.parse(text(first))).toEqual({ status: 200, message: 'Charge found', data: { id: 'ch_1', name: 'Café' } });
    expect(found.of(asSerialised(`{"id":"ch_1","name":"Caf${'é'}"}`)), 'an equal text read again').toBe(first);
  });

  test('a changed record (another text) gets its own answer', () => {
    const found = new EnvelopeBytes(200, 'Charge found');
    found.of(asSerialised('{"id":"ch_1","status":"ACTIVE"}'));
    expect(JSON.parse(text(found.of(asSerialised('{"id":"ch_1","status":"PAID"}')))).data.status).toBe('PAID');
  });

  test('past its bound it starts over, and still answers every text right', () => {
    const found = new EnvelopeBytes(200, 'Charge found', 200);
    const answers = Array.from({ length: 20 }, (_, i) => found.of(asSerialised(`{"id":"ch_${i}"}`)));
    for (const [i, bytes] of answers.entries()) expect(JSON.parse(text(bytes)).data.id).toBe(`ch_${i}`);
    const early = found.of(asSerialised('{"id":"ch_0"}'));
    expect(early, 'made again after the start-over').not.toBe(answers[0]);
    expect(text(early)).toBe(text(answers[0]));
    // A text larger than the whole bound is answered, not kept.
    const large = asSerialised(`{"id":"${'x'.repeat(300)}"}`);
    expect(text(found.of(large))).toBe(envelopeJson(200, 'Charge found', large));
    expect(found.of(large)).not.toBe(found.of(large));
  });
});

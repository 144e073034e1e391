import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from 'vitest';
import { verifyWebhook, WebhookVerificationFailed, type WebhookEvent, type WebhookHeaders } from './index.js';

const secret = `whsec_${Buffer.from('a test secret of thirty-two byte').toString('base64')}`;
const otherSecret = `whsec_${Buffer.from('another secret, thirty-two bytes').toString('base64')}`;
const event = { type: 'charge.paid', timestamp: '2026-05-01T12:00:00.000Z', data: { id: 'char_x', status: 'PAID' } };
const body = JSON.stringify(event);

function signed(over: { body?: string; secret?: string; at?: Date } = {}): Record<string, string> {
  const at = over.at ?? new Date();
  return {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(over.secret ?? secret).sign('msg_1', at, over.body ?? body),
  };
}

describe('verifyWebhook', () => {
  const accepted: Array<[string, { given: { headers: WebhookHeaders; raw: string | Uint8Array } }]> = [
    ["Node's req.headers and the body as text", { given: { headers: signed(), raw: body } }],
    ['fetch Headers and the body as bytes', { given: { headers: new Headers(signed()), raw: new TextEncoder().encode(body) } }],
    ['headers in another case', { given: { headers: Object.fromEntries(Object.entries(signed()).map(([k, v]) => [k.toUpperCase(), v])), raw: body } }],
  ];
  test.each(accepted)('returns the event: %s', (_name, { given }) => {
    const verified: WebhookEvent = verifyWebhook(secret, given.headers, given.raw);
    expect(verified).toEqual(event);
  });

  const refused: Array<[string, { given: { secret?: string; headers: WebhookHeaders; raw: string }; want: RegExp }]> = [
    ['a changed body', { given: { headers: signed(), raw: body.replace('PAID', 'PENDING') }, want: /failed verification \(No matching signature found\)/ }],
    [
      'a body parsed and serialised again',
      { given: { headers: signed(), raw: JSON.stringify(event, null, 2) }, want: /pass the body exactly as received, unparsed/ },
    ],
    [
      "another registration's secret",
      { given: { secret: otherSecret, headers: signed(), raw: body }, want: /No matching signature.*may be signed for another registration to this URL/ },
    ],
    ['a stale timestamp', { given: { headers: signed({ at: new Date(Date.now() - 3600_000) }), raw: body }, want: /too old\)$/ }],
    ['a missing signature header', { given: { headers: { ...signed(), 'webhook-signature': undefined }, raw: body }, want: /no webhook-signature header/ }],
    ['a secret that is not whsec_…', { given: { secret: 'sk_123', headers: signed(), raw: body }, want: /must be the whsec_… value/ }],
  ];
  test.each(refused)('throws WebhookVerificationFailed: %s', (_name, { given, want }) => {
    const verify = () => verifyWebhook(given.secret ?? secret, given.headers, given.raw);
    expect(verify).toThrow(WebhookVerificationFailed);
    expect(verify).toThrow(want);
  });
});

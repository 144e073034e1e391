/**
 * The webhook URL policy (D40), judged in both deployment modes: `https` anywhere in
 * development and anywhere but literal internal addresses and `localhost` in production;
 * `http` only to localhost in development; never credentials.
 */
import { describe, expect, test } from 'vitest';
import { webhookUrlError, webhookUrlVerdict, type DeploymentMode } from './url-policy.js';

type Want = 'allowed' | 'https-only' | 'internal' | 'credentials' | 'not-a-url';

interface Case {
  given: string;
  want: { development: Want; production: Want };
}

const both = (want: Want) => ({ development: want, production: want });
/** Allowed in development, refused as internal in production. */
const internal = { development: 'allowed', production: 'internal' } as const;

const cases: Array<[string, Case]> = [
  // Public https hosts: always allowed.
  ['a public https host', { given: 'https://cafeaurora.example.com/webhooks/pix', want: both('allowed') }],
  ['https with port, path and query', { given: 'https://hooks.example.com:8443/pix/events?source=pix&v=2', want: both('allowed') }],
  ['https with an upper-case scheme and host', { given: 'HTTPS://HOOKS.EXAMPLE.COM/pix', want: both('allowed') }],
  ['a public IPv4 literal', { given: 'https://203.0.113.10/hook', want: both('allowed') }],
  ['a public IPv6 literal', { given: 'https://[2001:db8::10]/hook', want: both('allowed') }],
  ['172.32.0.1, just past 172.16/12', { given: 'https://172.32.0.1/', want: both('allowed') }],
  ['172.15.255.255, just before 172.16/12', { given: 'https://172.15.255.255/', want: both('allowed') }],
  ['100.128.0.1, just past 100.64/10', { given: 'https://100.128.0.1/', want: both('allowed') }],
  ['169.255.0.1, just past 169.254/16', { given: 'https://169.255.0.1/', want: both('allowed') }],
  ['11.0.0.1, just past 10/8', { given: 'https://11.0.0.1/', want: both('allowed') }],
  ['fec0::1, just past fe80::/10', { given: 'https://[fec0::1]/', want: both('allowed') }],
  ['fe00::1, just before fc00::/7', { given: 'https://[fe00::1]/', want: both('allowed') }],
  [
    'a name under .invalid (never resolves; the conformance suite registers these)',
    { given: 'https://webhooks.conformance.invalid/conf1234', want: both('allowed') },
  ],
  ['a name that only contains "localhost"', { given: 'https://localhost.example.com/', want: both('allowed') }],
  ['a name ending in "localhost" without a dot', { given: 'https://mylocalhost/', want: both('allowed') }],
  ['a name that resolves anywhere (names are not resolved)', { given: 'https://intranet.corp/', want: both('allowed') }],

  // Private (RFC 1918, shared address space RFC 6598).
  ['10.0.0.1', { given: 'https://10.0.0.1/hook', want: internal }],
  ['10.255.255.255', { given: 'https://10.255.255.255/', want: internal }],
  ['172.16.0.1', { given: 'https://172.16.0.1/', want: internal }],
  ['172.31.255.254', { given: 'https://172.31.255.254/', want: internal }],
  ['192.168.1.10 with a port', { given: 'https://192.168.1.10:8443/hook', want: internal }],
  ['100.64.0.1 (shared address space)', { given: 'https://100.64.0.1/', want: internal }],
  ['100.127.255.254', { given: 'https://100.127.255.254/', want: internal }],
  // Loopback.
  ['127.0.0.1', { given: 'https://127.0.0.1/', want: internal }],
  ['127.255.0.9', { given: 'https://127.255.0.9/', want: internal }],
  ['127.0.0.1 as one decimal number', { given: 'https://2130706433/', want: internal }],
  ['127.0.0.1 in hexadecimal shorthand', { given: 'https://0x7f.1/', want: internal }],
  ['127.0.0.1 shortened to 127.1', { given: 'https://127.1/', want: internal }],
  ['::1', { given: 'https://[::1]/', want: internal }],
  ['::1 written out in full', { given: 'https://[0:0:0:0:0:0:0:1]:8443/', want: internal }],
  ['127.0.0.1 mapped into IPv6', { given: 'https://[::ffff:127.0.0.1]/', want: internal }],
  ['10.1.2.3 mapped into IPv6 (hex form)', { given: 'https://[::ffff:a01:203]/', want: internal }],
  // Link-local.
  ['169.254.169.254 (cloud metadata)', { given: 'https://169.254.169.254/latest/meta-data', want: internal }],
  ['fe80::1', { given: 'https://[fe80::1]/', want: internal }],
  ['FE80::ABCD in upper case', { given: 'https://[FE80::ABCD]/', want: internal }],
  ['febf::1, the top of fe80::/10', { given: 'https://[febf::1]/', want: internal }],
  // Unique-local.
  ['fc00::1', { given: 'https://[fc00::1]/', want: internal }],
  ['fd12:3456::1', { given: 'https://[fd12:3456::1]:9000/', want: internal }],
  // Unspecified.
  ['0.0.0.0', { given: 'https://0.0.0.0/', want: internal }],
  ['0 (parsed as 0.0.0.0)', { given: 'https://0/', want: internal }],
  ['::', { given: 'https://[::]/', want: internal }],
  // localhost by name (RFC 6761).
  ['localhost', { given: 'https://localhost/', want: internal }],
  ['LOCALHOST in upper case with a port', { given: 'https://LOCALHOST:8443/hook', want: internal }],
  ['localhost. (fully qualified)', { given: 'https://localhost./', want: internal }],
  ['a subdomain of localhost', { given: 'https://api.localhost/', want: internal }],
  ['a percent-encoded localhost', { given: 'https://%6cocalhost/', want: internal }],

  // http: only to localhost, only in development.
  ['http to localhost', { given: 'http://localhost:4000/hook', want: { development: 'allowed', production: 'https-only' } }],
  ['http to LOCALHOST', { given: 'http://LOCALHOST/hook', want: { development: 'allowed', production: 'https-only' } }],
  ['http to 127.0.0.1', { given: 'http://127.0.0.1:8080/', want: { development: 'allowed', production: 'https-only' } }],
  ['http to [::1]', { given: 'http://[::1]:8080/', want: { development: 'allowed', production: 'https-only' } }],
  ['http to 127.1 (is 127.0.0.1)', { given: 'http://127.1/', want: { development: 'allowed', production: 'https-only' } }],
  ['http to a public host', { given: 'http://cafeaurora.example.com/webhooks/pix', want: both('https-only') }],
  ['http to a private address', { given: 'http://10.0.0.1/', want: both('https-only') }],
  ['http to another loopback address', { given: 'http://127.0.0.2/', want: both('https-only') }],
  ['http to 0.0.0.0', { given: 'http://0.0.0.0/', want: both('https-only') }],
  ['http to a subdomain of localhost', { given: 'http://api.localhost/', want: both('https-only') }],
  ['http to a host that starts with localhost', { given: 'http://localhost.example.com/', want: both('https-only') }],

  // Credentials, including ones that disguise the host.
  ['https with user and password', { given: 'https://user:secret@hooks.example.com/', want: both('credentials') }],
  ['https with a user only', { given: 'https://user@hooks.example.com/', want: both('credentials') }],
  ['a public-looking userinfo before a private host', { given: 'https://hooks.example.com@10.0.0.1/', want: both('credentials') }],
  ['http with localhost as userinfo before a public host', { given: 'http://localhost:80@example.com/', want: both('credentials') }],

  // Other schemes and non-URLs.
  ['ftp', { given: 'ftp://files.example.com/', want: both('https-only') }],
  ['javascript', { given: 'javascript:alert(1)', want: both('https-only') }],
  ['a relative path', { given: '/webhooks/pix', want: both('not-a-url') }],
  ['an empty string', { given: '', want: both('not-a-url') }],
  ['https with an invalid IPv6 literal', { given: 'https://[::1::2]/', want: both('not-a-url') }],
];

const reasons: Record<Exclude<Want, 'allowed'>, RegExp> = {
  'https-only': /^must be an https URL \(http only to localhost in development\)$/,
  internal: /^must not point at a private, loopback or link-local address or localhost in production \(.+ is (?:localhost|an? [a-z-]+ address)\)$/,
  credentials: /^must not contain credentials/,
  'not-a-url': /^must be an absolute https URL$/,
};

describe.each<DeploymentMode>(['development', 'production'])('webhook URL policy in %s', (mode) => {
  test.each(cases)('%s', (_name, { given, want }) => {
    const expected = want[mode];
    const verdict = webhookUrlVerdict(given, mode);
    if (expected === 'allowed') {
      expect(verdict).toEqual({ allowed: true });
      expect(webhookUrlError(given, mode)).toBeUndefined();
    } else {
      expect(verdict.allowed).toBe(false);
      expect(verdict.allowed ? '' : verdict.reason).toMatch(reasons[expected]);
      expect(webhookUrlError(given, mode)).toEqual({ pointer: '/url', keyword: 'url', detail: verdict.allowed ? '' : verdict.reason });
    }
  });
});

describe('the reason names what is refused', () => {
  const named: Array<[string, { given: string; want: string }]> = [
    ['a private address', { given: 'https://192.168.0.1/', want: '(192.168.0.1 is a private address)' }],
    ['a loopback address, normalised', { given: 'https://2130706433/', want: '(127.0.0.1 is a loopback address)' }],
    ['a link-local address', { given: 'https://[fe80::1]/', want: '([fe80::1] is a link-local address)' }],
    ['a unique-local address', { given: 'https://[fd00::1]/', want: '([fd00::1] is a unique-local address)' }],
    ['an IPv4-mapped private address', { given: 'https://[::ffff:10.0.0.1]/', want: '([::ffff:a00:1] is a private address)' }],
    ['an unspecified address', { given: 'https://0.0.0.0/', want: '(0.0.0.0 is an unspecified address)' }],
    ['localhost', { given: 'https://Localhost/', want: '(localhost is localhost)' }],
  ];

  test.each(named)('%s', (_name, { given, want }) => {
    const verdict = webhookUrlVerdict(given, 'production');
    expect(verdict.allowed ? '' : verdict.reason).toContain(want);
  });

  test('a custom pointer is kept (for PATCH bodies or nested fields)', () => {
    expect(webhookUrlError('http://example.com/', 'production', '/endpoint/url')).toMatchObject({ pointer: '/endpoint/url', keyword: 'url' });
  });
});

/**
 * The webhook URL policy (D40), judged in both deployment modes: `https` to public addresses
 * only (development also allows loopback), every literal form of a non-public address refused,
 * names judged by every address they resolve to (a table resolver: no network); `http` only to
 * localhost in development; never credentials.
 */
import { describe, expect, test } from 'vitest';
import { tableResolver } from '../test-support/harness.js';
import {
  checkWebhookUrl,
  refusedAddress,
  webhookUrlError,
  webhookUrlVerdict,
  type DeploymentMode,
  type HostResolver,
  unusableNameReason,
} from './url-policy.js';

type Want = 'allowed' | 'https-only' | 'internal' | 'credentials' | 'not-a-url';

interface Case {
  given: string;
  want: { development: Want; production: Want };
}

const both = (want: Want) => ({ development: want, production: want });
/** Refused as internal in both modes. */
const internal = both('internal');
/** Loopback: allowed in development (a receiver on the developer's machine), refused in production. */
const loopback = { development: 'allowed', production: 'internal' } as const;

const cases: Array<[string, Case]> = [
  // Public https hosts: always allowed.
  ['a public https host', { given: 'https://cafeaurora.example.com/webhooks/pix', want: both('allowed') }],
  ['https with port, path and query', { given: 'https://hooks.example.com:8443/pix/events?source=pix&v=2', want: both('allowed') }],
  ['https with an upper-case scheme and host', { given: 'HTTPS://HOOKS.EXAMPLE.COM/pix', want: both('allowed') }],
  ['a public IPv4 literal', { given: 'https://93.184.216.34/hook', want: both('allowed') }],
  ['a public IPv6 literal', { given: 'https://[2606:2800:220:1::1]/hook', want: both('allowed') }],
  ['a public IPv4 address mapped into IPv6', { given: 'https://[::ffff:93.184.216.34]/', want: both('allowed') }],
  ['a public IPv4 address behind NAT64 (64:ff9b::/96)', { given: 'https://[64:ff9b::5db8:d822]/', want: both('allowed') }],
  ['172.32.0.1, just past 172.16/12', { given: 'https://172.32.0.1/', want: both('allowed') }],
  ['172.15.255.255, just before 172.16/12', { given: 'https://172.15.255.255/', want: both('allowed') }],
  ['100.128.0.1, just past 100.64/10', { given: 'https://100.128.0.1/', want: both('allowed') }],
  ['169.255.0.1, just past 169.254/16', { given: 'https://169.255.0.1/', want: both('allowed') }],
  ['11.0.0.1, just past 10/8', { given: 'https://11.0.0.1/', want: both('allowed') }],
  ['2000::1, the bottom of global unicast 2000::/3', { given: 'https://[2000::1]/', want: both('allowed') }],
  ['3ffe::1, under 3fff::/20 (documentation)', { given: 'https://[3ffe::1]/', want: both('allowed') }],
  [
    'a name under .invalid (never resolves; the conformance suite registers these)',
    { given: 'https://webhooks.conformance.invalid/conf1234', want: both('allowed') },
  ],
  ['a name that only contains "localhost"', { given: 'https://localhost.example.com/', want: both('allowed') }],
  ['a name ending in "localhost" without a dot', { given: 'https://mylocalhost/', want: both('allowed') }],
  ['a name (judged by its addresses, below)', { given: 'https://intranet.corp/', want: both('allowed') }],

  // Private (RFC 1918, shared address space RFC 6598).
  ['10.0.0.1', { given: 'https://10.0.0.1/hook', want: internal }],
  ['10.255.255.255', { given: 'https://10.255.255.255/', want: internal }],
  ['172.16.0.1', { given: 'https://172.16.0.1/', want: internal }],
  ['172.31.255.254', { given: 'https://172.31.255.254/', want: internal }],
  ['192.168.1.10 with a port', { given: 'https://192.168.1.10:8443/hook', want: internal }],
  ['100.64.0.1 (shared address space)', { given: 'https://100.64.0.1/', want: internal }],
  ['100.127.255.254', { given: 'https://100.127.255.254/', want: internal }],
  // Loopback.
  ['127.0.0.1', { given: 'https://127.0.0.1/', want: loopback }],
  ['127.255.0.9', { given: 'https://127.255.0.9/', want: loopback }],
  ['127.0.0.1 as one decimal number', { given: 'https://2130706433/', want: loopback }],
  ['127.0.0.1 in hexadecimal shorthand', { given: 'https://0x7f.1/', want: loopback }],
  ['127.0.0.1 shortened to 127.1', { given: 'https://127.1/', want: loopback }],
  ['127.0.0.1 with a trailing dot', { given: 'https://127.0.0.1./', want: loopback }],
  ['::1', { given: 'https://[::1]/', want: loopback }],
  ['::1 written out in full', { given: 'https://[0:0:0:0:0:0:0:1]:8443/', want: loopback }],
  ['127.0.0.1 mapped into IPv6', { given: 'https://[::ffff:127.0.0.1]/', want: loopback }],
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
  ['localhost', { given: 'https://localhost/', want: loopback }],
  ['LOCALHOST in upper case with a port', { given: 'https://LOCALHOST:8443/hook', want: loopback }],
  ['localhost. (fully qualified)', { given: 'https://localhost./', want: loopback }],
  ['LocalHost.. (case and two trailing dots)', { given: 'https://LocalHost../', want: loopback }],
  ['a subdomain of localhost', { given: 'https://api.localhost/', want: loopback }],
  ['a percent-encoded localhost', { given: 'https://%6cocalhost/', want: loopback }],
  // The forms a security review found accepted: every one refused (the table below has more).
  ['IPv4-compatible ::127.0.0.1', { given: 'https://[::127.0.0.1]/', want: internal }],
  ['IPv4-translated ::ffff:0:7f00:1', { given: 'https://[::ffff:0:7f00:1]/', want: internal }],
  ['NAT64 of 127.0.0.1 (64:ff9b::/96)', { given: 'https://[64:ff9b::127.0.0.1]/', want: internal }],
  ['6to4 of 127.0.0.1', { given: 'https://[2002:7f00:1::1]/', want: internal }],
  ['site-local fec0::1', { given: 'https://[fec0::1]/', want: internal }],
  ['198.18.0.1 (benchmarking)', { given: 'https://198.18.0.1/', want: internal }],
  ['255.255.255.255 (broadcast)', { given: 'https://255.255.255.255/', want: internal }],
  ['203.0.113.10 (documentation)', { given: 'https://203.0.113.10/hook', want: internal }],
  ['2001:db8::10 (documentation)', { given: 'https://[2001:db8::10]/hook', want: internal }],
  ['fe00::1, outside 2000::/3', { given: 'https://[fe00::1]/', want: internal }],

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

/** A resolver a test must not reach. */
const unreachable: HostResolver = async (hostname) => {
  throw new Error(`${hostname} was looked up`);
};

const reasons: Record<Exclude<Want, 'allowed'>, RegExp> = {
  'https-only': /^must be an https URL \(http only to localhost in development\)$/,
  internal:
    /^must point at a public (?:address, not a private, loopback, link-local or other special-purpose one|or loopback address) \(.+ is (?:localhost|(?:an?|the) [A-Za-z0-9-]+ address)\)$/,
  credentials: /^must not contain credentials/,
  'not-a-url': /^must be an absolute https URL$/,
};

describe.each<DeploymentMode>(['development', 'production'])('webhook URL policy in %s', (mode) => {
  test.each(cases)('%s', async (_name, { given, want }) => {
    const expected = want[mode];
    const verdict = webhookUrlVerdict(given, mode);
    if (expected === 'allowed') {
      expect(verdict).toEqual({ allowed: true });
    } else {
      expect(verdict.allowed).toBe(false);
      expect(verdict.allowed ? '' : verdict.reason).toMatch(reasons[expected]);
      // A refusal by spelling is the same with the lookups: no name is resolved for it.
      expect(await webhookUrlError(given, { mode }, unreachable)).toEqual({ pointer: '/url', keyword: 'url', detail: verdict.allowed ? '' : verdict.reason });
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
    ['localhost with trailing dots', { given: 'https://LocalHost../', want: '(localhost is localhost)' }],
    ['a multicast address', { given: 'https://[ff02::1]/', want: '([ff02::1] is a multicast address)' }],
    ['the broadcast address', { given: 'https://255.255.255.255/', want: '(255.255.255.255 is the broadcast address)' }],
    ['a 6to4 address', { given: 'https://[2002:a00:1::1]/', want: '([2002:a00:1::1] is a 6to4 address)' }],
    ['a Teredo address', { given: 'https://[2001::1]/', want: '([2001::1] is a Teredo address)' }],
  ];

  test.each(named)('%s', (_name, { given, want }) => {
    const verdict = webhookUrlVerdict(given, 'production');
    expect(verdict.allowed ? '' : verdict.reason).toContain(want);
  });

  test('a custom pointer is kept (for PATCH bodies or nested fields)', async () => {
    expect(await webhookUrlError('http://example.com/', { mode: 'production' }, unreachable, '/endpoint/url')).toMatchObject({
      pointer: '/endpoint/url',
      keyword: 'url',
    });
  });
});

/**
 * Every non-public block of IANA's special-purpose address registries (RFC 6890), and IPv4
 * inside IPv6, refused in production: a table of addresses, each judged as a literal URL and
 * as the answer of a name's lookup. Public addresses are allowed (judged only, never connected to).
 */
describe('special-purpose addresses (IANA registries, RFC 6890) in production', () => {
  const refused: Array<[string, string]> = [
    ['0.0.0.0/8 "this network"', '0.1.2.3'],
    ['10.0.0.0/8 private', '10.0.0.1'],
    ['100.64.0.0/10 shared', '100.64.0.1'],
    ['127.0.0.0/8 loopback', '127.0.0.1'],
    ['169.254.0.0/16 link-local (cloud metadata)', '169.254.169.254'],
    ['172.16.0.0/12 private', '172.16.0.1'],
    ['192.0.0.0/24 IETF protocol assignments', '192.0.0.8'],
    ['192.0.0.170 NAT64 discovery', '192.0.0.170'],
    ['192.0.2.0/24 documentation', '192.0.2.1'],
    ['192.88.99.0/24 6to4 relay anycast', '192.88.99.1'],
    ['192.168.0.0/16 private', '192.168.1.1'],
    ['198.18.0.0/15 benchmarking', '198.19.255.254'],
    ['198.51.100.0/24 documentation', '198.51.100.7'],
    ['203.0.113.0/24 documentation', '203.0.113.9'],
    ['224.0.0.0/4 multicast', '239.255.255.250'],
    ['240.0.0.0/4 reserved', '240.0.0.1'],
    ['255.255.255.255 broadcast', '255.255.255.255'],
    [':: unspecified', '::'],
    ['::1 loopback', '::1'],
    ['::a.b.c.d IPv4-compatible of 127.0.0.1', '::127.0.0.1'],
    ['::a.b.c.d IPv4-compatible of the public 8.8.8.8 (not read as ::ffff:8.8.8.8)', '::8.8.8.8'],
    ['::a.b.c.d IPv4-compatible of the public 8.8.8.8, in hex', '::808:808'],
    ['::ffff:0:0/96 mapped 127.0.0.1', '::ffff:127.0.0.1'],
    ['::ffff:0:0/96 mapped 10.0.0.1', '::ffff:10.0.0.1'],
    ['::ffff:0:0:0/96 IPv4-translated 127.0.0.1', '::ffff:0:7f00:1'],
    ['64:ff9b::/96 NAT64 of 127.0.0.1', '64:ff9b::7f00:1'],
    ['64:ff9b::/96 NAT64 of 10.0.0.1', '64:ff9b::a00:1'],
    ['64:ff9b:1::/48 local-use NAT64', '64:ff9b:1::a00:1'],
    ['100::/64 discard-only', '100::1'],
    ['2001::/32 Teredo', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['2001:2::/48 benchmarking', '2001:2::1'],
    ['2001:db8::/32 documentation', '2001:db8::1'],
    ['2002::/16 6to4 of 127.0.0.1', '2002:7f00:1::1'],
    ['2002::/16 6to4 of 10.0.0.1', '2002:a00:1::1'],
    ['3fff::/20 documentation', '3fff::1'],
    ['fc00::/7 unique-local', 'fd00::1'],
    ['fe80::/10 link-local', 'fe80::1'],
    ['fec0::/10 site-local', 'fec0::1'],
    ['ff00::/8 multicast', 'ff02::1'],
    ['outside 2000::/3', '4000::1'],
  ];
  const literal = (address: string) => (address.includes(':') ? `https://[${address}]/hook` : `https://${address}/hook`);

  test.each(refused)('%s (%s): refused as a literal and as a resolved name', async (_name, address) => {
    const production = { mode: 'production' } as const;
    expect(refusedAddress(address, production)).toEqual(expect.any(String));
    expect(webhookUrlVerdict(literal(address), production).allowed).toBe(false);
    const byName = await checkWebhookUrl('https://receiver.example/hook', production, tableResolver({ 'receiver.example': [address] }));
    expect(byName).toEqual({ allowed: false, reason: unusableNameReason('receiver.example') });
    // Which internal address it resolved to is not told.
    expect(byName.allowed ? '' : byName.reason).not.toContain(address);
  });

  test.each([
    ['93.184.216.34', '93.184.216.34'],
    ['2606:2800:220:1::1', '2606:2800:220:1::1'],
    ['8.8.8.8', '8.8.8.8'],
  ])('a public address, %s: allowed as a literal and as a resolved name', async (_name, address) => {
    const production = { mode: 'production' } as const;
    expect(refusedAddress(address, production)).toBeUndefined();
    expect(webhookUrlVerdict(literal(address), production)).toEqual({ allowed: true });
    expect(await checkWebhookUrl('https://receiver.example/hook', production, tableResolver({ 'receiver.example': [address] }))).toEqual({ allowed: true });
  });
});

describe('names are judged by every address they resolve to', () => {
  const lookups: string[] = [];
  const table = (entries: Record<string, string[]>): HostResolver => {
    const resolve = tableResolver(entries);
    return (hostname, options) => {
      lookups.push(hostname);
      return resolve(hostname, options);
    };
  };
  const cases: Array<
    [
      string,
      { given: { mode: DeploymentMode; url: string; addresses: Record<string, string[]>; allowedNetworks?: string[] }; want: string | RegExp | 'allowed' },
    ]
  > = [
    ['a public name', { given: { mode: 'production', url: 'https://hooks.example/pix', addresses: { 'hooks.example': ['93.184.216.34'] } }, want: 'allowed' }],
    [
      'a name resolving to 127.0.0.1 in production',
      {
        given: { mode: 'production', url: 'https://receiver.example/pix', addresses: { 'receiver.example': ['127.0.0.1'] } },
        want: unusableNameReason('receiver.example'),
      },
    ],
    [
      'a name with one public and one private address',
      {
        given: { mode: 'production', url: 'https://hooks.example/pix', addresses: { 'hooks.example': ['93.184.216.34', '10.0.0.7'] } },
        want: unusableNameReason('hooks.example'),
      },
    ],
    [
      'a name resolving to the metadata address in development',
      {
        given: { mode: 'development', url: 'https://meta.example/', addresses: { 'meta.example': ['169.254.169.254'] } },
        want: /^must point at a public or loopback address/,
      },
    ],
    [
      'a name resolving to 127.0.0.1 in development',
      { given: { mode: 'development', url: 'https://receiver.example/', addresses: { 'receiver.example': ['127.0.0.1'] } }, want: 'allowed' },
    ],
    [
      'upper case and trailing dots',
      {
        given: { mode: 'production', url: 'https://Receiver.Example../', addresses: { 'receiver.example': ['::1'] } },
        want: unusableNameReason('receiver.example..'),
      },
    ],
    ['a name that does not resolve', { given: { mode: 'production', url: 'https://typo.example/', addresses: {} }, want: unusableNameReason('typo.example') }],
    [
      'a name that does not resolve, in development',
      { given: { mode: 'development', url: 'https://typo.example/', addresses: {} }, want: /^must name a host that resolves in DNS \(typo\.example does not;/ },
    ],
    [
      'http to localhost in development, localhost resolving elsewhere',
      { given: { mode: 'development', url: 'http://localhost:4000/', addresses: { localhost: ['93.184.216.34'] } }, want: /every address is loopback/ },
    ],
    ['http to localhost in development', { given: { mode: 'development', url: 'http://localhost:4000/', addresses: {} }, want: 'allowed' }],
    [
      'a private name inside WEBHOOK_ALLOWED_NETWORKS',
      {
        given: { mode: 'production', url: 'https://erp.internal/', addresses: { 'erp.internal': ['10.20.0.5'] }, allowedNetworks: ['10.20.0.0/16'] },
        want: 'allowed',
      },
    ],
    [
      'a private name outside WEBHOOK_ALLOWED_NETWORKS',
      {
        given: { mode: 'production', url: 'https://erp.internal/', addresses: { 'erp.internal': ['10.21.0.5'] }, allowedNetworks: ['10.20.0.0/16'] },
        want: unusableNameReason('erp.internal'),
      },
    ],
  ];

  test.each(cases)('%s', async (_name, { given, want }) => {
    const verdict = await checkWebhookUrl(given.url, { mode: given.mode, allowedNetworks: given.allowedNetworks ?? [] }, table(given.addresses));
    if (want === 'allowed') expect(verdict).toEqual({ allowed: true });
    else if (typeof want === 'string') expect(verdict).toEqual({ allowed: false, reason: want });
    else expect(verdict.allowed ? '' : verdict.reason).toMatch(want);
  });

  test('a .invalid name is accepted without a lookup (RFC 6761 §6.4: it never resolves)', async () => {
    lookups.length = 0;
    expect(await checkWebhookUrl('https://webhooks.conformance.invalid/run1', { mode: 'production' }, table({}))).toEqual({ allowed: true });
    expect(lookups).toEqual([]);
  });

  const failing: HostResolver = async () => {
    throw Object.assign(new Error('getaddrinfo EAI_AGAIN'), { code: 'EAI_AGAIN' });
  };

  test('a lookup that fails for another reason than "not found", in development: try again', async () => {
    const verdict = await checkWebhookUrl('https://hooks.example/', { mode: 'development' }, failing);
    expect(verdict.allowed ? '' : verdict.reason).toMatch(/try again in a moment/);
  });

  test('in production a non-public name, a name that does not exist and a failed lookup get one answer', async () => {
    const production = { mode: 'production' } as const;
    const internal = await checkWebhookUrl('https://db.corp.example/', production, tableResolver({ 'db.corp.example': ['10.0.0.5'] }));
    const missing = await checkWebhookUrl('https://db.corp.example/', production, tableResolver({}));
    const failed = await checkWebhookUrl('https://db.corp.example/', production, failing);
    expect(internal).toEqual({ allowed: false, reason: unusableNameReason('db.corp.example') });
    expect(missing).toEqual(internal);
    expect(failed).toEqual(internal);
    // Development tells them apart, to help the developer.
    const development = { mode: 'development' } as const;
    const devInternal = await checkWebhookUrl('https://db.corp.example/', development, tableResolver({ 'db.corp.example': ['10.0.0.5'] }));
    const devMissing = await checkWebhookUrl('https://db.corp.example/', development, tableResolver({}));
    expect(devInternal).not.toEqual(devMissing);
  });
});

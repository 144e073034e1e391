import { BlockList, isIPv4 } from 'node:net';
import type { FieldError } from '../../lib/contract/ajv.js';
import type { Config } from '../config.js';

/**
 * Which URLs a webhook may be registered at (D40). The contract's `Url` schema has already
 * checked the shape (`^https?://`, at most 2048 characters); this decides where events may go:
 *
 * - `https` to any host, except that a production deployment refuses hosts that are literal
 *   private (10/8, 172.16/12, 192.168/16, 100.64/10), loopback (127/8, ::1), link-local
 *   (169.254/16, fe80::/10), unique-local (fc00::/7) or unspecified (0/8, ::) addresses, and the
 *   name `localhost` and its subdomains (RFC 6761): the service must not be made to post into
 *   its own network.
 * - `http` only to `localhost`, `127.0.0.1` or `[::1]`, and only in a development deployment,
 *   so a developer can receive events on their own machine.
 * - Never a URL with credentials (`user:password@`): fetch refuses to send to one, so such a
 *   registration could never receive anything; they also disguise the real host
 *   (`https://localhost@10.0.0.1/`).
 *
 * The host is judged as the WHATWG URL parser reads it, which is how the delivery is sent:
 * `https://2130706433/`, `https://0x7f.1/` and `https://127.1/` are all 127.0.0.1, and
 * `[::ffff:10.0.0.1]` is 10.0.0.1. Names are not resolved; only literal addresses are judged.
 */

export type DeploymentMode = Config['mode'];

export type UrlVerdict = { allowed: true } | { allowed: false; reason: string };

/** Hosts `http` may be used with in development, as the URL parser serialises them. */
const httpHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Address ranges a production deployment refuses, each with the words that explain it. */
const refusedRanges: ReadonlyArray<{ what: string; ranges: ReadonlyArray<[address: string, prefix: number, family: 'ipv4' | 'ipv6']> }> = [
  {
    what: 'a private address',
    ranges: [
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'],
    ],
  },
  {
    what: 'a loopback address',
    ranges: [
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ],
  },
  {
    what: 'a link-local address',
    ranges: [
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ],
  },
  { what: 'a unique-local address', ranges: [['fc00::', 7, 'ipv6']] },
  {
    what: 'an unspecified address',
    ranges: [
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ],
  },
];

/** One BlockList per kind; an IPv4 range also matches its IPv4-mapped IPv6 form (::ffff:a.b.c.d). */
const refusedLists = refusedRanges.map(({ what, ranges }) => {
  const list = new BlockList();
  for (const [address, prefix, family] of ranges) list.addSubnet(address, prefix, family);
  return { what, list };
});

const httpsOnly = 'must be an https URL (http only to localhost in development)';

/** Why an address or host name is refused in production, or undefined when it is not. */
function refusedHost(hostname: string): string | undefined {
  // A fully qualified name may end with a dot; `localhost.` is still localhost.
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  if (name === 'localhost' || name.endsWith('.localhost')) return `${hostname} is localhost`;
  const ipv6 = name.startsWith('[') && name.endsWith(']');
  const address = ipv6 ? name.slice(1, -1) : name;
  if (!ipv6 && !isIPv4(address)) return undefined;
  for (const { what, list } of refusedLists) {
    if (list.check(address, ipv6 ? 'ipv6' : 'ipv4')) return `${hostname} is ${what}`;
  }
  return undefined;
}

/** Whether a webhook may be registered at `url` in a deployment of the given mode (D40). */
export function webhookUrlVerdict(url: string, mode: DeploymentMode): UrlVerdict {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { allowed: false, reason: 'must be an absolute https URL' };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { allowed: false, reason: 'must not contain credentials (user:password@); put them in the path or query instead' };
  }
  if (parsed.protocol === 'http:') {
    if (mode === 'development' && httpHosts.has(parsed.hostname)) return { allowed: true };
    return { allowed: false, reason: httpsOnly };
  }
  if (parsed.protocol !== 'https:') return { allowed: false, reason: httpsOnly };
  if (mode === 'production') {
    const refused = refusedHost(parsed.hostname);
    if (refused !== undefined) {
      return { allowed: false, reason: `must not point at a private, loopback or link-local address or localhost in production (${refused})` };
    }
  }
  return { allowed: true };
}

/** The field error of a refused webhook URL (keyword `url`), or undefined when it is allowed. */
export function webhookUrlError(url: string, mode: DeploymentMode, pointer = '/url'): FieldError | undefined {
  const verdict = webhookUrlVerdict(url, mode);
  return verdict.allowed ? undefined : { pointer, detail: verdict.reason, keyword: 'url' };
}

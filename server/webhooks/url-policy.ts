import { lookup, type LookupAddress } from 'node:dns';
import ipaddr from 'ipaddr.js';
import type { FieldError } from '../../lib/contract/ajv.js';
import type { DeploymentMode } from '../deployment-mode.js';

/**
 * Where webhook events may go (D40). The contract's `Url` schema has already checked the shape
 * (`^https?://`, at most 2048 characters); this decides where events may go, by the addresses
 * the host has, not only by how the URL is spelled:
 *
 * - `https`, to a host whose every address is public: not in any non-public block of IANA's
 *   IPv4 and IPv6 special-purpose address registries (RFC 6890) — private, shared, loopback,
 *   link-local, unique-local, site-local, unspecified, multicast, broadcast, reserved,
 *   documentation, benchmarking, 192.0.0.0/24, 240.0.0.0/4 — nor outside IPv6's global unicast
 *   space 2000::/3. An IPv4 address inside IPv6 (mapped `::ffff:a.b.c.d`, NAT64
 *   `64:ff9b::a.b.c.d`) is judged as that IPv4 address; IPv4-compatible (`::a.b.c.d`), 6to4
 *   (2002::/16), Teredo (2001::/32) and local-use NAT64 (64:ff9b:1::/48) addresses are refused
 *   whatever they embed. The blocks come from `ipaddr.js` (its `range()` is `unicast` only for
 *   public addresses), not from a list kept here. The name `localhost` and its subdomains
 *   (RFC 6761 §6.3) are refused by name.
 * - A development deployment also allows loopback (a developer receives events on their own
 *   machine), and `http` to `localhost`, `127.0.0.1` or `[::1]` whose addresses are all loopback.
 * - Never a URL with credentials (`user:password@`): they are never sent, and they disguise the
 *   real host (`https://localhost@10.0.0.1/`).
 * - Networks the operator lists in WEBHOOK_ALLOWED_NETWORKS are allowed (a receiver of their own).
 *
 * A literal address is judged as the WHATWG URL parser reads it, which is how the delivery is
 * sent: `https://2130706433/`, `https://0x7f.1/` and `https://127.1/` are all 127.0.0.1. A name
 * is judged by every address it resolves to (`checkWebhookUrl`, on registration), and again at
 * every delivery, on the addresses the connection is then made to (`checkedLookup`, the
 * transport's connect-time lookup): a name that changes its answer between the two (DNS
 * rebinding) is refused at the connection, never connected to. Names under `.invalid` never
 * resolve (RFC 6761 §6.4): they are accepted without a lookup and answered "not found" at once.
 */

export type { DeploymentMode };

export type UrlVerdict = { allowed: true } | { allowed: false; reason: string };

/** `dns.promises.lookup(name, { all: true })`'s shape; tests pass one that answers from a table. */
export type HostResolver = (hostname: string, options: { all: true }) => Promise<LookupAddress[]>;

/** What a URL is judged against: the deployment's mode and what its operator allows. */
export interface WebhookUrlPolicy {
  mode: DeploymentMode;
  /** CIDR blocks (or single addresses) allowed although not public: WEBHOOK_ALLOWED_NETWORKS. */
  allowedNetworks?: readonly string[];
}

/** The system resolver (getaddrinfo, as a connection would use it), every address of both families. */
export const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) => lookup(hostname, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

/** Longest a lookup at registration may take before the name counts as not resolving. */
const RESOLVE_TIMEOUT_MS = 5_000;

/** Hosts `http` may be used with in development, as the URL parser serialises them. */
const httpHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

const httpsOnly = 'must be an https URL (http only to localhost in development)';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Words for the non-public blocks of `ipaddr.js`; a block without words here is "a special-purpose address". */
const words: Record<string, string> = {
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  linkLocal: 'a link-local address',
  loopback: 'a loopback address',
  translatedLoopback: 'a loopback address',
  private: 'a private address',
  carrierGradeNat: 'a private address',
  uniqueLocal: 'a unique-local address',
  deprecatedSiteLocal: 'a site-local address',
  reserved: 'a reserved address',
  benchmarking: 'a reserved address',
  discard: 'a reserved address',
  rfc6145: 'a reserved address',
  '6to4': 'a 6to4 address',
  teredo: 'a Teredo address',
};

const globalUnicast = ipaddr.IPv6.parseCIDR('2000::/3');
const nat64 = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/** The IPv4 address an IPv6 one stands for, when it is reached through it (mapped, NAT64 64:ff9b::/96). */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (address.match(nat64)) return new ipaddr.IPv4(address.toByteArray().slice(12));
  return undefined;
}

/** Which block a non-public address is in (`loopback`, `private`…), or undefined when it is public. */
function nonPublicBlock(address: Address): string | undefined {
  if (address.kind() === 'ipv4') {
    const range = address.range();
    return range === 'unicast' ? undefined : range;
  }
  const ipv6 = address as ipaddr.IPv6;
  const inside = embeddedIPv4(ipv6);
  if (inside) {
    const block = nonPublicBlock(inside);
    // Loopback through a NAT64 translator is not this machine's loopback: refused in development too.
    return block === 'loopback' && !ipv6.isIPv4MappedAddress() ? 'translatedLoopback' : block;
  }
  const range = ipv6.range();
  if (range !== 'unicast') return range;
  // Only 2000::/3 is global unicast (IANA IPv6 address space); the rest (::a.b.c.d among it) is reserved.
  return ipv6.match(globalUnicast) ? undefined : 'reserved';
}

function parseNetworks(networks: readonly string[] | undefined): Array<[Address, number]> {
  return (networks ?? []).map((network) =>
    network.includes('/') ? ipaddr.parseCIDR(network) : ipaddr.parseCIDR(`${network}/${ipaddr.parse(network).kind() === 'ipv4' ? 32 : 128}`),
  );
}

/** Whether a WEBHOOK_ALLOWED_NETWORKS entry is a CIDR block or an address ipaddr.js reads. */
export function isNetwork(value: string): boolean {
  // IPv4 only in its four-part decimal form: an operator's `1` or `0x7f.1` is more likely a slip than 0.0.0.1.
  if (!value.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(value.split('/')[0] ?? '')) return false;
  try {
    parseNetworks([value]);
    return true;
  } catch {
    return false;
  }
}

function inNetworks(address: Address, networks: Array<[Address, number]>): boolean {
  const plain = address.kind() === 'ipv6' ? (embeddedIPv4(address as ipaddr.IPv6) ?? address) : address;
  return networks.some(([network, bits]) => [address, plain].some((candidate) => candidate.kind() === network.kind() && candidate.match(network, bits)));
}

/**
 * An address as the WHATWG URL parser reads it, so that a resolved address is judged exactly as
 * the same literal in a URL: `ipaddr.js` alone reads the IPv4-compatible `::8.8.8.8` as the mapped
 * `::ffff:8.8.8.8` (public), where the URL parser reads `::808:808` (refused). A zone (`%eth0`),
 * which a lookup may carry and a URL may not, is left out of the judgement.
 */
function parseAddress(address: string): Address | undefined {
  try {
    if (!address.includes(':')) return ipaddr.parse(address);
    const bare = address.split('%')[0] ?? '';
    return ipaddr.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
  } catch {
    return undefined;
  }
}

/**
 * Why a deployment refuses to connect to `address` (in words: "a loopback address"), or
 * undefined when it may. `loopbackOnly`: only loopback will do (`http` in development).
 */
export function refusedAddress(address: string, policy: WebhookUrlPolicy, loopbackOnly = false): string | undefined {
  const parsed = parseAddress(address);
  if (parsed === undefined) return 'not an IP address';
  if (inNetworks(parsed, parseNetworks(policy.allowedNetworks))) return undefined;
  const block = nonPublicBlock(parsed);
  if (block === 'loopback' && policy.mode === 'development') return undefined;
  if (loopbackOnly) return block === undefined ? 'a public address' : (words[block] ?? 'a special-purpose address');
  return block === undefined ? undefined : (words[block] ?? 'a special-purpose address');
}

/** The host as a name, lower-case (the URL parser's work) and without trailing dots; an IP literal without brackets. */
function hostOf(url: URL): { name: string; literal: boolean } {
  const host = url.hostname;
  if (host.startsWith('[')) return { name: host.slice(1, -1), literal: true };
  const name = host.replace(/\.+$/, '');
  return { name, literal: ipaddr.IPv4.isValidFourPartDecimal(name) };
}

const isLocalhost = (name: string) => name === 'localhost' || name.endsWith('.localhost');
const isInvalid = (name: string) => name === 'invalid' || name.endsWith('.invalid');

/** A refusal by spelling: the reason for the caller (`refused`) and the words for a delivery record (`short`, never the host). */
type Refusal = { refused: string; short: string };

/** The URL's reason to be refused before anything is resolved: scheme, credentials, a literal address, `localhost`. */
function spellingVerdict(url: string, policy: WebhookUrlPolicy): Refusal | { parsed: URL; loopbackOnly: boolean } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { refused: 'must be an absolute https URL', short: 'the URL is not an absolute https URL' };
  }
  if (parsed.username !== '' || parsed.password !== '') {
    return { refused: 'must not contain credentials (user:password@); put them in the path or query instead', short: 'the URL contains credentials' };
  }
  const { name, literal } = hostOf(parsed);
  const http = parsed.protocol === 'http:';
  const notHttps = { refused: httpsOnly, short: 'the URL is not https (http only to localhost in development)' };
  if (http && !(policy.mode === 'development' && (httpHosts.has(parsed.hostname) || name === 'localhost'))) return notHttps;
  if (!http && parsed.protocol !== 'https:') return notHttps;
  if (policy.mode === 'production' && isLocalhost(name)) {
    return { refused: publicOnly(policy, `${name} is localhost`), short: "the URL's host is localhost" };
  }
  if (literal) {
    const refused = refusedAddress(name, policy, http);
    if (refused !== undefined) return { refused: publicOnly(policy, `${parsed.hostname} is ${refused}`), short: `the URL's host is ${refused}` };
  }
  return { parsed, loopbackOnly: http };
}

function publicOnly(policy: WebhookUrlPolicy, why: string): string {
  return policy.mode === 'production'
    ? `must point at a public address, not a private, loopback, link-local or other special-purpose one (${why})`
    : `must point at a public or loopback address (${why})`;
}

/**
 * Whether a webhook may be registered at `url`, judged by its spelling only: the scheme,
 * credentials, a literal address, `localhost`. A name passes here; `checkWebhookUrl` resolves it.
 */
export function webhookUrlVerdict(url: string, policy: WebhookUrlPolicy | DeploymentMode): UrlVerdict {
  const verdict = spellingVerdict(url, typeof policy === 'string' ? { mode: policy } : policy);
  return 'refused' in verdict ? { allowed: false, reason: verdict.refused } : { allowed: true };
}

/**
 * What a delivery may connect to (the transport's first step, before any lookup): the parsed
 * URL, or why it is refused in words for the deliveries list that never repeat the host.
 */
export function deliveryTarget(url: string, policy: WebhookUrlPolicy): { refused: string } | { url: URL; loopbackOnly: boolean } {
  const verdict = spellingVerdict(url, policy);
  return 'refused' in verdict ? { refused: `${verdict.short}; refused by policy` } : { url: verdict.parsed, loopbackOnly: verdict.loopbackOnly };
}

/** A lookup error with the code of a name that does not resolve (RFC 6761 §6.4 for `.invalid`). */
function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}

/** Refused by the policy at connection time: the name resolved to an address the deployment does not send to. */
export class RefusedByPolicy extends Error {
  readonly code = 'ERR_WEBHOOK_REFUSED_BY_POLICY';
}

/**
 * Resolves `hostname` and judges every address it has; the addresses, when all may be
 * connected to. Rejects with `RefusedByPolicy` (one refused address is enough: which one a
 * connection would use is not ours to choose) or with the resolver's error.
 */
export async function resolveChecked(hostname: string, policy: WebhookUrlPolicy, resolve: HostResolver, loopbackOnly = false): Promise<LookupAddress[]> {
  const name = hostname.toLowerCase().replace(/\.+$/, '');
  if (isInvalid(name)) throw notFound(hostname);
  if (policy.mode === 'production' && isLocalhost(name)) throw new RefusedByPolicy("the URL's host is localhost; refused by policy");
  const addresses = await resolve(hostname, { all: true });
  if (addresses.length === 0) throw notFound(hostname);
  if (addresses.some(({ address }) => refusedAddress(address, policy, loopbackOnly) !== undefined)) {
    throw new RefusedByPolicy(
      loopbackOnly
        ? "the URL's host resolves to an address that is not loopback; refused by policy"
        : "the URL's host resolves to a non-public address; refused by policy",
    );
  }
  return addresses;
}

/**
 * The one reason a production deployment gives for a name it will not register, whatever the
 * lookup said (a non-public address, no such name, a failed lookup): which internal names exist
 * is not told to a caller (D40). The name is the caller's own, so it may be repeated.
 */
export function unusableNameReason(host: string): string {
  return `must name a host that resolves in DNS to public addresses only (${host} does not: check the spelling, that its A and AAAA records are public, and try again in a moment if its DNS was slow)`;
}

/**
 * Whether a webhook may be registered at `url` (D40): the spelling, then every address of its
 * host. The reason never names the address a name resolved to: that would tell a caller what
 * is inside the deployment's network. In production one reason stands for every refusal by
 * lookup (`unusableNameReason`); in development the reasons differ, to help the developer.
 */
export async function checkWebhookUrl(url: string, policy: WebhookUrlPolicy, resolve: HostResolver): Promise<UrlVerdict> {
  const verdict = spellingVerdict(url, policy);
  if ('refused' in verdict) return { allowed: false, reason: verdict.refused };
  const { name, literal } = hostOf(verdict.parsed);
  if (literal || isInvalid(name)) return { allowed: true };
  const host = verdict.parsed.hostname;
  try {
    await withTimeout(resolveChecked(host, policy, resolve, verdict.loopbackOnly), RESOLVE_TIMEOUT_MS);
    return { allowed: true };
  } catch (error) {
    if (policy.mode === 'production') return { allowed: false, reason: unusableNameReason(host) };
    if (error instanceof RefusedByPolicy) {
      return {
        allowed: false,
        reason: verdict.loopbackOnly
          ? `must name a host whose every address is loopback when it is http (${host} resolves to another)`
          : publicOnly(policy, `${host} resolves to a non-public address`),
      };
    }
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOTFOUND' || code === 'ENODATA') {
      return { allowed: false, reason: `must name a host that resolves in DNS (${host} does not; check the spelling, or use a name with an A or AAAA record)` };
    }
    return { allowed: false, reason: `must name a host that resolves in DNS (looking up ${host} failed; try again in a moment)` };
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error('lookup timed out'), { code: 'ETIMEOUT' })), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The field error of a refused webhook URL (keyword `url`), or undefined when it is allowed. */
export async function webhookUrlError(url: string, policy: WebhookUrlPolicy, resolve: HostResolver, pointer = '/url'): Promise<FieldError | undefined> {
  const verdict = await checkWebhookUrl(url, policy, resolve);
  return verdict.allowed ? undefined : { pointer, detail: verdict.reason, keyword: 'url' };
}

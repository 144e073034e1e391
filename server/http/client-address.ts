import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Who sent a request without a valid API key, for its quota (D11): the address of the socket it
 * came on, or, behind a trusted reverse proxy (`TRUSTED_PROXY_HEADER`), the address that proxy
 * appended to the configured header (its right-most entry: the entries before it are whatever
 * the client sent, and a client may send anything). Without that setting no forwarded header is
 * read, so a client cannot pick its own address.
 *
 * An IPv6 address counts by its /64, the block one subscriber is given (RFC 6177): a client
 * holding a /64 can send from 2^64 addresses. An IPv4-mapped IPv6 address counts as its IPv4 one.
 */
export function clientAddress(c: Context, trustedProxyHeader: string | undefined): string {
  if (trustedProxyHeader !== undefined) {
    const forwarded = lastForwarded(c.req.header(trustedProxyHeader), trustedProxyHeader === 'forwarded');
    if (forwarded !== undefined) return quotaAddress(forwarded);
  }
  const socket = socketAddress(c);
  return socket === undefined ? 'unknown' : quotaAddress(socket);
}

/** The socket's remote address, when the request came through the Node server (not an in-process `app.request`). */
function socketAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/**
 * The right-most address of a forwarding header: `X-Forwarded-For`-like lists (`client, proxy1`),
 * or RFC 7239 `Forwarded` (`for=…` of its last element). Undefined when it holds no address.
 */
export function lastForwarded(value: string | undefined, rfc7239: boolean): string | undefined {
  if (value === undefined) return undefined;
  const last = value.slice(value.lastIndexOf(',') + 1).trim();
  const entry = rfc7239 ? /(?:^|;)\s*for\s*=\s*("?)([^";]*)\1/i.exec(last)?.[2] : last;
  return entry === undefined ? undefined : bareAddress(entry.trim());
}

/** An address as written in a header, without brackets or port; undefined if it is not an IP address. */
function bareAddress(text: string): string | undefined {
  if (isIP(text)) return text;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)?.[1];
  if (bracketed !== undefined && isIP(bracketed) === 6) return bracketed;
  const withPort = /^([\d.]+):\d+$/.exec(text)?.[1];
  return withPort !== undefined && isIP(withPort) === 4 ? withPort : undefined;
}

/** The unit one quota counts: an IPv4 address, or the /64 of an IPv6 one (parsed by ipaddr.js, as the webhook URL policy does). */
export function quotaAddress(address: string): string {
  const unzoned = address.replace(/%.*$/, '');
  if (!ipaddr.isValid(unzoned)) return unzoned;
  const parsed = ipaddr.parse(unzoned);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().toString();
  return `${ipv6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}

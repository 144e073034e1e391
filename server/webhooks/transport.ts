/**
 * How a webhook delivery reaches its receiver (D40, D14): the URL policy judged again at every
 * delivery, by the deployment that sends it, and a connection made only to an address that was
 * checked.
 *
 * 1. The URL's spelling is judged by this deployment's policy (a registration made by a
 *    development run is refused by a production one): scheme, credentials, literal addresses.
 * 2. The request's connect-time `lookup` resolves the name once and judges every address it
 *    answers; the socket connects to those addresses and no others (a lookup made for a check
 *    and a second one made for the connection could answer differently: DNS rebinding). A
 *    refusal is an error before any socket is opened.
 * 3. No connection pool: each delivery opens its own connection (`agent: false`, so
 *    `Connection: close`) and closes it once the status line and headers are in; the body is
 *    never read. A request that times out (or is aborted by a shutdown) destroys its socket:
 *    a receiver that stopped answering is never sent the next event on the same connection, and
 *    no idle connection is left open to it. The lookup and the TCP connection must be done within
 *    WEBHOOK_CONNECT_TIMEOUT_MS (5 s), and the request's deadline (WEBHOOK_TIMEOUT_MS) covers the
 *    lookup, the connection, TLS and the answer alike.
 *
 * Redirects are never followed: a 3xx is the receiver's answer (and a failure).
 */
import type { LookupAddress } from 'node:dns';
import { type IncomingMessage, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { deliveryTarget, RefusedByPolicy, resolveChecked, systemResolver, type HostResolver, type WebhookUrlPolicy } from './url-policy.js';

/** What the worker sends: one signed `POST`. `fetch` has this shape too (tests may pass it instead). */
export interface WebhookRequestInit {
  method: 'POST';
  body: string;
  headers: Record<string, string>;
  redirect: 'manual';
  signal: AbortSignal;
}

export type WebhookSend = (url: string, init: WebhookRequestInit) => Promise<Response>;

export interface WebhookTransportOptions extends WebhookUrlPolicy {
  /** Where names are looked up; the system resolver unless a test gives a table. */
  resolve?: HostResolver;
  /** How long the lookup and the TCP connection may take (D14: 5 s); the request's signal bounds the rest. */
  connectTimeoutMs?: number;
}

/** A status `Response` cannot carry (outside 200–599): a failure in words, no status recorded. */
export class InvalidStatus extends Error {}

/** The lookup a connection uses: every address judged, the checked ones handed to the socket. */
export function checkedLookup(policy: WebhookUrlPolicy, resolve: HostResolver, loopbackOnly: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, policy, resolve, loopbackOnly).then(
      (addresses) => {
        const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const usable: LookupAddress[] = family === 0 ? addresses : addresses.filter((address) => address.family === family);
        if (options.all) {
          callback(null, usable);
          return;
        }
        const first = usable[0];
        if (first) callback(null, first.address, first.family);
        else callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** The deliveries' sender: the policy of this deployment, the checked lookup, one connection per request. */
export function createWebhookTransport(options: WebhookTransportOptions): WebhookSend {
  const policy: WebhookUrlPolicy = { mode: options.mode, ...(options.allowedNetworks ? { allowedNetworks: options.allowedNetworks } : {}) };
  const resolve = options.resolve ?? systemResolver;
  return (url, init) =>
    new Promise<Response>((fulfil, reject) => {
      const target = deliveryTarget(url, policy);
      if ('refused' in target) {
        reject(new RefusedByPolicy(target.refused));
        return;
      }
      const { signal } = init;
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(
        target.url,
        {
          method: init.method,
          headers: { ...init.headers, 'content-length': String(Buffer.byteLength(init.body)) },
          agent: false,
          lookup: checkedLookup(policy, resolve, target.loopbackOnly),
        },
        (response) => {
          // Only the status and headers matter: the body is not read, the connection is closed.
          const answer = toResponse(response);
          response.on('error', () => undefined);
          response.destroy();
          request.destroy();
          signal.removeEventListener('abort', onAbort);
          if (answer instanceof Error) reject(answer);
          else fulfil(answer);
        },
      );
      // A receiver that does not accept the connection in time holds its slot no longer (D14).
      const connecting =
        options.connectTimeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              request.destroy(Object.assign(new Error(`no connection within ${options.connectTimeoutMs} ms`), { code: 'ETIMEDOUT' }));
            }, options.connectTimeoutMs);
      request.once('socket', (socket) => {
        if (!socket.connecting) clearTimeout(connecting);
        else socket.once('connect', () => clearTimeout(connecting));
      });
      request.once('close', () => clearTimeout(connecting));
      // A timeout or a shutdown destroys the request and its socket, as fetch rejects: with the signal's reason.
      const onAbort = () => {
        request.destroy();
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      request.on('error', (error) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? signal.reason : error);
      });
      request.end(init.body);
    });
}

function toResponse(response: IncomingMessage): Response | InvalidStatus {
  const status = response.statusCode ?? 0;
  if (status < 200 || status > 599) return new InvalidStatus(`invalid status code ${status}`);
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      try {
        headers.append(name, one);
      } catch {
        // A header fetch would not accept either is dropped; only Retry-After is read.
      }
    }
  }
  return new Response(null, { status, headers });
}

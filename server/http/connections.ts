import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { quotaAddress } from './client-address.js';
import { ProblemError, problemResponse, type ProblemKind } from './problems.js';
import { rawProblemResponse } from './request-limits.js';
import type { RateLimitFields } from '../deps.js';

/**
 * How long a connection the server has refused stays open after its answer was written: long
 * enough for the client to read the answer (destroying at once could reset the connection before
 * the client reads it), short enough that a client keeping its side open holds nothing (issue 34).
 */
export const REFUSAL_LINGER_MS = 1_000;

/** Ends the socket with `answer` and destroys it once written and lingered, whatever the client does with its side. */
export function endAndDestroy(socket: Duplex, answer?: string): void {
  if (socket.destroyed) return;
  const timer = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  if (socket.writable) socket.end(answer);
  else socket.destroy();
}

/** What Node refused before the app saw a request, by its error code. */
export function clientErrorKind(error: NodeJS.ErrnoException): ProblemKind {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'headersTooLarge';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return 'requestTimeout';
    default:
      return 'malformedRequest';
  }
}

/**
 * Answers a request Node refused (its `clientError`: a header section past its limit, a timeout,
 * bytes that are not HTTP) with a problem, then destroys the connection: it is never left
 * half-closed for as long as the client holds its side. The answer spends the anonymous quota of
 * the client's address and carries its RateLimit fields like the app's answers (D11), when
 * `spend` is given (the app is up and no proxy stands between: behind one, the socket's address
 * is the proxy's, and the request was not read far enough to trust a forwarded one).
 */
export async function refuseClientError(
  error: NodeJS.ErrnoException,
  socket: Duplex,
  spend?: (address: string) => Promise<RateLimitFields | undefined>,
): Promise<void> {
  if (!socket.writable) return void socket.destroy();
  const address = (socket as Partial<Socket>).remoteAddress;
  let fields: RateLimitFields | undefined;
  if (spend !== undefined && address !== undefined) {
    try {
      fields = await spend(quotaAddress(address));
    } catch {
      // The quota could not be counted (the store is closing): the answer goes without its fields.
    }
  }
  endAndDestroy(socket, rawProblemResponse(clientErrorKind(error), fields));
}

/**
 * Bounds the connections open at once from one client address (its /64 for IPv6, as the quota
 * counts): one address cannot hold every descriptor of the process. A connection past the bound is
 * answered a 429 problem at its first request (`refusal`), and destroyed after
 * `REFUSAL_LINGER_MS` whatever it sends. `limit` 0: no bound.
 */
export class ConnectionsPerAddress {
  private readonly open = new Map<string, number>();
  private readonly refused = new WeakSet<object>();

  constructor(private readonly limit: number) {}

  /** Connections open now from `address` (as counted). */
  count(address: string): number {
    return this.open.get(quotaAddress(address)) ?? 0;
  }

  /** Counts a new connection until it closes; past the bound, marks it refused and destroys it soon. */
  accept(socket: Socket): void {
    if (this.limit === 0 || socket.remoteAddress === undefined) return;
    const address = quotaAddress(socket.remoteAddress);
    const count = (this.open.get(address) ?? 0) + 1;
    this.open.set(address, count);
    socket.once('close', () => {
      const left = (this.open.get(address) ?? 1) - 1;
      if (left === 0) this.open.delete(address);
      else this.open.set(address, left);
    });
    if (count > this.limit) {
      this.refused.add(socket);
      const timer = setTimeout(() => socket.destroy(), REFUSAL_LINGER_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    }
  }

  /** The answer to a request on a refused connection (then closed), or undefined for a counted one. */
  refusal(socket: object | undefined, pathname: () => string): Response | undefined {
    if (socket === undefined || !this.refused.has(socket)) return undefined;
    const error = new ProblemError(
      'rateLimited',
      `This address already has ${this.limit} connections open to this server; close some (or reuse them: keep-alive) and retry after 1 second.`,
      { headers: { 'Retry-After': '1', Connection: 'close' } },
    );
    return problemResponse(error, pathname());
  }
}

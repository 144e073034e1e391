/**
 * HTTP spoken over raw TCP, for what `fetch` never sends or never shows: a request without
 * Content-Length or Transfer-Encoding (curl's `-X POST` without `-d`), over-long or unfinished
 * requests, and how the server ends the connection.
 */
import { connect } from 'node:net';
import { WAIT_MS } from './processes.js';

/** What came back on a raw connection. */
export interface Exchange {
  /** The bytes received, as text. */
  raw: string;
  status: number | undefined;
  headers: Record<string, string>;
  body: string;
  /** How the connection ended: the server closed it (FIN), reset it, or it was still open when we gave up. */
  ended: 'closed' | 'reset' | 'open';
  /** Milliseconds from the first byte sent to the end. */
  ms: number;
}

/**
 * Writes `request` on a new connection, then waits for the server to close it or for `waitMs`.
 * With `hangUpAfterMs`, the client itself destroys the connection after that long; with
 * `localAddress` (a loopback address), the connection comes from it.
 */
export function exchange(port: number, request: string, options: { waitMs?: number; hangUpAfterMs?: number; localAddress?: string } = {}): Promise<Exchange> {
  const waitMs = options.waitMs ?? WAIT_MS;
  return new Promise((resolve) => {
    // From another loopback address (127.0.0.0/8), when asked: another client, as the server sees it.
    const socket = connect({ port, host: '127.0.0.1', ...(options.localAddress ? { localAddress: options.localAddress } : {}) });
    const started = performance.now();
    const chunks: Buffer[] = [];
    let ended: Exchange['ended'] | undefined;
    const finish = (how: Exchange['ended']) => {
      ended ??= how;
      clearTimeout(giveUp);
      clearTimeout(hangUp);
      socket.destroy();
      const raw = Buffer.concat(chunks).toString('latin1');
      const split = raw.indexOf('\r\n\r\n');
      const head = split === -1 ? raw : raw.slice(0, split);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
      const headers = Object.fromEntries(
        lines
          .filter((line) => line.includes(':'))
          .map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      resolve({
        raw,
        status: status === undefined ? undefined : Number(status),
        headers,
        body: split === -1 ? '' : raw.slice(split + 4),
        ended: ended!,
        ms: performance.now() - started,
      });
    };
    const giveUp = setTimeout(() => finish('open'), waitMs);
    const hangUp = options.hangUpAfterMs === undefined ? undefined : setTimeout(() => finish('open'), options.hangUpAfterMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish('closed'));
    socket.on('error', (error: NodeJS.ErrnoException) => finish(error.code === 'ECONNRESET' || error.code === 'EPIPE' ? 'reset' : 'closed'));
    socket.on('close', () => finish('closed'));
    socket.write(request);
  });
}

/** A complete request with `Connection: close`, written as curl writes it: a body only when one is given. */
export function rawRequest(method: string, target: string, headers: Record<string, string> = {}, body?: string): string {
  const lines = Object.entries({ Host: '127.0.0.1', Connection: 'close', ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('')}\r\n${body ?? ''}`;
}

/** A complete GET with `Connection: close`. */
export function get(target: string, headers: Record<string, string> = {}): string {
  return rawRequest('GET', target, headers);
}

/**
 * The suite's own webhook endpoint (`--webhook-receiver`): a plain HTTP server that keeps every
 * delivery to its path as it arrived (headers, raw body, time), so the checks can verify the
 * signature over the exact bytes. It answers the first delivery `500` (the retry check needs
 * one refused attempt) and every later one `204`.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Delivery {
  /** Lower-cased header names, as sent. */
  headers: Record<string, string>;
  body: string;
  /** When it arrived (ms since the epoch), for the freshness of `webhook-timestamp`. */
  receivedAt: number;
  /** What the receiver answered. */
  answered: number;
}

export interface Receiver {
  /** The URL to register: `http://HOST:PORT/<path>`. */
  url: string;
  deliveries: Delivery[];
  close(): Promise<void>;
}

/** Bodies above this are cut off: an event is a charge, a few kilobytes. */
const MAX_BODY_BYTES = 1_000_000;

const wildcard = new Set(['0.0.0.0', '[::]']);

export async function startReceiver(address: { host: string; port: number }, path: string): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== path) {
        res.writeHead(404).end();
        return;
      }
      const answered = deliveries.length === 0 ? 500 : 204;
      deliveries.push({ headers: flatten(req.headers), body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now(), answered });
      res.writeHead(answered).end();
    });
  });
  const listenHost = address.host.replace(/^\[(.*)\]$/, '$1');
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, listenHost, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound = server.address();
  const port = typeof bound === 'object' && bound ? bound.port : address.port;
  // A receiver on every interface is reached by the target on this machine's loopback address.
  const host = wildcard.has(address.host) ? '127.0.0.1' : address.host;
  return {
    url: `http://${host}:${port}${path}`,
    deliveries,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function flatten(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

export interface Listening {
  /** `http://127.0.0.1:<port>` */
  base: string;
  port: number;
  close(): Promise<void>;
}

/** An app served on a free loopback port by @hono/node-server, as `npm start` serves it. */
export async function serveOnLoopback(fetch: (request: Request) => Response | Promise<Response>): Promise<Listening> {
  const http = serve({ fetch, port: 0, hostname: '127.0.0.1' });
  if (!http.listening) await new Promise((resolve) => http.once('listening', resolve));
  const { port } = http.address() as AddressInfo;
  return { base: `http://127.0.0.1:${port}`, port, close: () => new Promise<void>((resolve) => http.close(() => resolve())) };
}

/**
 * A webhook receiver on a real socket, for the process tests: one path per registration, each
 * delivery verified with that registration's secret (Standard Webhooks, through the same library
 * an integrator uses), kept in arrival order with its webhook-id.
 */
import { createServer, type Server } from 'node:http';
import { Webhook } from 'standardwebhooks';
import type { components } from '../../generated/openapi.js';
import { WAIT_MS } from './processes.js';

type WebhookEvent = components['schemas']['WebhookEvent'];

export interface Received {
  path: string;
  id: string;
  event: WebhookEvent | undefined;
  verifyError?: string;
}

/** The receiver's endpoints: one path per registration, each verified with its own secret. */
export async function startReceiver(port: number, secrets: ReadonlyMap<string, string>): Promise<{ received: Received[]; close: () => Promise<void> }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '';
      const body = Buffer.concat(chunks).toString('utf8');
      const entry: Received = { path, id: String(req.headers['webhook-id']), event: undefined };
      try {
        entry.event = new Webhook(secrets.get(path) ?? 'whsec_AAAA').verify(body, req.headers as Record<string, string>) as WebhookEvent;
      } catch (error) {
        entry.verifyError = (error as Error).message;
      }
      received.push(entry);
      res.writeHead(entry.event ? 204 : 400).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What an integrator processes: verified events of one endpoint, each webhook-id once, in arrival order. */
export function processed(received: readonly Received[], path: string): Array<{ id: string; event: WebhookEvent }> {
  const seen = new Set<string>();
  const out: Array<{ id: string; event: WebhookEvent }> = [];
  for (const r of received) {
    if (r.path !== path || !r.event || seen.has(r.id)) continue;
    seen.add(r.id);
    out.push({ id: r.id, event: r.event });
  }
  return out;
}

export async function waitFor(what: string, condition: () => boolean | Promise<boolean>, ms = WAIT_MS): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

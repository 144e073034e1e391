/**
 * The reference server's data for the scenarios, created through its HTTP API with the
 * development key (so it goes through the same validation and store as any client's data):
 * 1,000 clients for GET /client, 3 products for the order, one charge for GET /charge/{id}.
 */
import { randomUUID } from 'node:crypto';
import { benchProducts, clientBody, paymentLinkBody, productBody } from './bodies.js';
import { HarnessError } from './harness-error.js';

export const CLIENT_COUNT = 1_000;
const SEED_CONCURRENCY = 16;

export interface SeededData {
  chargeId: string;
  productIds: string[];
}

async function post(baseUrl: string, apiKey: string, path: string, body: unknown, extraHeaders: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'X-API-KEY': apiKey, 'Content-Type': 'application/json', ...extraHeaders },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) throw new HarnessError(`seeding: POST ${path} answered ${response.status}: ${text.slice(0, 1_500)}`);
  return JSON.parse(text) as unknown;
}

/** Runs `task(0..count-1)` with at most `concurrency` in flight. */
async function inPool(count: number, concurrency: number, task: (index: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export async function seedReference(baseUrl: string, apiKey: string): Promise<SeededData> {
  await inPool(CLIENT_COUNT, SEED_CONCURRENCY, (index) => post(baseUrl, apiKey, '/client', clientBody(index)));
  const productIds: string[] = [];
  for (const product of benchProducts) {
    const created = (await post(baseUrl, apiKey, '/product', productBody(product))) as { id: string };
    productIds.push(created.id);
  }
  const link = (await post(baseUrl, apiKey, '/charge/payment-link', paymentLinkBody(productIds), { 'Idempotency-Key': randomUUID() })) as {
    data: { id: string };
  };
  return { chargeId: link.data.id, productIds };
}

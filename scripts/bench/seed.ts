import { randomUUID } from 'node:crypto';
import { benchProducts, clientBody, paymentLinkBody, productBody } from './bodies.js';
import { HarnessError } from './harness-error.js';
import { clientPageSize } from './scenarios.js';
import { createCompany, type ReferenceDatabase } from './targets.js';

const SEED_CONCURRENCY = 16;

export interface SeededData {
  chargeId: string;
  productIds: string[];
}

/**
 * Whether a fetch failed on a kept-alive connection the server had just closed (its idle time-out,
 * D34, can fall between two seeding requests on a loaded machine): the request was never read, so
 * it is sent again on a new connection.
 */
function closedBeforeSent(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } }).cause?.code;
  return error instanceof TypeError && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET');
}

async function post(baseUrl: string, apiKey: string, path: string, body: unknown, extraHeaders: Record<string, string> = {}): Promise<unknown> {
  const send = () =>
    fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'X-API-KEY': apiKey, 'Content-Type': 'application/json', ...extraHeaders },
      body: JSON.stringify(body),
    });
  const response = await send().catch((error: unknown) => {
    if (closedBeforeSent(error)) return send();
    throw error;
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

/** The three products of the write scenarios, in `benchProducts`' order: their ids. */
export async function seedProducts(baseUrl: string, apiKey: string): Promise<string[]> {
  const productIds: string[] = [];
  for (const product of benchProducts) {
    const created = (await post(baseUrl, apiKey, '/product', productBody(product))) as { id: string };
    productIds.push(created.id);
  }
  return productIds;
}

export async function seedReference(baseUrl: string, apiKey: string): Promise<SeededData> {
  const productIds = await seedProducts(baseUrl, apiKey);
  const link = (await post(baseUrl, apiKey, '/charge/payment-link', paymentLinkBody(productIds), { 'Idempotency-Key': randomUUID() })) as {
    data: { id: string };
  };
  return { chargeId: link.data.id, productIds };
}

/** The `rel="next"` target of an answer's `Link` header (RFC 8288), as a path. */
function nextPage(response: Response): string | undefined {
  const link = response.headers.get('link');
  const target = link && /<([^>]+)>\s*;\s*rel="?next"?/.exec(link)?.[1];
  if (!target) return undefined;
  const url = new URL(target, 'http://base.invalid');
  return `${url.pathname}${url.search}`;
}

/**
 * A company with `count` clients, and the path of the last page of its list paged by
 * `clientPageSize` (found by following the `Link: rel="next"` of every page, which also checks
 * that the pages hold every client once).
 */
export async function seedClientCompany(baseUrl: string, database: ReferenceDatabase, count: number): Promise<{ apiKey: string; lastPagePath: string }> {
  const apiKey = createCompany(database, `Bench ${count} clients`);
  await inPool(count, SEED_CONCURRENCY, (index) => post(baseUrl, apiKey, '/client', clientBody(index)));
  let path: string | undefined = `/client?limit=${clientPageSize}`;
  let lastPagePath = path;
  let seen = 0;
  while (path) {
    const response = await fetch(`${baseUrl}${path}`, { headers: { 'X-API-KEY': apiKey } });
    const page = (await response.json()) as unknown[];
    if (response.status !== 200 || !Array.isArray(page)) throw new HarnessError(`seeding: GET ${path} answered ${response.status}`);
    seen += page.length;
    lastPagePath = path;
    path = nextPage(response);
  }
  if (seen !== count) throw new HarnessError(`seeding: the pages of GET /client held ${seen} clients, not ${count}`);
  return { apiKey, lastPagePath };
}

/**
 * Scale-out (issue 9): two server processes (`npm start`'s compiled server) on one PostgreSQL
 * database, requests split between them. Everything happens in `beforeAll`, recorded; the tests
 * assert on the record. Skipped, with a notice, without TEST_DATABASE_URL.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { testDatabaseUrl } from '../test-support/engines.js';
import { freePort, killAll, listening, startBuiltServer, useChildProcesses, type ChildVars, type Running, printedKey } from '../test-support/processes.js';

if (!testDatabaseUrl) console.warn('NOTICE: two-instance PostgreSQL test skipped: set TEST_DATABASE_URL=postgres://root@127.0.0.1:5432/test');

interface Answer {
  status: number;
  json: unknown;
  instance: string;
}

interface Record {
  idempotent: Answer[];
  chargesInDatabase: number;
  orders: Answer[];
  deliveries: Array<{ webhookId: string; type: string; chargeId: string }>;
  eventsInOutbox: number;
  attemptsPerEvent: number[];
  readAfterWrite: Array<{ what: string; found: boolean }>;
}

const folder = useChildProcesses('pix-scale-out-');
let database: string | undefined;
let receiver: Server | undefined;
let record: Record;

function adminClient(): pg.Client {
  return new pg.Client({ connectionString: testDatabaseUrl });
}

/** A URL of the test server naming another database. */
function urlOf(name: string): string {
  const url = new URL(testDatabaseUrl!);
  url.pathname = `/${name}`;
  return url.toString();
}

async function call(base: string, apiKey: string, method: string, path: string, body?: unknown, headers: { [name: string]: string } = {}): Promise<Answer> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'X-API-KEY': apiKey, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text ? (JSON.parse(text) as unknown) : undefined, instance: base };
}

async function start(vars: ChildVars): Promise<{ running: Running; base: string }> {
  const port = await freePort();
  const running = startBuiltServer({ ...vars, PORT: String(port) });
  await listening(running);
  return { running, base: `http://127.0.0.1:${port}` };
}

describe.skipIf(!testDatabaseUrl)('two instances on one PostgreSQL database', () => {
  beforeAll(async () => {
    void folder;
    database = `scale_out_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    const admin = adminClient();
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    await admin.end();

    // Webhook receiver: counts every delivery by its webhook-id.
    const received: Array<{ id: string; body: string }> = [];
    receiver = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        received.push({ id: String(req.headers['webhook-id']), body });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver!.listen(0, '127.0.0.1', resolve));
    const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;

    const vars: ChildVars = { DATABASE_URL: urlOf(database), DATABASE_POOL_SIZE: '8', RATE_LIMIT_REQUESTS: '0', LOG_LEVEL: 'info', WEBHOOK_POLL_MS: '20' };
    // The first instance migrates the empty database and prints the development key; then the second.
    const a = await start(vars);
    const apiKey = printedKey(a.running);
    const b = await start(vars);
    const bases = [a.base, b.base];
    const on = (i: number) => bases[i % 2]!;

    // 1. 64 concurrent payment links with one Idempotency-Key, alternating instances.
    const key = randomUUID();
    const idempotent = await Promise.all(
      Array.from({ length: 64 }, (_, i) => call(on(i), apiKey, 'POST', '/charge/payment-link', { total: 4200, devMode: true }, { 'Idempotency-Key': key })),
    );

    // 2. Orders: 40 concurrent, alternating.
    const orders = await Promise.all(Array.from({ length: 40 }, (_, i) => call(on(i), apiKey, 'POST', '/order', { subtotal: 10, total: 10 })));

    // 3. Read after write, across instances.
    const readAfterWrite: Record['readAfterWrite'] = [];
    const client = await call(a.base, apiKey, 'POST', '/client', {
      name: 'Maria Silva Souza',
      status: 'ACTIVE',
      cpfCnpj: '52998224725',
      email: 'maria@example.com',
      phone: '11987654321',
    });
    const clientId = (client.json as { data?: { id?: string }; id?: string }).data?.id ?? (client.json as { id?: string }).id;
    const listed = await call(b.base, apiKey, 'GET', '/client');
    readAfterWrite.push({ what: 'a client created on A, listed on B', found: (listed.json as Array<{ id: string }>).some((c) => c.id === clientId) });
    const product = await call(b.base, apiKey, 'POST', '/product', {
      name: 'Café 250 g',
      description: 'Torra média',
      price: 39.9,
      sku: 'CAFE-250',
      displayId: '250',
    });
    const productId = (product.json as { id: string }).id;
    const ordered = await call(a.base, apiKey, 'POST', '/order', { subtotal: 39.9, total: 39.9, items: [{ productId, quantity: 1 }] });
    readAfterWrite.push({ what: 'a product created on B, ordered on A', found: ordered.status === 201 });
    const link = await call(a.base, apiKey, 'POST', '/charge/payment-link', { total: 990 });
    const linkId = (link.json as { data: { id: string } }).data.id;
    readAfterWrite.push({ what: 'a charge created on A, read on B', found: (await call(b.base, apiKey, 'GET', `/charge/${linkId}`)).status === 200 });

    // 4. Webhooks: one registration, 12 development charges paid through alternating instances;
    //    both instances' workers poll every 20 ms.
    const hook = await call(a.base, apiKey, 'POST', '/webhook', {
      url: hookUrl,
      name: 'Loja',
      events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received'],
    });
    if (hook.status !== 201) throw new Error(`POST /webhook: ${hook.status} ${JSON.stringify(hook.json)}`);
    const webhookId = (hook.json as { id?: string; data?: { id: string } }).id ?? (hook.json as { data: { id: string } }).data.id;
    const paid = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const created = await call(on(i), apiKey, 'POST', '/charge/payment-link', { total: 1000 + i, devMode: true });
        const id = (created.json as { data: { id: string } }).data.id;
        const moved = await call(on(i + 1), apiKey, 'POST', `/charge/${id}/simulate-payment`, {});
        if (moved.status !== 200) throw new Error(`simulate-payment: ${moved.status}`);
        return id;
      }),
    );
    const expected = paid.length * 4;
    const deadline = Date.now() + 20_000;
    while (new Set(received.map((r) => r.id)).size < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    // A little longer, so that a second delivery of an event would have arrived too.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const db = new pg.Client({ connectionString: urlOf(database) });
    await db.connect();
    try {
      const charges = await db.query<{ n: string }>(`SELECT COUNT(*) AS n FROM charges WHERE (doc::jsonb ->> 'total')::int = 4200`);
      const events = await db.query<{ n: string }>('SELECT COUNT(*) AS n FROM webhook_events');
      const attempts = await db.query<{ n: string }>('SELECT COUNT(*) AS n FROM webhook_attempts GROUP BY event_id');
      record = {
        idempotent,
        chargesInDatabase: Number(charges.rows[0]!.n),
        orders,
        deliveries: received.map((r) => {
          const body = JSON.parse(r.body) as { type: string; data: { id: string } };
          return { webhookId: r.id, type: body.type, chargeId: body.data.id };
        }),
        eventsInOutbox: Number(events.rows[0]!.n),
        attemptsPerEvent: attempts.rows.map((row) => Number(row.n)),
        readAfterWrite,
      };
      void webhookId;
    } finally {
      await db.end();
    }
  });

  afterAll(async () => {
    receiver?.close();
    await killAll();
    if (database === undefined) return;
    const admin = adminClient();
    await admin.connect();
    try {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    } finally {
      await admin.end();
    }
  });

  test('64 concurrent payment links with one Idempotency-Key, split across both instances, create exactly one charge', () => {
    const statuses = new Set(record.idempotent.map((a) => a.status));
    expect(
      [...statuses].every((s) => s === 201 || s === 409),
      `statuses ${[...statuses].join(', ')}`,
    ).toBe(true);
    const ids = new Set(record.idempotent.filter((a) => a.status === 201).map((a) => (a.json as { data: { id: string } }).data.id));
    expect(ids.size).toBe(1);
    expect(record.chargesInDatabase).toBe(1);
    // Both instances answered some of them.
    expect(new Set(record.idempotent.map((a) => a.instance)).size).toBe(2);
  });

  test('order numbers from both instances are unique and run 1, 2, 3… without a gap', () => {
    expect(record.orders.map((o) => o.status)).toEqual(record.orders.map(() => 201));
    // Zero-padded decimal strings ('000001'), numbered per company.
    const numbers = record.orders.map((o) => Number((o.json as { orderNumber: string }).orderNumber)).sort((x, y) => x - y);
    expect(numbers).toEqual(Array.from({ length: record.orders.length }, (_, i) => i + 1));
  });

  test('a record written through one instance is read through the other at once', () => {
    expect(record.readAfterWrite).toEqual(record.readAfterWrite.map(({ what }) => ({ what, found: true })));
  });

  test('each webhook event is delivered once, by one instance, though both workers poll', () => {
    const perEvent = new Map<string, number>();
    for (const d of record.deliveries) perEvent.set(d.webhookId, (perEvent.get(d.webhookId) ?? 0) + 1);
    expect(record.eventsInOutbox).toBe(12 * 4);
    expect(perEvent.size).toBe(record.eventsInOutbox);
    expect([...perEvent.values()].filter((n) => n !== 1)).toEqual([]);
    expect(record.attemptsPerEvent.filter((n) => n !== 1)).toEqual([]);
    const types = new Map<string, string[]>();
    for (const d of record.deliveries) types.set(d.chargeId, [...(types.get(d.chargeId) ?? []), d.type]);
    for (const list of types.values()) expect(list.sort()).toEqual(['charge.paid', 'charge.pending', 'charge.processing', 'charge.received']);
  });
});

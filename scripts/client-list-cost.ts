/**
 * What GET /client costs as a company's client list grows (issue 17, D48), measured in-process:
 * the reference app and a bare Hono app sending the same bytes from memory, both through
 * `app.request()`, so the figures are the server's work without the network. At 1,000, 10,000
 * and 100,000 stored clients: the median time of the whole list, and of a page of 100 near the
 * end of the list (keyset, `after` the 150th client from the end).
 *
 *   npx tsx scripts/client-list-cost.ts [--postgres postgres://…] [--sizes 1000,10000,100000]
 *
 * A measurement to read, not a test: nothing here passes or fails.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Hono } from 'hono';
import pg from 'pg';
import pino from 'pino';
import { withCheckDigits } from '../lib/brazil/tax-id.js';
import { createApp } from '../server/app.js';
import { createCompanyWithKey, createDeps } from '../server/bootstrap.js';
import { loadConfig } from '../server/config.js';
import { cursorOf } from '../server/domain/client-pages.js';
import { buildClient } from '../server/domain/clients.js';
import { PgStore } from '../server/store/postgres/pg-store.js';
import { SqliteStore } from '../server/store/sqlite/sqlite-store.js';
import type { ClientDoc, Store } from '../server/store/types.js';

const { values } = parseArgs({ options: { postgres: { type: 'string' }, sizes: { type: 'string', default: '1000,10000,100000' } } });
const sizes = values.sizes.split(',').map(Number);

async function openStore(): Promise<{ store: Store; engine: string; close: () => Promise<void> }> {
  if (values.postgres) {
    const schema = `client_list_cost_${randomBytes(4).toString('hex')}`;
    const store = await PgStore.open({ connectionString: values.postgres, schema, poolSize: 4 });
    return {
      store,
      engine: 'PostgreSQL',
      close: async () => {
        await store.close();
        const admin = new pg.Client({ connectionString: values.postgres });
        await admin.connect();
        await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await admin.end();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'client-list-cost-'));
  const store = new SqliteStore(join(dir, 'payments.db'));
  return {
    store,
    engine: 'SQLite (file, WAL)',
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The client numbered `n`, as a payment link's customer makes it: every other one with an address. */
function clientNumber(companyId: string, n: number, start: number): ClientDoc {
  const address =
    n % 2 === 0 ? { postalCode: '01310100', address: 'Avenida Paulista', district: 'Bela Vista', number: String(n % 2000), line1: 'Apto 42' } : {};
  const input = {
    name: `Cliente de Teste ${n}`,
    taxId: withCheckDigits(String(100_000_000 + n)),
    email: `cliente${n}@example.com`,
    phone: '11987654321',
    ...address,
  };
  // A few per millisecond, so ties of createdAt are broken by id as in a busy sandbox.
  return buildClient(companyId, input, new Date(start + Math.floor(n / 3)));
}

/** Median milliseconds of `rounds` runs of `once` (after a few unmeasured ones). */
async function median(rounds: number, once: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 3; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = process.hrtime.bigint();
    await once();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

/** A bare Hono app answering with `body` as the reference server does: the limit of an answer of these bytes. */
function bareHono(body: string): Hono {
  return new Hono().get('/client', (c) => c.body(body, 200, { 'Content-Type': 'application/json' }));
}

const { store, engine, close } = await openStore();
try {
  const config = { ...loadConfig({}), logLevel: 'silent' as const, rateLimitRequests: 0 };
  const app = createApp(createDeps(config, { store, logger: pino({ level: 'silent' }) }));
  const { companyId, apiKey } = await createCompanyWithKey(store, { name: 'Café Aurora Ltda' });
  const headers = { 'X-API-KEY': apiKey };
  const get = async (target: string) => {
    const response = await app.request(target, { headers });
    if (response.status !== 200) throw new Error(`${target}: ${response.status} ${await response.text()}`);
    return response;
  };
  const start = Date.UTC(2026, 0, 1);

  console.log(`GET /client, in-process, ${engine}; Node ${process.version}; median ms per answer (body read)\n`);
  console.log('| clients | list bytes | whole list: reference | bare Hono | ratio | page of 100 near the end: reference | bare Hono | ratio |');
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|');
  let stored = 0;
  for (const size of sizes) {
    // One group commit per 1,000 (SQLite), or one statement each on a pool of four (PostgreSQL).
    for (; stored < size; ) {
      const batch = Array.from({ length: Math.min(1000, size - stored) }, (_, i) => clientNumber(companyId, stored + i, start));
      await Promise.all(batch.map((c) => store.insertClient(c)));
      stored += batch.length;
    }
    const whole = await (await get('/client')).text();
    const list = JSON.parse(whole) as ClientDoc[];
    if (list.length !== size) throw new Error(`listed ${list.length}, stored ${size}`);
    const from = list[size - 150]!;
    const pageTarget = `/client?limit=100&after=${cursorOf({ createdAt: from.createdAt, id: from.id })}`;
    const pageResponse = await get(pageTarget);
    const page = await pageResponse.text();
    if ((JSON.parse(page) as ClientDoc[]).length !== 100 || !pageResponse.headers.get('link'))
      throw new Error('the page near the end is not a full page with a next link');

    const rounds = Math.max(10, Math.round(200_000 / size));
    const wholeRef = await median(rounds, async () => (await get('/client')).text());
    const bareForWhole = bareHono(whole);
    const wholeBare = await median(rounds, async () => (await bareForWhole.request('/client')).text());
    const bareForPage = bareHono(page);
    const pageRef = await median(500, async () => (await get(pageTarget)).text());
    const pageBare = await median(500, async () => (await bareForPage.request('/client')).text());
    console.log(
      `| ${size.toLocaleString('en')} | ${Buffer.byteLength(whole).toLocaleString('en')} | ${wholeRef.toFixed(2)} | ${wholeBare.toFixed(2)} | ${(wholeRef / wholeBare).toFixed(2)} | ${pageRef.toFixed(3)} | ${pageBare.toFixed(3)} | ${(pageRef / pageBare).toFixed(2)} |`,
    );
  }
} finally {
  await close();
}

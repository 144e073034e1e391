/**
 * Every curl sample of the docs, run the way a reader runs it: the `x-codeSamples` source of the
 * docs spec (what `npm run docs` puts into the page), pasted into bash as it is, with the real
 * curl, against a reference server listening on a port. The shell has only what the docs' "Code
 * samples" section asks a reader to export: the addresses, a company's API key, and the ids of
 * that company's records, made fresh for each sample. Each must answer the status the contract
 * documents for success. Skipped with a NOTICE where bash or curl is missing.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { type JsonObject, listOperations, loadBundledContract } from '../../lib/contract/bundled.js';
import { idVariables, successStatus } from '../../scripts/docs/code-samples.js';
import { decorateForDocs } from '../../scripts/docs/decorate.js';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { runBash } from '../support/bash.js';
import { serveOnLoopback, type Listening } from '../../server/test-support/loopback.js';

const missing = ['bash', 'curl'].filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);
if (missing.length > 0) console.warn(`NOTICE: ${missing.join(', ')} not installed: the docs' curl samples are not run (apt-get install ${missing.join(' ')}).`);

const contract = loadBundledContract();
const decisions = readFileSync(fileURLToPath(new URL('../../openapi/DECISIONS.md', import.meta.url)), 'utf8');
const docsSpec = decorateForDocs(contract, decisions);

/** The curl sample of each operation, as the docs page carries it. */
const samples = listOperations(docsSpec).map((op) => {
  const sample = (op.operation['x-codeSamples'] as Array<{ label: string; source: string }> | undefined)?.find((s) => s.label === 'curl');
  return { operationId: op.operationId, op, source: sample?.source ?? '' };
});

let server: TestServer;
let http: Listening | undefined;
let base = '';

/** Fresh records of the test's company, one of each kind a sample can name, by the variable that names it. */
async function freshRecords(): Promise<Record<string, string>> {
  const { api } = server;
  // R$ 64,95: the price the contract's order and payment-link examples add up with.
  const product = await api.POST('/product', {
    body: {
      name: 'Café especial 1 kg',
      description: 'Também por assinatura.',
      price: 64.95,
      sku: 'CAFE-1KG',
      displayId: '1001',
      isSubscription: true,
      defaultPeriod: 'MONTHLY',
    },
  });
  const client = await api.POST('/client', {
    body: { name: 'Maria Silva Souza', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'maria@example.com', phone: '11987654321' },
  });
  const productId = product.data?.id ?? '';
  const clientId = client.data?.id ?? '';
  const charge = await api.POST('/charge/payment-link', { body: { total: 5000, devMode: true } });
  const webhook = await api.POST('/webhook', { body: { url: 'https://shop.example.com/hooks/pix', name: 'Shop', events: ['charge.paid'] } });
  const subscription = await api.POST('/subscription', { body: { productId, clientId, period: 'MONTHLY', price: 89.9, trialDays: 0 } });
  const order = await api.POST('/order', { body: { subtotal: 64.95, total: 64.95, clientId, items: [{ productId, quantity: 1 }] } });
  const records = {
    PRODUCT_ID: productId,
    CLIENT_ID: clientId,
    CHARGE_ID: charge.data?.data.id ?? '',
    WEBHOOK_ID: webhook.data?.id ?? '',
    SUBSCRIPTION_ID: subscription.data?.id ?? '',
    ORDER_ID: order.data?.id ?? '',
  };
  const errors = [product, client, charge, webhook, subscription, order].map((answer) => answer.error).filter(Boolean);
  expect(errors, 'the records a sample names are made').toEqual([]);
  for (const [name, id] of Object.entries(records)) expect(id, `${name}: the record was not created`).not.toBe('');
  return records;
}

describe.skipIf(missing.length > 0)("the docs' curl samples, run by bash with curl against the reference server", () => {
  beforeAll(async () => {
    server = await createTestServer();
    http = await serveOnLoopback(server.app.fetch);
    base = http.base;
  });

  // Each sample gets records of its own; its webhook registrations go with it (a company has at most 16, D49).
  afterEach(async () => {
    for (const { id } of (await server.api.GET('/webhook')).data ?? []) await server.api.DELETE('/webhook/{id}', { params: { path: { id } } });
  });

  afterAll(async () => {
    await http?.close();
    await server?.close();
  });

  test('there is one sample for every operation of the contract, none skipped', () => {
    expect(samples.map((s) => s.operationId).sort()).toEqual(
      listOperations(contract)
        .map((op) => op.operationId)
        .sort(),
    );
    for (const { operationId, source } of samples) expect(source, operationId).toMatch(/^curl /);
  });

  test('the test sets every id variable the samples use', async () => {
    const used = new Set(samples.flatMap(({ source }) => [...source.matchAll(/\$([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!)));
    const known = new Set(idVariables(contract).map((id) => id.variable));
    const ids = [...used].filter((name) => known.has(name)).sort();
    expect(ids.length).toBeGreaterThan(0);
    expect(Object.keys(await freshRecords()).sort()).toEqual(expect.arrayContaining(ids));
  });

  test.each(samples.map((s) => [s.operationId, s] as const))('%s answers its documented success status', async (operationId, { op, source }) => {
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      BASE_URL: base,
      BASE_URL_ALT: base,
      API_KEY: server.apiKey,
      ...(await freshRecords()),
    };
    const { code, stdout, stderr } = await runBash(source, { env, timeoutMs: 20_000 });
    expect(code, `${operationId}:\n${source}\n${stdout}\n${stderr}`).toBe(0);
    const status = Number(/^HTTP\/[\d.]+ (\d{3})/.exec(stdout)?.[1]);
    expect(status, `${operationId}:\n${source}\n${stdout}`).toBe(successStatus(op));
  });
});

test('the samples are taken from the docs spec, which holds one per operation', () => {
  expect(samples.every((s) => s.source !== '')).toBe(true);
  expect((docsSpec.info as JsonObject).description).toContain('## Code samples');
});

/**
 * D43 the way a developer meets it: `npm start` (the compiled server) on an empty database makes
 * the development company; `npm run keys -- create … --pix-key` adds a company with a key of its
 * own while the server runs; charges are made and read over HTTP, and every `brCode` is read by an
 * independent BR Code parser (pix-utils' `parsePix`, which also checks the TLV and the CRC).
 * A sandbox code must name a key no one can register; a live code of a company with a key, that key.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { hasError, isStaticPix, parsePix, type PixStaticObject } from 'pix-utils';
import { describe, expect, test } from 'vitest';
import { freePort, listening, startBuiltServer, startKeys, useChildProcesses, WAIT_MS, within, type Running, printedKey } from './test-support/processes.js';

const UNREGISTRABLE = 'sandbox@pix.invalid';
const TEST_CODE_NOTICE = 'Código de teste:';

const folder = useChildProcesses('pix-sandbox-brcode-test-');

interface Deployment {
  port: number;
  databasePath: string;
  /** The development company's key, printed on the first start. */
  devKey: string;
}

async function startDeployment(name: string): Promise<Deployment & { server: Running }> {
  const databasePath = join(folder(), name, 'payments.db');
  const port = await freePort();
  const server = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(port), LOG_LEVEL: 'info' });
  await listening(server);
  return { server, port, databasePath, devKey: printedKey(server) };
}

/** `npm run keys -- create …` on the deployment's database; the API key of the new company. */
async function createCompany(deployment: Deployment, args: string[]): Promise<{ apiKey: string; stdout: string }> {
  const running = startKeys(['create', ...args, '--json'], { DATABASE_PATH: deployment.databasePath });
  const exit = await within(running.exited, 'keys create to exit');
  expect(exit.code, running.stderr()).toBe(0);
  return { apiKey: (JSON.parse(running.stdout()) as { apiKey: string }).apiKey, stdout: running.stdout() };
}

async function call(port: number, path: string, apiKey: string | undefined, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = {};
  if (apiKey !== undefined) headers['X-API-KEY'] = apiKey;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`http://127.0.0.1:${port}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(WAIT_MS),
  });
}

interface ChargeRead {
  id: string;
  brCode: string;
  url: string;
}

/** A charge made through POST /charge/payment-link and read back with GET /charge/{id}. */
async function charge(port: number, apiKey: string, total: number, devMode: boolean): Promise<ChargeRead> {
  const created = await call(port, '/charge/payment-link', apiKey, { total, devMode });
  expect(created.status).toBe(201);
  const { id } = ((await created.json()) as { data: { id: string } }).data;
  const read = await call(port, `/charge/${id}`, apiKey);
  expect(read.status).toBe(200);
  return ((await read.json()) as { data: ChargeRead }).data;
}

/** The BR Code as pix-utils reads it; a code it refuses (bad TLV, bad CRC) fails here. */
function parsed(brCode: string): PixStaticObject {
  const pix = parsePix(brCode);
  if (hasError(pix)) throw new Error(`pix-utils refuses ${brCode}: ${pix.message}`);
  // A key and an amount in the code itself, no payload URL: what pix-utils calls a static code.
  if (!isStaticPix(pix)) throw new Error(`pix-utils reads ${brCode} as a ${pix.type} code, not one with a key and an amount`);
  return pix;
}

/** The HTML of the charge's payment page, fetched as a payer's browser would (no API key). */
async function payPage(port: number, id: string): Promise<string> {
  const page = await call(port, `/pay/${id}`, undefined);
  expect(page.status).toBe(200);
  return page.text();
}

describe('the BR Code of a sandbox charge cannot be paid (D43)', () => {
  test('the development company: development and live charges name the unregistrable key, in valid BR Codes; the page says so', async () => {
    const deployment = await startDeployment('dev-company');
    const cases: Array<[string, { given: { total: number; devMode: boolean } }]> = [
      ['a development charge', { given: { total: 12990, devMode: true } }],
      ['a live charge (the company has no Pix key)', { given: { total: 500, devMode: false } }],
    ];
    for (const [name, { given }] of cases) {
      const read = await charge(deployment.port, deployment.devKey, given.total, given.devMode);
      const pix = parsed(read.brCode);
      expect(pix.pixKey, name).toBe(UNREGISTRABLE);
      expect(pix.transactionAmount, name).toBe(given.total / 100);
      expect(pix.txid, name).toBe(read.id.slice('char_'.length));
      const html = await payPage(deployment.port, read.id);
      expect(html, name).toContain(
        `<p class="test-code" id="test-code" role="note"><strong>${TEST_CODE_NOTICE}</strong> não pague este QR Code com dinheiro real`,
      );
    }
  });

  let deployments = 0;
  const keyCases: Array<[string, { given: string; want: string }]> = [
    ['a random key (EVP)', { given: randomUUID(), want: '' }],
    ['an e-mail key, written in mixed case', { given: 'Financeiro@Padaria-Pao-Quente.com.br', want: 'financeiro@padaria-pao-quente.com.br' }],
  ];
  test.each(keyCases)(
    'a company created with --pix-key (%s): its live charges name the key, its development charges never do',
    async (_name, { given, want }) => {
      const expectedKey = want || given;
      const deployment = await startDeployment(`with-key-${++deployments}`);
      const { apiKey } = await createCompany(deployment, ['--company', 'Padaria Pão Quente', '--tax-id', '11222333000181', '--pix-key', given]);

      const live = await charge(deployment.port, apiKey, 4590, false);
      const livePix = parsed(live.brCode);
      expect(livePix.pixKey).toBe(expectedKey);
      expect(livePix.transactionAmount).toBe(45.9);
      expect(await payPage(deployment.port, live.id)).not.toContain(TEST_CODE_NOTICE);

      for (const total of [500, 4590, 99_999_999_999]) {
        const sandbox = await charge(deployment.port, apiKey, total, true);
        const pix = parsed(sandbox.brCode);
        expect(pix.pixKey).toBe(UNREGISTRABLE);
        expect(pix.transactionAmount).toBe(total / 100);
        expect(sandbox.brCode).not.toContain(expectedKey);
        expect(sandbox.brCode).not.toContain('11222333000181');
      }
    },
  );
});

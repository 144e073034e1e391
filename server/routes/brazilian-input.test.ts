/**
 * Brazilian input as integrators send it (D46), the way they send it: `curl` against the
 * server `npm start` runs (the compiled dist/server/main.mjs) on a file database. A client
 * and a payment-link customer written with the usual punctuation are created and listed as
 * digits; a punctuated number with a wrong check digit is still 422 naming the field.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { freePort, listening, startBuiltServer, useChildProcesses, WAIT_MS, printedKey } from '../test-support/processes.js';

const run = promisify(execFile);
const folder = useChildProcesses('pix-br-input-test-');

interface CurlAnswer {
  status: number;
  body: unknown;
}

/** `curl` as an integrator types it: a JSON body, the key header, the status written after the body. */
async function curl(port: number, apiKey: string, method: string, path: string, body?: unknown): Promise<CurlAnswer> {
  const args = ['-sS', '--max-time', String(WAIT_MS / 1000), '-X', method, '-H', `X-API-KEY: ${apiKey}`, '-w', '\n%{http_code}'];
  if (body !== undefined) args.push('-H', 'Content-Type: application/json', '--data-binary', JSON.stringify(body));
  const { stdout } = await run('curl', [...args, `http://127.0.0.1:${port}${path}`]);
  const cut = stdout.lastIndexOf('\n');
  return { status: Number(stdout.slice(cut + 1)), body: JSON.parse(stdout.slice(0, cut)) };
}

test('punctuated tax numbers, phones and CEPs are accepted and come back as digits; wrong check digits are still 422', async () => {
  const port = await freePort();
  const server = startBuiltServer({ DATABASE_PATH: join(folder(), 'payments.db'), PORT: String(port), LOG_LEVEL: 'info', RATE_LIMIT_REQUESTS: '0' });
  await listening(server);
  const apiKey = printedKey(server);

  const client = await curl(port, apiKey!, 'POST', '/client', {
    name: 'Maria Silva Souza',
    status: 'ACTIVE',
    cpfCnpj: '529.982.247-25',
    email: 'maria.souza@example.com',
    phone: '+55 11 98765-4321',
    postalCode: '01310-100',
  });
  expect(client.status, JSON.stringify(client.body)).toBe(201);
  expect(client.body).toMatchObject({ cpfCnpj: '52998224725', phone: '11987654321' });

  const link = await curl(port, apiKey!, 'POST', '/charge/payment-link', {
    total: 5000,
    devMode: true,
    customer: { name: 'Padaria Bom Dia Ltda', taxId: '11.222.333/0001-81', email: 'compras@padaria.example.com', phone: '(21) 3456-7890' },
  });
  expect(link.status, JSON.stringify(link.body)).toBe(201);

  const listed = await curl(port, apiKey!, 'GET', '/client');
  expect(listed.status).toBe(200);
  expect(listed.body).toEqual([
    expect.objectContaining({ taxId: '52998224725', phone: '11987654321', postalCode: '01310100' }),
    expect.objectContaining({ taxId: '11222333000181', phone: '2134567890' }),
  ]);

  const wrong = await curl(port, apiKey!, 'POST', '/client', {
    name: 'Maria Silva Souza',
    status: 'ACTIVE',
    cpfCnpj: '529.982.247-26',
    email: 'maria.souza@example.com',
    phone: '(11) 98765-4321',
  });
  expect(wrong.status).toBe(422);
  expect(wrong.body).toMatchObject({ type: '/problems/validation-error', errors: [expect.objectContaining({ pointer: '/cpfCnpj', keyword: 'format' })] });
  expect((wrong.body as { detail: string }).detail).toMatch(/^cpfCnpj must be a CPF/);
  expect((await curl(port, apiKey!, 'GET', '/client')).body).toHaveLength(2);
});

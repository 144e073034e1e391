/**
 * Secrets stay secret (D04, D14, D40): the API keys and the webhook signing secrets never
 * appear in a log line (the logger captures every line at level `trace`, with no redaction, so
 * a secret must never reach it at all), in an error or any other response (a webhook secret
 * only in the 201 of the `POST /webhook` that created it; an API key in no response), nor in a
 * webhook delivery; the database file (and its WAL) holds no API key or its secret part, only
 * its SHA-256; the webhook secret is stored (deliveries are signed with it) in the `secret`
 * column of its `webhooks` row and nowhere else.
 *
 * One realistic session runs first, against the app built as `npm start` builds it, on a
 * temporary database file: webhooks registered, read, renamed and delivered to a local
 * receiver that verifies signatures; charges created (with an Idempotency-Key, replayed),
 * paid, expired and refused; requests with wrong keys; validation errors; malformed JSON
 * carrying a key; store errors thrown while authenticating, registering and paying.
 */
import Database from 'better-sqlite3';
import { everyRow } from '../test-support/sqlite-rows.js';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { createApp } from '../app.js';
import { createCompanyWithKey, createDeps } from '../bootstrap.js';
import { loadConfig, type Config } from '../config.js';
import type { Deps } from '../deps.js';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { clientBody, productBody } from '../test-support/fixtures.js';
import { startWebhookWorker } from '../webhooks/worker.js';

type WebhookWithSecret = components['schemas']['WebhookWithSecret'];
type PaymentLinkResponse = components['schemas']['PaymentLinkResponse'];

/** A response of the session, as the client saw it. */
interface Seen {
  label: string;
  status: number;
  contentType: string;
  /** Every header, `name: value`, one per line. */
  headers: string;
  body: string;
}

/** A request the webhook receiver got. */
interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether its signature verified with the secret of the webhook it was sent for. */
  verified: boolean;
}

const logLines: string[] = [];
const seen: Seen[] = [];
const deliveries: Delivery[] = [];
/** Every secret of the session, by name. */
const secrets: Record<string, string> = {};

let folder: string;
let databasePath: string;
let store: SqliteStore;
let deps: Deps;
let app: ReturnType<typeof createApp>;
let receiver: Server;
/** Secrets of the registrations, by the path their URL points at on the receiver. */
const signingSecrets = new Map<string, string>();
/** Bytes of every database file (main, -wal, -shm), read while the store was open and after it was closed. */
const files: Array<{ when: string; name: string; bytes: Buffer }> = [];
/** Every cell of every table, read while the store was open. */
let cells: Array<{ table: string; column: string; row: string; text: string }> = [];

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The secret part of `sk_<keyId>_<secret>`. */
function secretPart(apiKey: string): string {
  const match = /^sk_[a-z0-9]{24}_([A-Za-z0-9_-]{43})$/.exec(apiKey);
  if (!match) throw new Error(`not an API key: ${apiKey}`);
  return match[1]!;
}

function keyId(apiKey: string): string {
  return apiKey.slice(3, 27);
}

/** Sends a request to the app and records what came back. */
async function send(
  label: string,
  path: string,
  init: { method?: string; apiKey?: string | null; body?: unknown; text?: string; headers?: Record<string, string> } = {},
): Promise<Seen> {
  const headers = new Headers(init.headers);
  if (init.apiKey) headers.set('X-API-KEY', init.apiKey);
  const body = init.text ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  if (body !== undefined && !headers.has('content-type')) headers.set('Content-Type', 'application/json');
  const response = await app.request(path, { method: init.method ?? 'GET', headers, ...(body !== undefined ? { body } : {}) });
  const answer: Seen = {
    label,
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    headers: [...response.headers].map(([name, value]) => `${name}: ${value}`).join('\n'),
    body: await response.text(),
  };
  seen.push(answer);
  return answer;
}

function json<T>(answer: Seen): T {
  return JSON.parse(answer.body) as T;
}

async function startReceiver(): Promise<string> {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const secret = signingSecrets.get(new URL(req.url ?? '/', 'http://receiver').pathname);
      let verified = false;
      try {
        if (secret) verified = new Webhook(secret).verify(body, req.headers as Record<string, string>) !== undefined;
      } catch {
        verified = false;
      }
      deliveries.push({ headers: req.headers, body, verified });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}

/** A better-sqlite3 error, as the store would throw it. */
function storeError(message: string, code: string): Error {
  return new Database.SqliteError(message, code);
}

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'pix-secrets-'));
  databasePath = join(folder, 'payments.db');
  const config: Config = { ...loadConfig({}), logLevel: 'trace', publicUrl: 'http://pay.test', rateLimitRequests: 0, databasePath };
  store = new SqliteStore(databasePath);
  // Every line at trace level, and no redaction: a secret must never be handed to the logger.
  deps = createDeps(config, { store, logger: pino({ level: 'trace' }, { write: (line: string) => void logLines.push(line) }) });
  app = createApp(deps);
  const a = await createCompanyWithKey(store, { name: 'Café Aurora Ltda', taxId: '45723174000110' });
  const b = await createCompanyWithKey(store, { name: 'Padaria Bom Dia Ltda', taxId: '11222333000181' });
  const base = await startReceiver();
  const urlToken = 'tok_Q2FmZUF1cm9yYVdlYmhvb2tUb2tlbg';
  Object.assign(secrets, {
    "A's API key": a.apiKey,
    "the secret part of A's API key": secretPart(a.apiKey),
    "B's API key": b.apiKey,
    "the secret part of B's API key": secretPart(b.apiKey),
  });

  // A store error where a secret is at hand: authenticating A's key, on its first use.
  const findApiKey = vi.spyOn(store, 'findApiKey').mockRejectedValueOnce(storeError('database is locked', 'SQLITE_BUSY'));
  await send('A: GET /client while the key lookup fails', '/client', { apiKey: a.apiKey });
  findApiKey.mockRestore();

  // Webhooks: registered (the only answer with the secret), read, listed, renamed.
  const hookA = json<WebhookWithSecret>(
    await send('A: POST /webhook', '/webhook', {
      method: 'POST',
      apiKey: a.apiKey,
      body: { url: `${base}/a?token=${urlToken}`, name: 'Loja A', events: ['charge.pending', 'charge.paid', 'charge.received', 'charge.expired'] },
    }),
  );
  const hookB = json<WebhookWithSecret>(
    await send('B: POST /webhook', '/webhook', { method: 'POST', apiKey: b.apiKey, body: { url: `${base}/b`, name: 'Padaria', events: ['charge.paid'] } }),
  );
  signingSecrets.set('/a', hookA.secret);
  signingSecrets.set('/b', hookB.secret);
  Object.assign(secrets, {
    "A's webhook secret": hookA.secret,
    "the random part of A's webhook secret": hookA.secret.slice('whsec_'.length),
    "B's webhook secret": hookB.secret,
    "the random part of B's webhook secret": hookB.secret.slice('whsec_'.length),
  });
  await send('A: GET /webhook', '/webhook', { apiKey: a.apiKey });
  await send('A: GET /webhook/{id}', `/webhook/${hookA.id}`, { apiKey: a.apiKey });
  await send('A: PATCH /webhook/{id}', `/webhook/${hookA.id}`, { method: 'PATCH', apiKey: a.apiKey, body: { name: 'Loja A (pedidos)' } });
  await send("B: GET /webhook/{id} of A's webhook", `/webhook/${hookA.id}`, { apiKey: b.apiKey });
  await send('A: PATCH /webhook/{id} trying to set a secret', `/webhook/${hookA.id}`, { method: 'PATCH', apiKey: a.apiKey, body: { secret: hookB.secret } });

  // Charges: created (idempotently, then replayed), read, paid, expired, refused.
  const client = json<{ id: string }>(await send('A: POST /client', '/client', { method: 'POST', apiKey: a.apiKey, body: clientBody() }));
  const product = json<{ id: string }>(await send('A: POST /product', '/product', { method: 'POST', apiKey: a.apiKey, body: productBody() }));
  const linkBody = { devMode: true, customerId: client.id, items: [{ productId: product.id, quantity: 2 }] };
  const paid = json<PaymentLinkResponse>(
    await send('A: POST /charge/payment-link', '/charge/payment-link', {
      method: 'POST',
      apiKey: a.apiKey,
      body: linkBody,
      headers: { 'Idempotency-Key': 'pedido-1001' },
    }),
  );
  await send('A: POST /charge/payment-link replayed', '/charge/payment-link', {
    method: 'POST',
    apiKey: a.apiKey,
    body: linkBody,
    headers: { 'Idempotency-Key': 'pedido-1001' },
  });
  await send('A: GET /charge/{id}', `/charge/${paid.data.id}`, { apiKey: a.apiKey });
  await send('A: simulate-payment', `/charge/${paid.data.id}/simulate-payment`, { method: 'POST', apiKey: a.apiKey, body: { settle: true } });
  const expired = json<PaymentLinkResponse>(
    await send('A: POST /charge/payment-link (to expire)', '/charge/payment-link', { method: 'POST', apiKey: a.apiKey, body: { devMode: true, total: 990 } }),
  );
  await send('A: simulate-expiration', `/charge/${expired.data.id}/simulate-expiration`, { method: 'POST', apiKey: a.apiKey });
  await send('A: simulate-payment of an expired charge (409)', `/charge/${expired.data.id}/simulate-payment`, { method: 'POST', apiKey: a.apiKey });
  const live = json<PaymentLinkResponse>(
    await send('A: POST /charge/payment-link (live)', '/charge/payment-link', { method: 'POST', apiKey: a.apiKey, body: { total: 4500 } }),
  );
  await send('A: simulate-payment of a live charge (403)', `/charge/${live.data.id}/simulate-payment`, { method: 'POST', apiKey: a.apiKey });
  await send('public payment page', `/pay/${paid.data.id}`);
  const ofB = json<PaymentLinkResponse>(
    await send('B: POST /charge/payment-link', '/charge/payment-link', { method: 'POST', apiKey: b.apiKey, body: { devMode: true, total: 1200 } }),
  );
  await send('B: simulate-payment', `/charge/${ofB.data.id}/simulate-payment`, { method: 'POST', apiKey: b.apiKey });
  await send("B: GET /charge/{id} of A's charge", `/charge/${paid.data.id}`, { apiKey: b.apiKey });

  // Deliveries: signed with each registration's secret, verified by the receiver.
  const worker = startWebhookWorker(deps, { polling: false });
  for (let tick = 0; tick < 5 && deliveries.length < 4; tick += 1) await worker.tick();
  await worker.stop();
  await send('A: GET /webhook/{id}/deliveries', `/webhook/${hookA.id}/deliveries`, { apiKey: a.apiKey });

  // Wrong keys, on a read and on a write.
  const flip = (key: string) => `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
  const wrongKeys: Array<[string, { apiKey?: string; headers?: Record<string, string>; query?: string }]> = [
    ['no key', {}],
    ["A's key with its last character changed", { apiKey: flip(a.apiKey) }],
    ["B's key id with A's secret", { apiKey: `sk_${keyId(b.apiKey)}_${secretPart(a.apiKey)}` }],
    ["A's key id with B's secret", { apiKey: `sk_${keyId(a.apiKey)}_${secretPart(b.apiKey)}` }],
    ["A's key in lower case", { apiKey: a.apiKey.toLowerCase() }],
    ["A's key with a character more", { apiKey: `${a.apiKey}x` }],
    ["A's key behind Bearer", { apiKey: `Bearer ${a.apiKey}` }],
    ["A's key in Authorization instead of X-API-KEY", { headers: { Authorization: `Bearer ${a.apiKey}` } }],
    ["A's key in the query string", { query: `?api_key=${encodeURIComponent(a.apiKey)}` }],
    ["A's webhook secret as the key", { apiKey: hookA.secret }],
  ];
  for (const [what, given] of wrongKeys) {
    await send(`GET /client with ${what}`, `/client${given.query ?? ''}`, {
      ...(given.apiKey ? { apiKey: given.apiKey } : {}),
      ...(given.headers ? { headers: given.headers } : {}),
    });
    await send(`POST /charge/payment-link with ${what}`, `/charge/payment-link${given.query ?? ''}`, {
      method: 'POST',
      body: { total: 1000 },
      ...(given.apiKey ? { apiKey: given.apiKey } : {}),
      ...(given.headers ? { headers: given.headers } : {}),
    });
  }

  // Validation errors and malformed bodies that carry secrets.
  await send("A: POST /client with A's key as the email", '/client', { method: 'POST', apiKey: a.apiKey, body: clientBody({ email: a.apiKey }) });
  await send("A: POST /client with A's key as the CPF", '/client', { method: 'POST', apiKey: a.apiKey, body: clientBody({ cpfCnpj: a.apiKey }) });
  await send("A: POST /client with A's key as an unknown field", '/client', { method: 'POST', apiKey: a.apiKey, body: { ...clientBody(), apiKey: a.apiKey } });
  await send("A: POST /webhook with A's webhook secret as the URL", '/webhook', {
    method: 'POST',
    apiKey: a.apiKey,
    body: { url: hookA.secret, name: 'x', events: ['charge.paid'] },
  });
  await send("A: malformed JSON carrying A's key", '/client', { method: 'POST', apiKey: a.apiKey, text: `{"apiKey": "${a.apiKey}", }` });
  await send("A: malformed JSON carrying A's webhook secret", `/webhook/${hookA.id}`, {
    method: 'PATCH',
    apiKey: a.apiKey,
    text: `{"secret": ${hookA.secret}}`,
  });
  await send("A: a body in text/plain carrying A's key", '/client', {
    method: 'POST',
    apiKey: a.apiKey,
    headers: { 'Content-Type': 'text/plain' },
    text: a.apiKey,
  });

  // Store errors, thrown where a secret is at hand: storing a new webhook secret, paying (and
  // authenticating a key, at the start: a key is looked up when not seen in the last minute).
  const insertWebhook = vi.spyOn(store, 'insertWebhook').mockRejectedValueOnce(storeError('disk I/O error', 'SQLITE_IOERR'));
  await send('A: POST /webhook while the insert fails', '/webhook', {
    method: 'POST',
    apiKey: a.apiKey,
    body: { url: `${base}/lost`, name: 'Perdido', events: ['charge.paid'] },
  });
  const lost = insertWebhook.mock.calls[0]?.[1];
  insertWebhook.mockRestore();
  if (lost === undefined) throw new Error('the failing insertWebhook was not called');
  Object.assign(secrets, {
    'the secret of the webhook whose insert failed': lost,
    'the random part of the secret whose insert failed': lost.slice('whsec_'.length),
  });
  const transition = vi.spyOn(store, 'transitionCharge').mockRejectedValueOnce(storeError('database or disk is full', 'SQLITE_FULL'));
  const another = json<PaymentLinkResponse>(
    await send('A: POST /charge/payment-link (for a failing payment)', '/charge/payment-link', {
      method: 'POST',
      apiKey: a.apiKey,
      body: { devMode: true, total: 700 },
    }),
  );
  await send('A: simulate-payment while the store fails', `/charge/${another.data.id}/simulate-payment`, { method: 'POST', apiKey: a.apiKey });
  transition.mockRestore();

  // The files while the store is open (recent writes are in the WAL), every cell, then the files after closing.
  const readFiles = (when: string) => {
    for (const name of readdirSync(folder).filter((n) => n.startsWith('payments.db'))) files.push({ when, name, bytes: readFileSync(join(folder, name)) });
  };
  readFiles('open');
  cells = allCells();
  await store.close();
  readFiles('closed');
  secrets["the token in the query of A's webhook URL"] = urlToken;
});

afterAll(async () => {
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  if (folder) rmSync(folder, { recursive: true, force: true });
});

/** Every non-null cell of every table, as text. */
function allCells(): Array<{ table: string; column: string; row: string; text: string }> {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    return everyRow(db).flatMap(({ table, rows }) =>
      rows.flatMap((row) =>
        Object.entries(row)
          .filter(([column, value]) => column !== '_key' && value !== null)
          .map(([column, value]) => ({ table, column, row: row._key, text: Buffer.isBuffer(value) ? value.toString('latin1') : String(value) })),
      ),
    );
  } finally {
    db.close();
  }
}

/** The names of the secrets a text contains. */
function secretsIn(text: string, names: readonly string[] = Object.keys(secrets)): string[] {
  return names.filter((name) => text.includes(secrets[name]!));
}

const apiKeySecrets = ["A's API key", "the secret part of A's API key", "B's API key", "the secret part of B's API key"];
const webhookSecrets = ["A's webhook secret", "the random part of A's webhook secret", "B's webhook secret", "the random part of B's webhook secret"];

describe('the session', () => {
  test('ran as planned: successes, refusals, store errors and signed deliveries', () => {
    const statuses = new Map(seen.map((s) => [s.label, s.status]));
    expect(statuses.get('A: POST /webhook')).toBe(201);
    expect(statuses.get('A: POST /charge/payment-link replayed')).toBe(201);
    expect(statuses.get('A: simulate-payment')).toBe(200);
    expect(statuses.get('A: simulate-payment of an expired charge (409)')).toBe(409);
    expect(statuses.get('A: simulate-payment of a live charge (403)')).toBe(403);
    expect(statuses.get("B: GET /webhook/{id} of A's webhook")).toBe(404);
    expect(statuses.get("A: malformed JSON carrying A's key")).toBe(400);
    expect(statuses.get("A: POST /client with A's key as the email")).toBe(422);
    expect(seen.filter((s) => s.label.includes(' with ') && s.label.startsWith('GET /client')).map((s) => s.status)).toEqual(Array(10).fill(401));
    expect(seen.filter((s) => s.status === 500).map((s) => s.label)).toEqual([
      'A: GET /client while the key lookup fails',
      'A: POST /webhook while the insert fails',
      'A: simulate-payment while the store fails',
    ]);
    expect(deliveries.length).toBeGreaterThanOrEqual(4);
    expect(deliveries.every((d) => d.verified)).toBe(true);
  });

  test('was logged: a line per request, the three unexpected errors with their causes, the deliveries', () => {
    const parsed = logLines.map((line) => JSON.parse(line) as { msg: string; err?: { message?: string } });
    expect(parsed.filter((l) => l.msg === 'request').length).toBe(seen.length);
    const errors = parsed.filter((l) => l.msg === 'unexpected error');
    expect(errors.map((l) => l.err?.message)).toEqual(['database is locked', 'disk I/O error', 'database or disk is full']);
    expect(parsed.filter((l) => l.msg === 'webhook delivered').length).toBe(deliveries.length);
  });
});

describe('logs', () => {
  test('no log line holds an API key, a webhook secret or the token of a webhook URL', () => {
    expect(logLines.length).toBeGreaterThan(60);
    const leaks = logLines.flatMap((line, i) => secretsIn(line).map((name) => `line ${i}: ${name}`));
    expect(leaks).toEqual([]);
  });
});

describe('responses', () => {
  test('no response, error or success, holds an API key, in its body or its headers', () => {
    const leaks = seen.flatMap((s) => secretsIn(`${s.headers}\n${s.body}`, apiKeySecrets).map((name) => `${s.label} (${s.status}): ${name}`));
    expect(leaks).toEqual([]);
  });

  test('a webhook secret is in the 201 of the POST /webhook that created it, and in no other response', () => {
    const holding = (name: string) => seen.filter((s) => `${s.headers}\n${s.body}`.includes(secrets[name]!)).map((s) => `${s.label} ${s.status}`);
    expect(holding("A's webhook secret")).toEqual(['A: POST /webhook 201']);
    expect(holding("the random part of A's webhook secret")).toEqual(['A: POST /webhook 201']);
    expect(holding("B's webhook secret")).toEqual(['B: POST /webhook 201']);
    expect(holding("the random part of B's webhook secret")).toEqual(['B: POST /webhook 201']);
    expect(holding('the secret of the webhook whose insert failed')).toEqual([]);
    expect(holding('the random part of the secret whose insert failed')).toEqual([]);
  });

  test('every error is a problem that holds none of the secrets', () => {
    const errors = seen.filter((s) => s.status >= 400);
    expect(errors.length).toBeGreaterThan(25);
    for (const s of errors) {
      expect(s.contentType, s.label).toBe('application/problem+json');
      expect(secretsIn(`${s.headers}\n${s.body}`), s.label).toEqual([]);
    }
  });
});

describe('deliveries', () => {
  test('a webhook request carries a signature, never the secret it is signed with', () => {
    expect(deliveries.length).toBeGreaterThanOrEqual(4);
    for (const d of deliveries) {
      expect(d.headers['webhook-signature']).toMatch(/^v1,/);
      const text = `${JSON.stringify(d.headers)}\n${d.body}`;
      expect(secretsIn(text, [...apiKeySecrets, ...webhookSecrets])).toEqual([]);
    }
  });
});

describe('the database file', () => {
  test('was read while open (with its WAL) and after closing', () => {
    expect(files.filter((f) => f.when === 'open').map((f) => f.name)).toEqual(expect.arrayContaining(['payments.db', 'payments.db-wal']));
    expect(files.some((f) => f.when === 'closed' && f.name === 'payments.db')).toBe(true);
    expect(existsSync(databasePath)).toBe(true);
  });

  test('holds no API key nor its secret part in any byte, only the SHA-256 of each secret part', () => {
    for (const file of files) {
      const text = file.bytes.toString('latin1');
      expect(secretsIn(text, apiKeySecrets), `${file.name} (${file.when})`).toEqual([]);
    }
    const hashes = cells
      .filter((c) => c.table === 'api_keys' && c.column === 'secret_hash')
      .map((c) => c.text)
      .sort();
    expect(hashes).toEqual([sha256(secrets["the secret part of A's API key"]!), sha256(secrets["the secret part of B's API key"]!)].sort());
    expect(cells.filter((c) => secretsIn(c.text, apiKeySecrets).length > 0)).toEqual([]);
  });

  test("holds each webhook secret in its webhooks row's secret column and nowhere else", () => {
    const where = (name: string) => cells.filter((c) => c.text.includes(secrets[name]!)).map((c) => `${c.table}.${c.column}`);
    for (const name of webhookSecrets) expect(where(name), name).toEqual(['webhooks.secret']);
    expect(where('the secret of the webhook whose insert failed')).toEqual([]);
    expect(files.some((f) => f.bytes.toString('latin1').includes(secrets["A's webhook secret"]!))).toBe(true);
  });
});

/**
 * Webhook registrations (D40) and their delivery attempts (D41), through the typed client.
 *
 * GET /webhook/{id}: a registration of the caller's company is returned as stored, without
 * its signing secret; unknown, malformed and foreign ids are 404 (D27); no key is 401 (D03).
 * The GET tests insert registrations through the store, so they do not depend on POST.
 *
 * POST / GET /webhook, PATCH / DELETE /webhook/{id}, GET /webhook/{id}/deliveries: the secret
 * (`whsec_` + 32 random bytes in base64) is answered once, by POST, and never again nor logged;
 * the URL policy (server/webhooks/url-policy.ts, unit-tested there) is applied on create and
 * on a PATCH of `url`; every operation sees only the caller's company.
 */
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { newId } from '../domain/ids.js';
import { fakeClock, problem, read, sendJson, unknownId, type FakeClock } from '../test-support/fixtures.js';
import { createTestServer, tableResolver, type TestServer, type TestServerOptions } from '../test-support/harness.js';
import { unusableNameReason } from '../webhooks/url-policy.js';

type Webhook = components['schemas']['Webhook'];
type WebhookCreate = components['schemas']['WebhookCreate'];
type WebhookUpdate = components['schemas']['WebhookUpdate'];
type WebhookDelivery = components['schemas']['WebhookDelivery'];
type Problem = components['schemas']['Problem'];

let server: TestServer;
let clock: FakeClock;

beforeEach(async () => {
  clock = fakeClock('2026-11-20T10:00:00.000Z');
  server = await createTestServer({ now: clock.now });
});

/** Replaces the server of this test (e.g. by a production one), checking the old one first. */
async function restart(options: TestServerOptions): Promise<void> {
  expect(server.violations).toEqual([]);
  await server.close();
  server = await createTestServer({ now: clock.now, ...options });
}

afterEach(async () => {
  try {
    expect(server.violations).toEqual([]);
  } finally {
    await server.close();
  }
});

function webhook(companyId: string, over: Partial<Webhook> = {}): Webhook {
  return {
    id: newId('webhook'),
    url: 'https://cafeaurora.example.com/webhooks/pix',
    name: 'Pedidos da loja',
    companyId,
    status: 'ACTIVE',
    events: ['charge.paid', 'charge.expired'],
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    ...over,
  };
}

function secret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

async function getWebhook(id: string, apiKey?: string) {
  return read(await server.request(`/webhook/${id}`, apiKey === undefined ? {} : { apiKey }));
}

/** Webhook ids that name no webhook of the caller: each is a 404. */
const missing: Array<[string, { given: () => string }]> = [
  ['a well-formed unknown id', { given: () => unknownId('wbhk') }],
  ['a malformed id', { given: () => 'nope' }],
];
describe('GET /webhook/{id}: found', () => {
  const cases: Array<[string, { given: Partial<Webhook> }]> = [
    ['the sample registration: ACTIVE, two events', { given: {} }],
    ['INACTIVE with one event', { given: { status: 'INACTIVE', events: ['charge.pending'] } }],
    ['all five charge events', { given: { events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received', 'charge.expired'] } }],
    ['a URL with port, path and query', { given: { url: 'https://hooks.example.com:8443/pix/events?source=pix&v=2' } }],
    ['a name with accents and symbols', { given: { name: 'Notificações — Café & Cia' } }],
    ['updated after creation', { given: { createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-11-21T14:30:00.123Z' } }],
  ];

  test.each(cases)('is read back as stored: %s', async (_name, { given }) => {
    const doc = webhook(server.companyId, given);
    expect(doc.id).toMatch(/^wbhk_[a-z][0-9a-z]{1,31}$/);
    await server.deps.store.insertWebhook(doc, secret());

    const { data, response } = await server.api.GET('/webhook/{id}', { params: { path: { id: doc.id } } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(data).toEqual(doc);
  });

  test('the signing secret is never in the response', async () => {
    const doc = webhook(server.companyId);
    const whsec = secret();
    await server.deps.store.insertWebhook(doc, whsec);

    const answer = await getWebhook(doc.id);
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(whsec);
    expect(answer.text).not.toContain(whsec.slice('whsec_'.length));
    expect(answer.text).not.toContain('whsec_');
    expect(Object.keys(answer.json as object).sort()).toEqual(['companyId', 'createdAt', 'events', 'id', 'name', 'status', 'updatedAt', 'url']);
  });

  test('each registration is read by its own id', async () => {
    const docs = [webhook(server.companyId, { name: 'Um' }), webhook(server.companyId, { name: 'Dois', events: ['charge.received'] })];
    for (const doc of docs) await server.deps.store.insertWebhook(doc, secret());
    for (const doc of docs) expect((await getWebhook(doc.id)).json).toEqual(doc);
  });
});

describe('GET /webhook/{id}: not found (D27)', () => {
  const cases: Array<[string, { given: () => string }]> = [
    ['a well-formed unknown id', { given: () => unknownId('wbhk') }],
    ['a malformed id', { given: () => 'nope' }],
    ['the id of a client', { given: () => unknownId('clnt') }],
    ['an id of 255 characters', { given: () => `wbhk_${'a'.repeat(250)}` }],
    // D27: malformed ids are 404 like unknown ones; getWebhook documents no 422.
    ['an id of 256 characters (malformed)', { given: () => `wbhk_${'a'.repeat(251)}` }],
  ];

  test.each(cases)('404 problem for %s', async (_name, { given }) => {
    await server.deps.store.insertWebhook(webhook(server.companyId), secret());
    const id = given();
    const p = problem(await getWebhook(id), 404);
    expect(p).toMatchObject({ type: '/problems/not-found', title: 'Not found', status: 404, instance: `/webhook/${id}` });
  });

  test("company B reading company A's registration gets 404; A still reads it", async () => {
    const doc = webhook(server.companyId, { name: 'Somente A' });
    await server.deps.store.insertWebhook(doc, secret());

    const theirs = await server.other.api.GET('/webhook/{id}', { params: { path: { id: doc.id } } });
    expect(theirs.response.status).toBe(404);
    expect(theirs.error).toMatchObject({ type: '/problems/not-found', status: 404 });
    expect(JSON.stringify(theirs.error)).not.toContain('Somente A');

    expect((await server.api.GET('/webhook/{id}', { params: { path: { id: doc.id } } })).data).toEqual(doc);
  });

  test("company B's registration is invisible to company A", async () => {
    const doc = webhook(server.other.companyId, { url: 'https://padaria.example.com/hooks' });
    await server.deps.store.insertWebhook(doc, secret());
    expect((await getWebhook(doc.id, server.other.apiKey)).json).toEqual(doc);
    expect((await getWebhook(doc.id)).status).toBe(404);
  });
});

describe('GET /webhook/{id}: authentication', () => {
  const cases: Array<[string, { given: () => string | null }]> = [
    ['no X-API-KEY', { given: () => null }],
    ['an empty X-API-KEY', { given: () => '' }],
    ['a malformed key', { given: () => 'not-a-key' }],
    ['a well-formed key that was never issued', { given: () => `sk_${'a'.repeat(24)}_${'b'.repeat(43)}` }],
    ["company A's key id with a wrong secret", { given: () => `${server.apiKey.slice(0, -43)}${'b'.repeat(43)}` }],
  ];

  test.each(cases)('401 problem with %s, for an existing registration', async (_name, { given }) => {
    const doc = webhook(server.companyId);
    await server.deps.store.insertWebhook(doc, secret());
    const p = problem(await read(await server.request(`/webhook/${doc.id}`, { apiKey: given() })), 401);
    expect(p).toMatchObject({ type: '/problems/unauthorized', title: 'Unauthorized', status: 401 });
    expect(JSON.stringify(p)).not.toContain(doc.url);
  });
});

// ---------------------------------------------------------------------------------------------
// Registration through the API (D40) and delivery attempts (D41).
// ---------------------------------------------------------------------------------------------

const secretPattern = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const idPattern = /^wbhk_[a-z][0-9a-z]{1,31}$/;
const httpsOnly = 'must be an https URL (http only to localhost in development)';
const internalInProduction = /^must point at a public address, not a private, loopback, link-local or other special-purpose one \(.+\)$/;

function createBody(over: Partial<WebhookCreate> = {}): WebhookCreate {
  return { url: 'https://cafeaurora.example.com/webhooks/pix', name: 'Pedidos da loja', events: ['charge.paid', 'charge.expired'], ...over };
}

/** Registers a webhook through `POST /webhook`; fails the test unless 201. */
async function register(over: Partial<WebhookCreate> = {}, api: TestServer['api'] = server.api) {
  const { data, response } = await api.POST('/webhook', { body: createBody(over) });
  expect(response.status).toBe(201);
  if (!data) throw new Error('POST /webhook returned no body');
  return data;
}

/** The registration as GET answers it: the 201 body without its secret. */
function stored(created: components['schemas']['WebhookWithSecret']): Webhook {
  const { secret: _secret, ...doc } = created;
  return doc;
}

/** Fails if the text shows the secret, its base64 part, or any `whsec_` at all. */
function expectNoSecret(text: string, secret: string): void {
  expect(text).not.toContain(secret);
  expect(text).not.toContain(secret.slice('whsec_'.length));
  expect(text).not.toContain('whsec_');
}

/** A recorded delivery attempt of `webhookId`, `minutes` after the clock's start. */
function attempt(webhookId: string, n: number, minutes: number, over: Partial<WebhookDelivery> = {}): WebhookDelivery {
  return {
    id: `dlvr_${newId('webhook').slice('wbhk_'.length)}`,
    eventId: 'msg_w2k7c9a5xq0m1n3p5r7t9v1b',
    eventType: 'charge.paid',
    webhookId,
    attempt: n,
    status: 'FAILED',
    httpStatus: 503,
    requestedAt: new Date(Date.parse('2026-11-20T10:00:00.000Z') + minutes * 60_000).toISOString(),
    durationMs: 35,
    nextAttemptAt: new Date(Date.parse('2026-11-20T10:00:00.000Z') + (minutes + 5) * 60_000).toISOString(),
    ...over,
  };
}

async function recordAttempts(companyId: string, attempts: WebhookDelivery[]): Promise<void> {
  for (const a of attempts) {
    await server.deps.store.recordAttempt({ companyId, attempt: a, state: a.status === 'SUCCEEDED' ? 'DELIVERED' : 'PENDING' });
  }
}

/** The single `/url` field error of a 422 from the URL policy, after checking the problem around it. */
function urlRefusal(error: Problem | undefined, status: number, instance: string) {
  expect(status).toBe(422);
  expect(error).toMatchObject({
    type: '/problems/validation-error',
    title: 'Request validation failed',
    status: 422,
    instance,
  });
  expect(error?.errors).toHaveLength(1);
  expect(error?.detail).toBe(`url ${error?.errors?.[0]?.detail}.`);
  const [fieldError] = error?.errors ?? [];
  expect(fieldError).toMatchObject({ pointer: '/url', keyword: 'url' });
  return fieldError?.detail ?? '';
}

describe('POST /webhook: created (D40)', () => {
  const cases: Array<[string, { given: Partial<WebhookCreate> }]> = [
    ['the sample registration', { given: {} }],
    ['one event', { given: { events: ['charge.received'] } }],
    ['all five charge events', { given: { events: ['charge.pending', 'charge.processing', 'charge.paid', 'charge.received', 'charge.expired'] } }],
    ['a URL with port, path and query', { given: { url: 'https://hooks.example.com:8443/pix/events?source=pix&v=2' } }],
    ['a name of 255 characters with accents', { given: { name: `Notificações ${'é'.repeat(242)}` } }],
    ['http to localhost in development', { given: { url: 'http://localhost:4000/hook' } }],
    ['http to 127.0.0.1 in development', { given: { url: 'http://127.0.0.1:8080/' } }],
    ['http to [::1] in development', { given: { url: 'http://[::1]:9000/pix' } }],
    ['https to 127.0.0.1 in development', { given: { url: 'https://127.0.0.1:8443/hook' } }],
    ['https to a name resolving to loopback in development', { given: { url: 'https://localhost:8443/hook' } }],
  ];

  test.each(cases)('201 with the registration and its secret: %s', async (_name, { given }) => {
    const body = createBody(given);
    const { data, response } = await server.api.POST('/webhook', { body });
    expect(response.status).toBe(201);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(data).toEqual({
      ...body,
      id: expect.stringMatching(idPattern),
      companyId: server.companyId,
      status: 'ACTIVE',
      createdAt: '2026-11-20T10:00:00.000Z',
      updatedAt: '2026-11-20T10:00:00.000Z',
      secret: expect.stringMatching(secretPattern),
    });
    if (!data) return;
    const read = await server.api.GET('/webhook/{id}', { params: { path: { id: data.id } } });
    expect(read.data).toEqual(stored(data));
  });

  test('the clock of the request sets createdAt and updatedAt', async () => {
    clock.set('2027-03-04T05:06:07.089Z');
    expect(await register()).toMatchObject({ createdAt: '2027-03-04T05:06:07.089Z', updatedAt: '2027-03-04T05:06:07.089Z' });
  });

  test('the secret is whsec_ and 32 random bytes in base64, new for each registration, and is what the store keeps', async () => {
    const insert = vi.spyOn(server.deps.store, 'insertWebhook');
    const first = await register();
    const second = await register();
    for (const created of [first, second]) {
      expect(created.secret).toMatch(secretPattern);
      expect(Buffer.from(created.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    }
    expect(second.secret).not.toBe(first.secret);
    expect(second.id).not.toBe(first.id);
    expect(insert.mock.calls.map(([doc, secret]) => [doc, secret])).toEqual([
      [stored(first), first.secret],
      [stored(second), second.secret],
    ]);
  });

  test('the secret signs and verifies with the Standard Webhooks library (D14)', async () => {
    const { secret } = await register();
    const signer = new StandardWebhook(secret);
    const payload = JSON.stringify({ type: 'charge.paid', timestamp: '2026-11-20T10:00:00.000Z', data: { id: 'char_x' } });
    const sentAt = new Date();
    const headers = {
      'webhook-id': 'msg_w2k7c9a5xq0m1n3p5r7t9v1b',
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signer.sign('msg_w2k7c9a5xq0m1n3p5r7t9v1b', sentAt, payload),
    };
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
    expect(signer.verify(payload, headers)).toEqual(JSON.parse(payload));
    expect(() => new StandardWebhook(`whsec_${randomBytes(32).toString('base64')}`).verify(payload, headers)).toThrow();
  });

  test('production accepts https to public hosts and addresses', async () => {
    await restart({ config: { mode: 'production' } });
    for (const url of ['https://cafeaurora.example.com/webhooks/pix', 'https://93.184.216.34:8443/hook', 'https://[2606:2800:220:1::1]/hook']) {
      expect((await register({ url })).url).toBe(url);
    }
  });
});

describe('POST /webhook: at most 16 registrations per company (D49)', () => {
  test('the 17th is a 409 that says the limit and how to make room; after a delete one fits again', async () => {
    const made = [];
    for (let i = 0; i < 16; i++) made.push(await register({ name: `Registro ${i}` }));
    const refused = await sendJson(server, 'POST', '/webhook', createBody({ name: 'Um a mais' }));
    const p = problem(refused, 409);
    expect(p).toMatchObject({ type: '/problems/webhook-limit-reached', title: 'Webhook limit reached', status: 409, instance: '/webhook' });
    expect(p.detail).toContain('16 webhook registrations');
    expect(p.detail).toContain('DELETE /webhook/{id}');
    expect((await server.api.GET('/webhook')).data).toHaveLength(16);

    // Another company is not held to this one's count.
    expect((await sendJson(server, 'POST', '/webhook', createBody(), { apiKey: server.other.apiKey })).status).toBe(201);

    await server.api.DELETE('/webhook/{id}', { params: { path: { id: made[0]!.id } } });
    expect((await sendJson(server, 'POST', '/webhook', createBody({ name: 'Um a mais' }))).status).toBe(201);
  });
});

describe('POST /webhook: URL not allowed (D40)', () => {
  const cases: Array<[string, { given: { mode: 'development' | 'production'; url: string }; want: string | RegExp }]> = [
    ['http to a public host in development', { given: { mode: 'development', url: 'http://cafeaurora.example.com/webhooks/pix' }, want: httpsOnly }],
    ['http to a private address in development', { given: { mode: 'development', url: 'http://10.0.0.1/hook' }, want: httpsOnly }],
    ['http to another loopback address in development', { given: { mode: 'development', url: 'http://127.0.0.2/' }, want: httpsOnly }],
    ['credentials in development', { given: { mode: 'development', url: 'https://user:secret@hooks.example.com/' }, want: /^must not contain credentials/ }],
    ['credentials hiding a private host', { given: { mode: 'production', url: 'https://hooks.example.com@10.0.0.1/' }, want: /^must not contain credentials/ }],
    ['http to localhost in production', { given: { mode: 'production', url: 'http://localhost:4000/hook' }, want: httpsOnly }],
    ['http to a public host in production', { given: { mode: 'production', url: 'http://cafeaurora.example.com/' }, want: httpsOnly }],
    ['https to localhost in production', { given: { mode: 'production', url: 'https://localhost/hook' }, want: internalInProduction }],
    ['https to a subdomain of localhost in production', { given: { mode: 'production', url: 'https://API.localhost/hook' }, want: internalInProduction }],
    ['https to 10.0.0.1 in production', { given: { mode: 'production', url: 'https://10.0.0.1/hook' }, want: internalInProduction }],
    ['https to 127.0.0.1 as a number in production', { given: { mode: 'production', url: 'https://2130706433/' }, want: internalInProduction }],
    ['https to [::1] in production', { given: { mode: 'production', url: 'https://[::1]:8443/' }, want: internalInProduction }],
    ['https to the metadata address in production', { given: { mode: 'production', url: 'https://169.254.169.254/latest' }, want: internalInProduction }],
    ['https to a unique-local address in production', { given: { mode: 'production', url: 'https://[fd00::1]/' }, want: internalInProduction }],
    ['https to a mapped private address in production', { given: { mode: 'production', url: 'https://[::ffff:192.168.0.1]/' }, want: internalInProduction }],
    ['https to 0.0.0.0 in production', { given: { mode: 'production', url: 'https://0.0.0.0/' }, want: internalInProduction }],
    ['https to LocalHost.. in production', { given: { mode: 'production', url: 'https://LocalHost../hook' }, want: internalInProduction }],
    ['https to [::127.0.0.1] in production', { given: { mode: 'production', url: 'https://[::127.0.0.1]/hook' }, want: internalInProduction }],
    [
      'https to a private address in development',
      { given: { mode: 'development', url: 'https://192.168.0.10/hook' }, want: /^must point at a public or loopback address/ },
    ],
    [
      'https to a name that does not resolve',
      { given: { mode: 'production', url: 'https://typo.example.net/hook' }, want: unusableNameReason('typo.example.net') },
    ],
  ];

  test.each(cases)('422 on /url: %s', async (_name, { given, want }) => {
    if (given.mode === 'production') await restart({ config: { mode: 'production' } });
    const { error, response } = await server.api.POST('/webhook', { body: createBody({ url: given.url }) });
    const detail = urlRefusal(error, response.status, '/webhook');
    if (typeof want === 'string') expect(detail).toBe(want);
    else expect(detail).toMatch(want);
    expect((await server.api.GET('/webhook')).data).toEqual([]);
  });
});

/**
 * A name is judged by what it resolves to, at registration (D40): an attacker registers a name
 * of their own pointing at the deployment's internal network. The resolver is a table: no network.
 */
describe('POST and PATCH /webhook: a name resolving to a non-public address (D40)', () => {
  const cases: Array<[string, { given: string[] }]> = [
    ['127.0.0.1', { given: ['127.0.0.1'] }],
    ['::1', { given: ['::1'] }],
    ['10.0.0.7', { given: ['10.0.0.7'] }],
    ['the metadata address 169.254.169.254', { given: ['169.254.169.254'] }],
    ['a public and a private address', { given: ['93.184.216.34', '192.168.0.9'] }],
    ['a mapped loopback address', { given: ['::ffff:127.0.0.1'] }],
    ['an IPv4-compatible address of a public one', { given: ['::8.8.8.8'] }],
  ];

  test.each(cases)('production refuses receiver.example resolving to %s: 422 on /url, the address not told', async (_name, { given }) => {
    await restart({ config: { mode: 'production' }, resolveHost: tableResolver({ 'receiver.example': given }) });
    const { error, response } = await server.api.POST('/webhook', { body: createBody({ url: 'https://receiver.example/hooks/pix' }) });
    const detail = urlRefusal(error, response.status, '/webhook');
    // The same answer as a name that does not exist (D40): which internal names exist is not told.
    expect(detail).toBe(unusableNameReason('receiver.example'));
    for (const address of given) expect(JSON.stringify(error)).not.toContain(address);
    expect((await server.api.GET('/webhook')).data).toEqual([]);

    // A PATCH to the name is refused the same way, and changes nothing.
    const created = await register();
    const patched = await server.api.PATCH('/webhook/{id}', { params: { path: { id: created.id } }, body: { url: 'https://receiver.example/x' } });
    expect(urlRefusal(patched.error, patched.response.status, `/webhook/${created.id}`)).toBe(detail);
    expect((await server.api.GET('/webhook/{id}', { params: { path: { id: created.id } } })).data?.url).toBe(created.url);
  });

  test('the same name resolving to a public address is registered', async () => {
    await restart({ config: { mode: 'production' }, resolveHost: tableResolver({ 'receiver.example': ['93.184.216.34', '2606:2800:220:1::1'] }) });
    expect((await register({ url: 'https://receiver.example/hooks/pix' })).url).toBe('https://receiver.example/hooks/pix');
  });

  test('a .invalid name is registered without a lookup (it never resolves: RFC 6761 §6.4)', async () => {
    const looked: string[] = [];
    await restart({
      config: { mode: 'production' },
      resolveHost: async (hostname) => {
        looked.push(hostname);
        return [{ address: '127.0.0.1', family: 4 }];
      },
    });
    expect((await register({ url: 'https://webhooks.conformance.invalid/run' })).url).toBe('https://webhooks.conformance.invalid/run');
    expect(looked).toEqual([]);
  });
});

describe('POST /webhook: bodies that break the contract (422 from the schema)', () => {
  const cases: Array<[string, { given: unknown; want: string[] }]> = [
    ['an empty object', { given: {}, want: ['/events', '/name', '/url'] }],
    ['no events', { given: createBody({ events: [] }), want: ['/events'] }],
    ['a repeated event', { given: createBody({ events: ['charge.paid', 'charge.paid'] }), want: ['/events'] }],
    ['an event that does not exist (D16)', { given: { ...createBody(), events: ['order_paid'] }, want: ['/events/0'] }],
    ['an empty name', { given: createBody({ name: '' }), want: ['/name'] }],
    ['an ftp URL', { given: createBody({ url: 'ftp://files.example.com/' }), want: ['/url'] }],
    ['a URL of 2049 characters', { given: createBody({ url: `https://example.com/${'a'.repeat(2029)}` }), want: ['/url'] }],
    ['a secret chosen by the caller', { given: { ...createBody(), secret: `whsec_${randomBytes(32).toString('base64')}` }, want: ['/secret'] }],
    ['a status', { given: { ...createBody(), status: 'INACTIVE' }, want: ['/status'] }],
  ];

  test.each(cases)('%s', async (_name, { given, want }) => {
    const answer = await sendJson(server, 'POST', '/webhook', given);
    const p = problem(answer, 422);
    expect(p).toMatchObject({ type: '/problems/validation-error', instance: '/webhook' });
    expect([...new Set((p.errors ?? []).map((e) => e.pointer))].sort()).toEqual(want);
    expect((await server.api.GET('/webhook')).data).toEqual([]);
  });
});

describe('GET /webhook: list (D40)', () => {
  test('an empty list before any registration', async () => {
    const { data, response } = await server.api.GET('/webhook');
    expect(response.status).toBe(200);
    expect(data).toEqual([]);
  });

  test('every registration of the company, oldest first, without secrets', async () => {
    const created = [];
    for (const name of ['Primeiro', 'Segundo', 'Terceiro']) {
      created.push(await register({ name }));
      clock.advance(60_000);
    }
    const answer = await read(await server.request('/webhook'));
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual(created.map(stored));
    for (const c of created) expectNoSecret(answer.text, c.secret);
  });

  test('registrations created in the same millisecond are all listed', async () => {
    const created = [await register({ name: 'A' }), await register({ name: 'B' }), await register({ name: 'C' })];
    const { data } = await server.api.GET('/webhook');
    expect(data).toHaveLength(3);
    expect(new Set(data?.map((w) => w.id))).toEqual(new Set(created.map((c) => c.id)));
  });

  test('a paused registration is listed too', async () => {
    const created = await register();
    await server.api.PATCH('/webhook/{id}', { params: { path: { id: created.id } }, body: { status: 'INACTIVE' } });
    expect((await server.api.GET('/webhook')).data).toEqual([{ ...stored(created), status: 'INACTIVE' }]);
  });
});

describe('PATCH /webhook/{id}: only the fields sent change (D40)', () => {
  const cases: Array<[string, { given: WebhookUpdate }]> = [
    ['pause', { given: { status: 'INACTIVE' } }],
    ['ACTIVE again while active', { given: { status: 'ACTIVE' } }],
    ['rename', { given: { name: 'Financeiro' } }],
    ['another https URL', { given: { url: 'https://novo.example.com/pix?v=3' } }],
    ['http to localhost in development', { given: { url: 'http://localhost:4000/hook' } }],
    ['other events', { given: { events: ['charge.received', 'charge.pending'] } }],
    ['everything at once', { given: { status: 'INACTIVE', name: 'Tudo', url: 'https://tudo.example.com/', events: ['charge.expired'] } }],
  ];

  test.each(cases)('200 with the changed registration: %s', async (_name, { given }) => {
    const created = await register();
    clock.advance(3_600_000);
    const { data, response } = await server.api.PATCH('/webhook/{id}', { params: { path: { id: created.id } }, body: given });
    expect(response.status).toBe(200);
    const want = { ...stored(created), ...given, updatedAt: '2026-11-20T11:00:00.000Z' };
    expect(data).toEqual(want);
    expect(data?.createdAt).toBe('2026-11-20T10:00:00.000Z');
    expect((await server.api.GET('/webhook/{id}', { params: { path: { id: created.id } } })).data).toEqual(want);
    expect((await server.api.GET('/webhook')).data).toEqual([want]);
  });

  test('pause, then resume', async () => {
    const created = await register();
    const path = { params: { path: { id: created.id } } };
    clock.advance(1_000);
    expect((await server.api.PATCH('/webhook/{id}', { ...path, body: { status: 'INACTIVE' } })).data).toMatchObject({
      status: 'INACTIVE',
      updatedAt: '2026-11-20T10:00:01.000Z',
    });
    clock.advance(1_000);
    expect((await server.api.PATCH('/webhook/{id}', { ...path, body: { status: 'ACTIVE' } })).data).toEqual({
      ...stored(created),
      updatedAt: '2026-11-20T10:00:02.000Z',
    });
  });

  test('only the registration named changes', async () => {
    const one = await register({ name: 'Um' });
    const two = await register({ name: 'Dois' });
    await server.api.PATCH('/webhook/{id}', { params: { path: { id: one.id } }, body: { name: 'Um, renomeado' } });
    expect((await server.api.GET('/webhook/{id}', { params: { path: { id: two.id } } })).data).toEqual(stored(two));
  });

  test('the answer has no secret', async () => {
    const created = await register();
    const answer = await sendJson(server, 'PATCH', `/webhook/${created.id}`, { name: 'Renomeado' });
    expect(answer.status).toBe(200);
    expectNoSecret(answer.text, created.secret);
    expect(Object.keys(answer.json as object).sort()).toEqual(['companyId', 'createdAt', 'events', 'id', 'name', 'status', 'updatedAt', 'url']);
  });
});

describe('PATCH /webhook/{id}: refused', () => {
  const urls: Array<[string, { given: { mode: 'development' | 'production'; url: string }; want: string | RegExp }]> = [
    ['http to a public host', { given: { mode: 'development', url: 'http://cafeaurora.example.com/' }, want: httpsOnly }],
    ['credentials', { given: { mode: 'development', url: 'https://u:p@cafeaurora.example.com/' }, want: /^must not contain credentials/ }],
    ['http to localhost in production', { given: { mode: 'production', url: 'http://localhost/' }, want: httpsOnly }],
    ['a private address in production', { given: { mode: 'production', url: 'https://172.16.5.4/hook' }, want: internalInProduction }],
    ['a link-local IPv6 address in production', { given: { mode: 'production', url: 'https://[fe80::1]/' }, want: internalInProduction }],
  ];

  test.each(urls)('422 on /url, nothing changed: %s', async (_name, { given, want }) => {
    if (given.mode === 'production') await restart({ config: { mode: 'production' } });
    const created = await register();
    clock.advance(60_000);
    const { error, response } = await server.api.PATCH('/webhook/{id}', { params: { path: { id: created.id } }, body: { url: given.url, name: 'Não muda' } });
    const detail = urlRefusal(error, response.status, `/webhook/${created.id}`);
    if (typeof want === 'string') expect(detail).toBe(want);
    else expect(detail).toMatch(want);
    expect((await server.api.GET('/webhook/{id}', { params: { path: { id: created.id } } })).data).toEqual(stored(created));
  });

  const bodies: Array<[string, { given: unknown; want: string[] }]> = [
    ['an id', { given: { id: 'wbhk_other', name: 'x' }, want: ['/id'] }],
    ['a companyId', { given: { companyId: 'comp_other' }, want: ['/companyId'] }],
    ['a secret', { given: { secret: `whsec_${randomBytes(32).toString('base64')}` }, want: ['/secret'] }],
    ['no events', { given: { events: [] }, want: ['/events'] }],
    ['an unknown status', { given: { status: 'PAUSED' }, want: ['/status'] }],
    ['an empty name', { given: { name: '' }, want: ['/name'] }],
  ];

  test.each(bodies)('422 from the schema, nothing changed: %s', async (_name, { given, want }) => {
    const created = await register();
    const p = problem(await sendJson(server, 'PATCH', `/webhook/${created.id}`, given), 422);
    expect(p).toMatchObject({ type: '/problems/validation-error', instance: `/webhook/${created.id}` });
    expect([...new Set((p.errors ?? []).map((e) => e.pointer))].sort()).toEqual(want);
    expect((await server.api.GET('/webhook/{id}', { params: { path: { id: created.id } } })).data).toEqual(stored(created));
  });

  test('422 for an empty body (minProperties)', async () => {
    const created = await register();
    const p = problem(await sendJson(server, 'PATCH', `/webhook/${created.id}`, {}), 422);
    expect(p).toMatchObject({ type: '/problems/validation-error', status: 422 });
    expect(p.errors?.length).toBeGreaterThan(0);
  });

  test.each(missing)('404 for %s', async (_name, { given }) => {
    await register();
    const id = given();
    const { error, response } = await server.api.PATCH('/webhook/{id}', { params: { path: { id } }, body: { name: 'x' } });
    expect(response.status).toBe(404);
    expect(error).toMatchObject({
      type: '/problems/not-found',
      status: 404,
      detail: `No webhook with id ${id} exists for this company.`,
      instance: `/webhook/${id}`,
    });
  });
});

describe('DELETE /webhook/{id} (D40)', () => {
  test('204 with an empty body; then it is gone from GET, the list, PATCH, DELETE and deliveries', async () => {
    const created = await register();
    const kept = await register({ name: 'Fica' });
    const answer = await read(await server.request(`/webhook/${created.id}`, { method: 'DELETE' }));
    expect(answer.status).toBe(204);
    expect(answer.text).toBe('');

    const path = { params: { path: { id: created.id } } };
    expect((await server.api.GET('/webhook/{id}', path)).response.status).toBe(404);
    expect((await server.api.GET('/webhook')).data).toEqual([stored(kept)]);
    expect((await server.api.PATCH('/webhook/{id}', { ...path, body: { name: 'x' } })).response.status).toBe(404);
    expect((await server.api.DELETE('/webhook/{id}', path)).response.status).toBe(404);
    expect((await server.api.GET('/webhook/{id}/deliveries', path)).response.status).toBe(404);
    expect((await server.api.GET('/webhook/{id}', { params: { path: { id: kept.id } } })).data).toEqual(stored(kept));
  });

  test('the typed client sees 204 and no data', async () => {
    const created = await register();
    const { response, error } = await server.api.DELETE('/webhook/{id}', { params: { path: { id: created.id } } });
    expect(response.status).toBe(204);
    expect(error).toBeUndefined();
  });

  test('its delivery attempts are deleted with it; another registration keeps its own', async () => {
    const gone = await register();
    const kept = await register();
    const keptAttempts = [attempt(kept.id, 1, 1)];
    await recordAttempts(server.companyId, [attempt(gone.id, 1, 1), attempt(gone.id, 2, 6)]);
    await recordAttempts(server.companyId, keptAttempts);
    expect((await server.api.DELETE('/webhook/{id}', { params: { path: { id: gone.id } } })).response.status).toBe(204);
    expect(await server.deps.store.listDeliveryAttempts(server.companyId, gone.id, 100)).toEqual([]);
    expect((await server.api.GET('/webhook/{id}/deliveries', { params: { path: { id: kept.id } } })).data).toEqual(keptAttempts);
  });

  const missingOrForeign: Array<[string, { given: () => string }]> = [...missing, ['the id of a client', { given: () => unknownId('clnt') }]];

  test.each(missingOrForeign)('404 for %s, and nothing is deleted', async (_name, { given }) => {
    const created = await register();
    const id = given();
    const { error, response } = await server.api.DELETE('/webhook/{id}', { params: { path: { id } } });
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ type: '/problems/not-found', status: 404, instance: `/webhook/${id}` });
    expect((await server.api.GET('/webhook')).data).toEqual([stored(created)]);
  });
});

describe('GET /webhook/{id}/deliveries (D41)', () => {
  test('an empty list before any attempt', async () => {
    const created = await register();
    const { data, response } = await server.api.GET('/webhook/{id}/deliveries', { params: { path: { id: created.id } } });
    expect(response.status).toBe(200);
    expect(data).toEqual([]);
  });

  test("every attempt of this registration, newest first, and none of another's", async () => {
    const created = await register();
    const other = await register({ name: 'Outro' });
    const first = attempt(created.id, 1, 0);
    const retry = attempt(created.id, 2, 5, { status: 'SUCCEEDED', httpStatus: 200, durationMs: 84, nextAttemptAt: undefined });
    const timeout = attempt(created.id, 1, 10, {
      eventId: 'msg_a1b2c3d4e5f6g7h8i9j0k1l2',
      eventType: 'charge.expired',
      httpStatus: undefined,
      error: 'no answer within 15 s',
      durationMs: 15_000,
    });
    for (const a of [retry, timeout]) {
      // undefined members are not part of a stored document
      for (const key of Object.keys(a) as Array<keyof WebhookDelivery>) if (a[key] === undefined) delete a[key];
    }
    await recordAttempts(server.companyId, [first, retry, timeout, attempt(other.id, 1, 3)]);

    const { data, response } = await server.api.GET('/webhook/{id}/deliveries', { params: { path: { id: created.id } } });
    expect(response.status).toBe(200);
    expect(data).toEqual([timeout, retry, first]);
  });

  test.each(missing)('404 for %s', async (_name, { given }) => {
    await register();
    const id = given();
    const { error, response } = await server.api.GET('/webhook/{id}/deliveries', { params: { path: { id } } });
    expect(response.status).toBe(404);
    expect(error).toMatchObject({ type: '/problems/not-found', status: 404, instance: `/webhook/${id}/deliveries` });
  });
});

describe("tenant isolation: company B cannot reach company A's registration (D27)", () => {
  type Attempt = (api: TestServer['api'], id: string) => Promise<{ response: Response; error?: unknown }>;
  const cases: Array<[string, { given: Attempt; instance: (id: string) => string }]> = [
    ['read it', { given: (api, id) => api.GET('/webhook/{id}', { params: { path: { id } } }), instance: (id) => `/webhook/${id}` }],
    [
      'pause it',
      { given: (api, id) => api.PATCH('/webhook/{id}', { params: { path: { id } }, body: { status: 'INACTIVE' } }), instance: (id) => `/webhook/${id}` },
    ],
    [
      'point it elsewhere',
      {
        given: (api, id) => api.PATCH('/webhook/{id}', { params: { path: { id } }, body: { url: 'https://attacker.example.com/' } }),
        instance: (id) => `/webhook/${id}`,
      },
    ],
    [
      'point it at a refused URL',
      {
        given: (api, id) => api.PATCH('/webhook/{id}', { params: { path: { id } }, body: { url: 'http://example.com/' } }),
        instance: (id) => `/webhook/${id}`,
      },
    ],
    ['delete it', { given: (api, id) => api.DELETE('/webhook/{id}', { params: { path: { id } } }), instance: (id) => `/webhook/${id}` }],
    [
      'list its deliveries',
      { given: (api, id) => api.GET('/webhook/{id}/deliveries', { params: { path: { id } } }), instance: (id) => `/webhook/${id}/deliveries` },
    ],
  ];

  test.each(cases)('B cannot %s: 404, and A sees it unchanged', async (_name, { given, instance }) => {
    const mine = await register({ name: 'Somente A', url: 'https://somente-a.example.com/pix' });
    const attempts = [attempt(mine.id, 1, 1)];
    await recordAttempts(server.companyId, attempts);

    const { response, error } = await given(server.other.api, mine.id);
    expect(response.status).toBe(404);
    expect(error).toMatchObject({
      type: '/problems/not-found',
      status: 404,
      detail: `No webhook with id ${mine.id} exists for this company.`,
      instance: instance(mine.id),
    });
    const text = JSON.stringify(error);
    for (const leak of ['Somente A', 'somente-a.example.com', server.companyId, 'whsec_']) expect(text).not.toContain(leak);

    expect((await server.api.GET('/webhook/{id}', { params: { path: { id: mine.id } } })).data).toEqual(stored(mine));
    expect((await server.api.GET('/webhook/{id}/deliveries', { params: { path: { id: mine.id } } })).data).toEqual(attempts);
  });

  test('each company lists only its own registrations', async () => {
    const mine = await register({ name: 'De A' });
    const theirs = await register({ name: 'De B', url: 'https://padaria.example.com/hooks' }, server.other.api);
    expect(theirs.companyId).toBe(server.other.companyId);
    expect((await server.api.GET('/webhook')).data).toEqual([stored(mine)]);
    expect((await server.other.api.GET('/webhook')).data).toEqual([stored(theirs)]);
  });

  test("A cannot reach B's registration either", async () => {
    const theirs = await register({}, server.other.api);
    const path = { params: { path: { id: theirs.id } } };
    expect((await server.api.GET('/webhook/{id}', path)).response.status).toBe(404);
    expect((await server.api.PATCH('/webhook/{id}', { ...path, body: { name: 'x' } })).response.status).toBe(404);
    expect((await server.api.DELETE('/webhook/{id}', path)).response.status).toBe(404);
    expect((await server.api.GET('/webhook/{id}/deliveries', path)).response.status).toBe(404);
    expect((await server.other.api.GET('/webhook/{id}', path)).data).toEqual(stored(theirs));
  });
});

describe('the secret is never logged', () => {
  test('no log line of create, read, list, update, deliveries or a refused create holds it', async () => {
    const lines: string[] = [];
    // No redaction here: the secret must never reach the logger at all.
    server.deps.logger = pino({ level: 'trace' }, { write: (line: string) => void lines.push(line) });
    const created = await register();
    const path = { params: { path: { id: created.id } } };
    await server.api.GET('/webhook/{id}', path);
    await server.api.GET('/webhook');
    await server.api.PATCH('/webhook/{id}', { ...path, body: { name: 'Renomeado' } });
    await server.api.GET('/webhook/{id}/deliveries', path);
    await server.api.POST('/webhook', { body: createBody({ url: 'http://example.com/' }) });
    expect(lines.length).toBeGreaterThanOrEqual(6);
    expectNoSecret(lines.join('\n'), created.secret);
  });

  test('GET, list, PATCH, deliveries and a second POST never show an earlier secret', async () => {
    const created = await register();
    const texts = [
      (await read(await server.request(`/webhook/${created.id}`))).text,
      (await read(await server.request('/webhook'))).text,
      (await sendJson(server, 'PATCH', `/webhook/${created.id}`, { status: 'INACTIVE' })).text,
      (await read(await server.request(`/webhook/${created.id}/deliveries`))).text,
    ];
    for (const text of texts) expectNoSecret(text, created.secret);
    const second = (await sendJson(server, 'POST', '/webhook', createBody())).text;
    expect(second).not.toContain(created.secret);
    expect(second).not.toContain(created.secret.slice('whsec_'.length));
  });
});

describe('registration operations: authentication (D03)', () => {
  const operations: Array<[string, { method: string; path: (id: string) => string; body?: unknown }]> = [
    ['POST /webhook', { method: 'POST', path: () => '/webhook', body: createBody({ name: 'Sem chave' }) }],
    ['GET /webhook', { method: 'GET', path: () => '/webhook' }],
    ['PATCH /webhook/{id}', { method: 'PATCH', path: (id) => `/webhook/${id}`, body: { name: 'Sem chave' } }],
    ['DELETE /webhook/{id}', { method: 'DELETE', path: (id) => `/webhook/${id}` }],
    ['GET /webhook/{id}/deliveries', { method: 'GET', path: (id) => `/webhook/${id}/deliveries` }],
  ];
  const keys: Array<[string, () => string | null]> = [
    ['no X-API-KEY', () => null],
    ['a key that was never issued', () => `sk_${'a'.repeat(24)}_${'b'.repeat(43)}`],
  ];
  const cases = operations.flatMap(([op, given]) => keys.map(([keyName, key]) => [`${op} with ${keyName}`, { ...given, key }] as const));

  test.each(cases)('401 for %s, and nothing changes', async (_name, { method, path, body, key }) => {
    const created = await register();
    const init = body === undefined ? { method } : { method, body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } };
    const p = problem(await read(await server.request(path(created.id), { ...init, apiKey: key() })), 401);
    expect(p).toMatchObject({ type: '/problems/unauthorized', title: 'Unauthorized', status: 401 });
    expectNoSecret(JSON.stringify(p), created.secret);
    expect(JSON.stringify(p)).not.toContain(created.url);
    expect((await server.api.GET('/webhook')).data).toEqual([stored(created)]);
  });
});

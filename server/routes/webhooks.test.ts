/**
 * GET /webhook/{id}: a registration of the caller's company is returned as stored, without
 * its signing secret; unknown, malformed and foreign ids are 404 (D27); no key is 401 (D03).
 * Registrations are inserted through the store: the contract has no operation that creates one (D37).
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { newId } from '../domain/ids.js';
import { problem, read, unknownId } from '../test-support/fixtures.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';

type Webhook = components['schemas']['Webhook'];

let server: TestServer;

beforeEach(async () => {
  server = await createTestServer();
});

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

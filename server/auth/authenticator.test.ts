import { afterEach, describe, expect, test, vi } from 'vitest';
import { createCompanyWithKey } from '../bootstrap.js';
import { openTestStore, type TestStore } from '../test-support/engines.js';
import { Authenticator, KEY_CACHE_MS } from './authenticator.js';

let opened: TestStore | undefined;
afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

async function setUp() {
  opened = await openTestStore();
  const { store } = opened;
  const { apiKey, companyId } = await createCompanyWithKey(store, { name: 'Café Aurora Ltda', taxId: '45723174000110' });
  let now = 1_000_000;
  const clock = {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
  const reads = vi.spyOn(store, 'findApiKey');
  return { store, apiKey, companyId, clock, reads, auth: new Authenticator(store, clock.now) };
}

describe('Authenticator', () => {
  const flip = (key: string) => `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;
  const refusals: Array<[string, { given: (key: string) => string | undefined }]> = [
    ['no key', { given: () => undefined }],
    ['an empty key', { given: () => '' }],
    ['a malformed key', { given: (key) => key.slice(3) }],
    ['the right key id with a wrong secret', { given: flip }],
    ['an unknown key id', { given: (key) => `sk_${'z'.repeat(24)}${key.slice(27)}` }],
  ];

  test.each(refusals)('%s is refused', async (_name, { given }) => {
    const { auth, apiKey } = await setUp();
    expect(await auth.authenticate(given(apiKey))).toBeUndefined();
  });

  test('a valid key gives its company, also with spaces around it', async () => {
    const { auth, apiKey, companyId } = await setUp();
    expect((await auth.authenticate(` ${apiKey} `))?.company.doc.id).toBe(companyId);
  });

  test('a key is read from the store once a minute at most; a wrong secret is still refused from memory', async () => {
    const { auth, apiKey, clock, reads } = await setUp();
    await auth.authenticate(apiKey);
    clock.advance(KEY_CACHE_MS - 1);
    expect(await auth.authenticate(apiKey)).toBeDefined();
    expect(await auth.authenticate(flip(apiKey))).toBeUndefined();
    expect(reads).toHaveBeenCalledTimes(1);
    clock.advance(1);
    expect(await auth.authenticate(apiKey)).toBeDefined();
    expect(reads).toHaveBeenCalledTimes(2);
  });

  test('unknown keys are not kept: each is looked up again', async () => {
    const { auth, apiKey, reads } = await setUp();
    const unknown = `sk_${'z'.repeat(24)}${apiKey.slice(27)}`;
    await auth.authenticate(unknown);
    await auth.authenticate(unknown);
    expect(reads).toHaveBeenCalledTimes(2);
  });
});

describe('Authenticator, on a connection', () => {
  const flip = (key: string) => `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`;

  test('a key presented again on its connection is answered from memory; any other key is judged on its own', async () => {
    const { auth, apiKey, companyId, reads } = await setUp();
    const connection = {};
    expect((await auth.authenticate(apiKey, connection))?.company.doc.id).toBe(companyId);
    expect((await auth.authenticate(apiKey, connection))?.company.doc.id).toBe(companyId);
    // Behind a proxy one connection carries many callers: a wrong key on it is still refused.
    expect(await auth.authenticate(flip(apiKey), connection)).toBeUndefined();
    expect(await auth.authenticate(`${apiKey}x`, connection)).toBeUndefined();
    expect((await auth.authenticate(apiKey, connection))?.company.doc.id).toBe(companyId);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  test("a revoked key is refused on its connection once the key's minute is over", async () => {
    const { auth, apiKey, store, clock } = await setUp();
    const connection = {};
    await auth.authenticate(apiKey, connection);
    const keyId = /^sk_([a-z0-9]{24})_/.exec(apiKey)![1]!;
    await store.revokeApiKey(keyId);
    clock.advance(KEY_CACHE_MS - 1);
    expect(await auth.authenticate(apiKey, connection), 'within the minute, as documented').toBeDefined();
    clock.advance(1);
    expect(await auth.authenticate(apiKey, connection)).toBeUndefined();
  });

  test('fromConnection answers at once only for the key its connection presented last, within its minute', async () => {
    const { auth, apiKey, companyId, clock } = await setUp();
    const connection = {};
    expect(auth.fromConnection(apiKey, connection), 'nothing presented on it yet').toBeUndefined();
    await auth.authenticate(apiKey, connection);
    expect(auth.fromConnection(apiKey, connection)?.company.doc.id).toBe(companyId);
    expect(auth.fromConnection(apiKey, {}), 'another connection').toBeUndefined();
    expect(auth.fromConnection(flip(apiKey), connection)).toBeUndefined();
    expect(auth.fromConnection(`${apiKey}x`, connection)).toBeUndefined();
    expect(auth.fromConnection('', connection)).toBeUndefined();
    clock.advance(KEY_CACHE_MS);
    expect(auth.fromConnection(apiKey, connection), "past the key's minute").toBeUndefined();
  });
});

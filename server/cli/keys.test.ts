/**
 * The keys command as a process on a temporary database: the key it prints works
 * against an app on the same file, bad arguments exit 2 with a message, and the file holds
 * only the hash of the secret.
 */
// long-running: about 45 s (the keys command as a process); test/support/sequencer.ts starts it early
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { createTestServer } from '../test-support/harness.js';
import { freePort, haveTerminal, listening, startKeys, startTsx, useChildProcesses, within, type Exit, startBuiltServer } from '../test-support/processes.js';

interface Result extends Exit {
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI on the given database (its output a pipe, or a terminal), as the sandbox package
 * ships it (bundled, see `startKeys`), or with `via: 'tsx'` as `npm run keys` runs it; a run that
 * outlives the wait is killed and fails.
 */
async function keys(args: string[], databasePath: string, on: 'pipe' | 'terminal' = 'pipe', via: 'bundle' | 'tsx' = 'bundle'): Promise<Result> {
  const vars = { DATABASE_PATH: databasePath };
  const running = via === 'tsx' ? startTsx('server/cli/keys.ts', args, vars) : startKeys(args, vars, on);
  const exit = await within(running.exited, `keys ${args.join(' ')} to exit`);
  return { ...exit, stdout: running.stdout(), stderr: running.stderr() };
}

/** The file and its write-ahead log, if one is left, as bytes. */
function databaseBytes(databasePath: string): Buffer {
  const parts = [readFileSync(databasePath)];
  if (existsSync(`${databasePath}-wal`)) parts.push(readFileSync(`${databasePath}-wal`));
  return Buffer.concat(parts);
}

const API_KEY = /^sk_([a-z0-9]{24})_([A-Za-z0-9_-]{43})$/;

const folder = useChildProcesses('pix-keys-test-');
let counter = 0;
const freshDatabase = () => join(folder(), `keys-${++counter}`, 'payments.db');

describe('keys create', () => {
  test('--json prints the company id and a key that authenticates against an app on the same file', async () => {
    const databasePath = freshDatabase();
    // As `npm run keys -- create --company Acme --json` runs it (tsx); the other tests run the bundle.
    const result = await keys(['create', '--company', 'Acme', '--json'], databasePath, 'pipe', 'tsx');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);

    const printed = JSON.parse(result.stdout) as unknown;
    expect(printed).toEqual({ companyId: expect.stringMatching(/^comp_[a-z0-9]{24}$/), apiKey: expect.stringMatching(API_KEY) });
    const { companyId, apiKey } = printed as { companyId: string; apiKey: string };

    const server = await createTestServer({ databasePath });
    try {
      const listed = await server.request('/client', { apiKey });
      expect(listed.status).toBe(200);
      expect(await listed.json()).toEqual([]);

      const forged = await server.request('/client', { apiKey: apiKey.replace(API_KEY, (_m, id: string) => `sk_${id}_${'A'.repeat(43)}`) });
      expect(forged.status).toBe(401);

      const company = await server.deps.store.getCompany(companyId);
      expect(company?.doc.name).toBe('Acme');
      expect(company).not.toHaveProperty('pixKey');
      expect(server.violations).toEqual([]);
    } finally {
      await server.close();
    }
  });

  test.skipIf(!haveTerminal('the keys command on a terminal'))('the plain form prints the key on a terminal, and it works', async () => {
    const databasePath = freshDatabase();
    const result = await keys(
      [
        'create',
        '--company',
        'Padaria Pão Quente',
        '--tax-id',
        '11222333000181',
        '--pix-key',
        'Pix@PadariaPaoQuente.com.br',
        '--city',
        'Recife',
        '--color',
        '#112233',
      ],
      databasePath,
      'terminal',
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    const apiKey = /sk_[a-z0-9]{24}_[A-Za-z0-9_-]{43}/.exec(result.stdout)?.[0];
    expect(apiKey, result.stdout).toBeDefined();
    const companyId = /comp_[a-z0-9]{24}/.exec(result.stdout)?.[0];
    expect(companyId, result.stdout).toBeDefined();

    const server = await createTestServer({ databasePath });
    try {
      const listed = await server.request('/client', { apiKey: apiKey! });
      expect(listed.status).toBe(200);
      const company = await server.deps.store.getCompany(companyId!);
      // The key as the DICT holds it (lower case), and said so on the terminal (D43).
      expect(company).toMatchObject({
        city: 'Recife',
        color: '#112233',
        pixKey: 'pix@padariapaoquente.com.br',
        doc: { name: 'Padaria Pão Quente', cpfCnpj: '11222333000181' },
      });
      expect(result.stdout).toContain('Its live charges carry the Pix key pix@padariapaoquente.com.br.');
    } finally {
      await server.close();
    }
  });

  test('the plain form into a pipe or file (a log) prints no key and makes nothing; it says to add --json', async () => {
    const databasePath = freshDatabase();
    const result = await keys(['create', '--company', 'Acme'], databasePath);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).not.toMatch(/sk_[a-z0-9]{24}_/);
    expect(result.stderr).toMatch(/not a terminal.*add --json/);
    // Nothing was made: the database was not even opened.
    expect(existsSync(databasePath)).toBe(false);
  });

  test('the database file holds the hash of the secret, never the key or the secret', async () => {
    const databasePath = freshDatabase();
    const result = await keys(['create', '--company', 'Acme', '--json'], databasePath);
    expect(result.code).toBe(0);
    const { apiKey } = JSON.parse(result.stdout) as { apiKey: string };
    const [, keyId, secret] = API_KEY.exec(apiKey) ?? [];
    expect(keyId).toBeDefined();
    expect(secret).toBeDefined();

    const bytes = databaseBytes(databasePath);
    expect(bytes.includes(apiKey)).toBe(false);
    expect(bytes.includes(secret!)).toBe(false);
    // The key id finds the record, and the SHA-256 of the secret is what is stored.
    expect(bytes.includes(keyId!)).toBe(true);
    expect(bytes.includes(createHash('sha256').update(secret!).digest('hex'))).toBe(true);

    const store = new SqliteStore(databasePath);
    try {
      expect(await store.findApiKey(keyId!)).toMatchObject({ id: keyId, secretHash: createHash('sha256').update(secret!).digest('hex') });
    } finally {
      await store.close();
    }
    // Reading through a store did not write the secret either.
    expect(databaseBytes(databasePath).includes(secret!)).toBe(false);
  });
});

describe('keys with bad arguments', () => {
  test.each<[string, { given: string[]; want: { stderr: RegExp; lines?: number } }]>([
    ['no subcommand', { given: [], want: { stderr: /^Usage: npm run keys -- <command>/ } }],
    ['unknown subcommand', { given: ['delete', '--company', 'Acme'], want: { stderr: /^Usage: npm run keys -- <command>/ } }],
    ['an option of another command', { given: ['list', '--company', 'Acme'], want: { stderr: /^list takes no --company\n[\s\S]*Usage: npm run keys/ } }],
    ['issue without --company', { given: ['issue', '--json'], want: { stderr: /^--company must name the company/, lines: 1 } }],
    ['revoke without --key', { given: ['revoke'], want: { stderr: /^--key must name the key/, lines: 1 } }],
    ['revoke --key that names no key', { given: ['revoke', '--key', 'sk_live_abc'], want: { stderr: /^--key must name a key/, lines: 1 } }],
    ['reset without --company', { given: ['reset'], want: { stderr: /^--company must name the company/, lines: 1 } }],
    [
      'mode that is no mode',
      { given: ['mode', 'staging'], want: { stderr: /^The mode is development or production, not staging\.\n[\s\S]*Usage: npm run keys/ } },
    ],
    ['mode --change without a mode', { given: ['mode', '--change'], want: { stderr: /^--change needs the mode to record/, lines: 1 } }],
    ['mode with two modes', { given: ['mode', 'development', 'production'], want: { stderr: /^Usage: npm run keys -- <command>/ } }],
    ['two subcommands', { given: ['create', 'extra', '--company', 'Acme'], want: { stderr: /^Usage: npm run keys -- <command>/ } }],
    ['missing --company', { given: ['create'], want: { stderr: /^--company must be/, lines: 1 } }],
    ['blank --company', { given: ['create', '--company', '   '], want: { stderr: /^--company must be/, lines: 1 } }],
    ['--company without a value', { given: ['create', '--company'], want: { stderr: /--company/ } }],
    [
      '--tax-id with bad check digits',
      { given: ['create', '--company', 'Acme', '--tax-id', '11222333000182'], want: { stderr: /^--tax-id must be/, lines: 1 } },
    ],
    [
      '--pix-key that is no Pix key',
      { given: ['create', '--company', 'Acme', '--pix-key', 'acme'], want: { stderr: /^--pix-key must be a Pix key: /, lines: 1 } },
    ],
    [
      '--pix-key, a CNPJ with bad check digits',
      {
        given: ['create', '--company', 'Acme', '--pix-key', '11222333000182'],
        want: { stderr: /^--pix-key must be a Pix key: a CNPJ key needs valid check digits\n?$/, lines: 1 },
      },
    ],
    [
      '--pix-key, a landline',
      { given: ['create', '--company', 'Acme', '--pix-key', '+551133334444'], want: { stderr: /^--pix-key must be a Pix key: a phone key/, lines: 1 } },
    ],
    [
      '--pix-key, the unpayable key',
      { given: ['create', '--company', 'Acme', '--pix-key', 'sandbox@pix.invalid'], want: { stderr: /^--pix-key must be a Pix key: .*\.invalid/, lines: 1 } },
    ],
    ['--color that is not hex', { given: ['create', '--company', 'Acme', '--color', 'red'], want: { stderr: /^--color must be/, lines: 1 } }],
    ['an unknown flag', { given: ['create', '--company', 'Acme', '--bogus'], want: { stderr: /--bogus[\s\S]*Usage: npm run keys/ } }],
  ])('%s → exit 2 with a message and no key', async (_name, { given, want }) => {
    const databasePath = freshDatabase();
    const result = await keys(given, databasePath);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(want.stderr);
    expect(result.stderr).not.toContain('    at ');
    if (want.lines !== undefined) expect(result.stderr.split('\n').filter((line) => line.trim() !== '')).toHaveLength(want.lines);
    expect(result.stdout).not.toMatch(/sk_[a-z0-9]{24}_/);
    // Nothing was created: the arguments are checked before the database is opened.
    expect(existsSync(databasePath)).toBe(false);
  });
});

/** The key id of a key (the part before its secret), as `list` and `revoke` name it. */
const keyIdOfKey = (apiKey: string): string => API_KEY.exec(apiKey)![1]!;

/** `GET /client` with each key against a fresh app on the file (no key remembered from before): its status per key. */
async function statusesOn(databasePath: string, apiKeys: string[]): Promise<number[]> {
  const server = await createTestServer({ databasePath });
  try {
    return await Promise.all(apiKeys.map(async (apiKey) => (await server.request('/client', { apiKey })).status));
  } finally {
    await server.close();
  }
}

describe('a lost key: issue another for the company, revoke the lost one', () => {
  test('issue --json by id and by name; list shows every key by its id and no secret; revoke stops a key, the others work', async () => {
    const databasePath = freshDatabase();
    const first = JSON.parse((await keys(['create', '--company', 'Loja da Ana', '--json'], databasePath)).stdout) as { companyId: string; apiKey: string };
    await keys(['create', '--company', 'Outra Loja', '--json'], databasePath);

    const byId = await keys(['issue', '--company', first.companyId, '--json'], databasePath);
    expect(byId.stderr).toBe('');
    expect(byId.code).toBe(0);
    const second = JSON.parse(byId.stdout) as { companyId: string; apiKey: string };
    expect(second).toEqual({ companyId: first.companyId, apiKey: expect.stringMatching(API_KEY) });
    const byName = JSON.parse((await keys(['issue', '--company', 'Loja da Ana', '--json'], databasePath)).stdout) as { companyId: string; apiKey: string };
    expect(byName.companyId).toBe(first.companyId);
    expect(await statusesOn(databasePath, [first.apiKey, second.apiKey, byName.apiKey])).toEqual([200, 200, 200]);

    // The list goes to a pipe as it is (it holds no secret): every key by its id, oldest first.
    const listed = await keys(['list'], databasePath);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toMatch(/sk_[a-z0-9]{24}_[A-Za-z0-9_-]{43}/);
    const lines = listed.stdout.split('\n');
    const ana = lines.findIndex((line) => line.startsWith(`${first.companyId}  Loja da Ana  (created `));
    expect(ana, listed.stdout).toBeGreaterThanOrEqual(0);
    expect(lines.slice(ana + 1, ana + 4).map((line) => line.trim().split(/\s+/)[0])).toEqual(
      [first, second, byName].map(({ apiKey }) => `sk_${keyIdOfKey(apiKey)}_…`),
    );
    const asJson = JSON.parse((await keys(['list', '--json'], databasePath)).stdout) as Array<{ companyId: string; keys: Array<{ keyId: string }> }>;
    expect(asJson.find((company) => company.companyId === first.companyId)?.keys.map((key) => key.keyId)).toEqual(
      [first, second, byName].map(({ apiKey }) => keyIdOfKey(apiKey)),
    );

    // Revoked by its label as listed, by its id, by the whole key.
    for (const [named, apiKey] of [
      [`sk_${keyIdOfKey(first.apiKey)}_…`, first.apiKey],
      [keyIdOfKey(byName.apiKey), byName.apiKey],
    ] as const) {
      const revoked = await keys(['revoke', '--key', named], databasePath);
      expect(revoked.code, revoked.stderr).toBe(0);
      expect(revoked.stdout).toContain(`Revoked sk_${keyIdOfKey(apiKey)}_… of company ${first.companyId}`);
    }
    expect(await statusesOn(databasePath, [first.apiKey, second.apiKey, byName.apiKey])).toEqual([401, 200, 401]);
    const last = await keys(['revoke', '--key', second.apiKey], databasePath);
    expect(last.stdout).toContain(`The company has no key left: npm run keys -- issue --company ${first.companyId} makes one.`);
    const again = await keys(['revoke', '--key', second.apiKey], databasePath);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^No key sk_[a-z0-9]{24}_… in this database/);
    expect(again.stderr).not.toContain(second.apiKey);
  });

  test.skipIf(!haveTerminal('the keys command on a terminal'))('issue on a terminal prints the key once, and names the company’s other keys', async () => {
    const databasePath = freshDatabase();
    const first = JSON.parse((await keys(['create', '--company', 'Loja da Ana', '--json'], databasePath)).stdout) as { companyId: string; apiKey: string };
    const result = await keys(['issue', '--company', first.companyId], databasePath, 'terminal');
    expect(result.code).toBe(0);
    const apiKey = new RegExp(API_KEY.source.slice(1, -1)).exec(result.stdout)?.[0];
    expect(apiKey, result.stdout).toBeDefined();
    expect(result.stdout).toContain(`New API key of company ${first.companyId} (Loja da Ana), shown only now:`);
    expect(result.stdout).toContain(`sk_${keyIdOfKey(first.apiKey)}_…`);
    expect(await statusesOn(databasePath, [apiKey!])).toEqual([200]);
  });

  test.each<[string, { given: (companyId: string) => string[]; want: { code: number; stderr: RegExp } }]>([
    [
      'into a pipe without --json: nothing is issued',
      { given: (id) => ['issue', '--company', id], want: { code: 2, stderr: /not a terminal.*add --json.*Nothing was issued/ } },
    ],
    [
      'an unknown company id',
      { given: () => ['issue', '--company', 'comp_unknown0000000000000000', '--json'], want: { code: 1, stderr: /^No company comp_unknown/ } },
    ],
    ['a name no company has', { given: () => ['issue', '--company', 'Nobody', '--json'], want: { code: 1, stderr: /^No company is named "Nobody"/ } }],
    [
      'a name two companies have',
      { given: () => ['issue', '--company', 'Twin', '--json'], want: { code: 1, stderr: /^2 companies are named "Twin": name one by its id \(comp_/ } },
    ],
  ])('issue %s: no key, nothing issued', async (_name, { given, want }) => {
    const databasePath = freshDatabase();
    const first = JSON.parse((await keys(['create', '--company', 'Twin', '--json'], databasePath)).stdout) as { companyId: string };
    await keys(['create', '--company', 'Twin', '--json'], databasePath);
    const result = await keys(given(first.companyId), databasePath);
    expect(result.code).toBe(want.code);
    expect(result.stderr).toMatch(want.stderr);
    expect(result.stdout).not.toMatch(/sk_[a-z0-9]{24}_/);
    const listed = JSON.parse((await keys(['list', '--json'], databasePath)).stdout) as Array<{ keys: unknown[] }>;
    expect(listed.map((company) => company.keys.length)).toEqual([1, 1]);
  });
});

describe('keys reset', () => {
  /** Two companies with a client, a product and a webhook each, made through an app on the file. */
  async function twoCompanies(databasePath: string) {
    const made = JSON.parse((await keys(['create', '--company', 'Loja da Ana', '--json'], databasePath)).stdout) as { companyId: string; apiKey: string };
    const server = await createTestServer({ databasePath });
    try {
      for (const apiKey of [made.apiKey, server.apiKey]) {
        const json = { 'Content-Type': 'application/json' };
        const post = (path: string, body: unknown) => server.request(path, { method: 'POST', apiKey, headers: json, body: JSON.stringify(body) });
        expect(
          (await post('/client', { name: 'Maria', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'maria@example.com', phone: '11987654321' })).status,
        ).toBe(201);
        expect((await post('/product', { name: 'Café', description: 'Torrado', price: 39.9, sku: 'CAFE', displayId: 'cafe' })).status).toBe(201);
        expect((await post('/webhook', { url: 'https://shop.example.com/hooks', name: 'Shop', events: ['charge.paid'] })).status).toBe(201);
      }
      return { ana: made, other: { companyId: server.companyId, apiKey: server.apiKey } };
    } finally {
      await server.close();
    }
  }

  /** How many clients and webhooks each key's company has, read by a fresh app on the file. */
  async function holdings(databasePath: string, apiKeys: string[]) {
    const server = await createTestServer({ databasePath });
    try {
      return await Promise.all(
        apiKeys.map(async (apiKey) => ({
          clients: ((await (await server.request('/client', { apiKey })).json()) as unknown[]).length,
          webhooks: ((await (await server.request('/webhook', { apiKey })).json()) as unknown[]).length,
        })),
      );
    } finally {
      await server.close();
    }
  }

  test("deletes the named company's records, counts them; its key still works; the other company's records stay", async () => {
    const databasePath = freshDatabase();
    const { ana, other } = await twoCompanies(databasePath);
    // The database says it is a development one (D51), as the first development server on it records.
    expect((await keys(['mode', 'development'], databasePath)).stdout).toBe("Recorded: this database is a development deployment's.\n");
    const result = await keys(['reset', '--company', 'Loja da Ana'], databasePath);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      `Reset company ${ana.companyId} (Loja da Ana): deleted 0 charges, 1 clients, 1 products, 0 subscriptions, 0 orders, 1 webhooks, and their webhook events. Its keys still work.\n`,
    );
    expect(await holdings(databasePath, [ana.apiKey, other.apiKey])).toEqual([
      { clients: 0, webhooks: 0 },
      { clients: 1, webhooks: 1 },
    ]);
  });

  test('beside a running server, whose mode the command cannot know: nothing deleted, one line giving both cases, each as the server answers it', async () => {
    for (const mode of ['development', 'production'] as const) {
      const databasePath = freshDatabase();
      const { ana } = await twoCompanies(databasePath);
      const port = await freePort();
      const server = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(port), NODE_ENV: mode });
      await listening(server);
      const result = await keys(['reset', '--company', ana.companyId], databasePath);
      expect(result.code).toBe(1);
      expect(result.stderr.split('\n')).toEqual([
        `A server is running on ${databasePath} (it holds ${databasePath}-lock) and keeps what it read in memory, so a reset made here would not be seen by it. ` +
          "Nothing was deleted. If that server runs in development, reset through it with the company's key: " +
          'curl -X POST -H "X-API-KEY: $PIX_API_KEY" "$PIX_BASE_URL/sandbox/reset" (npm run keys -- issue --company … gives the company a key), or stop it first; ' +
          "if it runs in production (NODE_ENV=production), its companies' records are never reset: it refuses that request (403), and this command is not for its database.",
        '',
      ]);
      // The request the line gives, sent as it says: the development server resets, the production one refuses.
      const reset = await fetch(`http://127.0.0.1:${port}/sandbox/reset`, { method: 'POST', headers: { 'X-API-KEY': ana.apiKey } });
      expect(reset.status, mode).toBe(mode === 'development' ? 200 : 403);
      const clients = (await (await fetch(`http://127.0.0.1:${port}/client`, { headers: { 'X-API-KEY': ana.apiKey } })).json()) as unknown[];
      expect(clients.length, mode).toBe(mode === 'development' ? 0 : 1);
      server.child.kill('SIGTERM');
      await within(server.exited, 'the server to stop');
    }
  });

  test('a production deployment refuses: exit 1, the reason, nothing deleted', async () => {
    const databasePath = freshDatabase();
    const { ana } = await twoCompanies(databasePath);
    const running = startKeys(['reset', '--company', ana.companyId], { DATABASE_PATH: databasePath, NODE_ENV: 'production' });
    const exit = await within(running.exited, 'keys reset to exit');
    expect(exit.code).toBe(1);
    expect(running.stderr()).toMatch(/^This deployment runs in production, .* Nothing was deleted\.\n$/);
    expect(await holdings(databasePath, [ana.apiKey])).toEqual([{ clients: 1, webhooks: 1 }]);
  });
});

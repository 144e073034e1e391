/**
 * `tsx server/cli/keys.ts` as a process on a temporary database: the key it prints works
 * against an app on the same file, bad arguments exit 2 with a message, and the file holds
 * only the hash of the secret.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { SqliteStore } from '../store/sqlite/sqlite-store.js';
import { createTestServer } from '../test-support/harness.js';
import { haveTerminal, startTsx, startTsxOnTerminal, useChildProcesses, within, type Exit } from '../test-support/processes.js';

interface Result extends Exit {
  stdout: string;
  stderr: string;
}

/** Runs the CLI on the given database (its output a pipe, or a terminal); a run that outlives the wait is killed and fails. */
async function keys(args: string[], databasePath: string, on: 'pipe' | 'terminal' = 'pipe'): Promise<Result> {
  const running = (on === 'terminal' ? startTsxOnTerminal : startTsx)('server/cli/keys.ts', args, { DATABASE_PATH: databasePath });
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
    const result = await keys(['create', '--company', 'Acme', '--json'], databasePath);
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
    ['no subcommand', { given: [], want: { stderr: /^Usage: npm run keys -- create --company/ } }],
    ['unknown subcommand', { given: ['delete', '--company', 'Acme'], want: { stderr: /^Usage: npm run keys -- create --company/ } }],
    ['two subcommands', { given: ['create', 'extra', '--company', 'Acme'], want: { stderr: /^Usage: npm run keys -- create --company/ } }],
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

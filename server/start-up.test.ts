/** What start-up tells a person: the line for a port that cannot be had, where to click, how to make a key. */
import { createServer } from 'node:net';
import { describe, expect, test } from 'vitest';
import { freePort } from '../lib/net/free-port.js';
import { keysCommand, keysCommandName, listen, listenProblem, localOrigin, startUpLines, type StartState } from './start-up.js';

const at = { port: 3000, host: '127.0.0.1' };

describe('listenProblem', () => {
  test.each<[string, string | undefined]>([
    ['EADDRINUSE', 'Could not start: port 3000 on 127.0.0.1 is already in use (set PORT to another port).'],
    ['EACCES', 'Could not start: no permission to listen on port 3000 on 127.0.0.1 (set PORT to a port above 1023).'],
    ['EADDRNOTAVAIL', 'Could not start: 127.0.0.1 is not an address of this machine (set HOST to one of its addresses, or 0.0.0.0 for every interface).'],
    ['ENOTFOUND', 'Could not start: HOST 127.0.0.1 does not resolve to an address (set HOST to an address of this machine).'],
    ['EMFILE', undefined],
  ])('%s', (code, want) => {
    expect(listenProblem(Object.assign(new Error('listen failed'), { code }), at)).toBe(want);
  });

  test('an error without a code is not a listen problem', () => {
    expect(listenProblem(new Error('boom'), at)).toBeUndefined();
    expect(listenProblem(undefined, at)).toBeUndefined();
  });
});

describe('listen', () => {
  test('resolves with the port, or rejects with EADDRINUSE when another server holds it', async () => {
    const port = await freePort();
    const first = createServer();
    const second = createServer();
    try {
      expect(await listen(first, port, '127.0.0.1')).toEqual({ port });
      const error = await listen(second, port, '127.0.0.1').catch((e: unknown) => e);
      expect(listenProblem(error, { port, host: '127.0.0.1' })).toContain(`port ${port} on 127.0.0.1 is already in use`);
    } finally {
      await new Promise((resolve) => first.close(resolve));
    }
  });

  test('port 0 resolves with the port it got', async () => {
    const server = createServer();
    try {
      const { port } = await listen(server, 0, '127.0.0.1');
      expect(port).toBeGreaterThan(0);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('localOrigin', () => {
  test.each([
    ['127.0.0.1', 'http://localhost:3000'],
    ['0.0.0.0', 'http://localhost:3000'],
    ['::', 'http://localhost:3000'],
    ['::1', 'http://localhost:3000'],
    ['localhost', 'http://localhost:3000'],
    ['192.168.1.20', 'http://192.168.1.20:3000'],
    ['fd00::5', 'http://[fd00::5]:3000'],
    ['sandbox.internal', 'http://sandbox.internal:3000'],
  ])('HOST=%s → %s', (host, want) => {
    expect(localOrigin(host, 3000)).toBe(want);
  });
});

describe('keysCommand', () => {
  test.each<[string, { databasePath: string; databaseUrl: string | undefined }, string]>([
    ['the default file', { databasePath: './data/payments.db', databaseUrl: undefined }, 'npm run keys -- create --company "Name"'],
    [
      'another file',
      { databasePath: '/tmp/pix/db.sqlite', databaseUrl: undefined },
      'DATABASE_PATH=/tmp/pix/db.sqlite npm run keys -- create --company "Name"',
    ],
    [
      'a file with a space and a quote',
      { databasePath: "/tmp/my pix/o'brien.db", databaseUrl: undefined },
      `DATABASE_PATH='/tmp/my pix/o'\\''brien.db' npm run keys -- create --company "Name"`,
    ],
    [
      'PostgreSQL (the URL is never shown)',
      { databasePath: './data/payments.db', databaseUrl: 'postgres://pix:hunter2@db/pix' },
      'npm run keys -- create --company "Name"  (with the same DATABASE_URL)',
    ],
  ])('%s', (_what, config, want) => {
    expect(keysCommand(config)).toBe(want);
  });
});

describe('keysCommandName', () => {
  test('npm run keys in a clone; the command the sandbox package names where it runs the server', () => {
    expect(keysCommandName({})).toBe('npm run keys --');
    expect(keysCommandName({ PIX_KEYS_COMMAND: '  ' })).toBe('npm run keys --');
    expect(keysCommandName({ PIX_KEYS_COMMAND: 'npx pix-keys' })).toBe('npx pix-keys');
  });
});

describe('startUpLines', () => {
  const config = { publicUrl: 'http://localhost:3000', databasePath: './data/payments.db', databaseUrl: undefined };
  const where = 'Pix sandbox listening on http://localhost:3000  (docs: http://localhost:3000/docs/)';

  test.each<[string, typeof config, StartState, string[]]>([
    ['a new database (its key is printed above)', config, 'created the development company', [where]],
    [
      'a database with companies',
      config,
      'had companies',
      [
        where,
        'This database already has companies, so no key is shown. Another key for one of them (say, a lost one): ' +
          'npm run keys -- issue --company "Sandbox Company"; a new company and its key: npm run keys -- create --company "Name"',
      ],
    ],
    [
      'payment pages elsewhere',
      { ...config, publicUrl: 'https://pay.example.com' },
      'created the development company',
      [where, 'Payment pages link to https://pay.example.com (PUBLIC_URL).'],
    ],
    [
      'a production start on an empty database (no key is made)',
      config,
      'no company',
      [where, 'No company yet: every request is answered 401 until one is made. Make a company and its API key with: npm run keys -- create --company "Name"'],
    ],
  ])('%s', (_what, given, state, want) => {
    expect(startUpLines(given, 'http://localhost:3000', state)).toBe(`${want.join('\n')}\n\n`);
  });
});

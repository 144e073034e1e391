/**
 * The docs pages leave gzipped for a client that takes gzip (Redoc's inlined script makes the
 * page 2.8 MB; no Redoc option shrinks it): checked with `curl --compressed` on a real socket,
 * as a reader's browser fetches it, and the Accept-Encoding rules table-driven.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { acceptsGzip, docsRoutes } from './docs.js';
import { serveOnLoopback, type Listening } from '../test-support/loopback.js';

describe('acceptsGzip', () => {
  test.for([
    ['no header', { given: undefined, want: false }],
    ["a browser's header", { given: 'gzip, deflate, br, zstd', want: true }],
    ['gzip with a weight', { given: 'br;q=1.0, gzip;q=0.8', want: true }],
    ['gzip refused', { given: 'gzip;q=0, br', want: false }],
    ['anything', { given: '*', want: true }],
    ['anything but gzip', { given: 'gzip;q=0, *', want: false }],
    ['identity only', { given: 'identity', want: false }],
    ['upper case and spaces', { given: ' GZIP ; Q=0.5 ', want: true }],
  ] as const)('%s', ([, { given, want }]) => {
    expect(acceptsGzip(given)).toBe(want);
  });
});

describe('a docs page over a socket', () => {
  const folder = mkdtempSync(join(tmpdir(), 'docs-gzip-'));
  const html = `<!doctype html><title>Docs</title>${'<p>Pix, cobrança e webhooks.</p>'.repeat(20_000)}`;
  let test_: TestServer;
  let http: Listening | undefined;
  let base = '';

  beforeAll(async () => {
    writeFileSync(join(folder, 'index.html'), html);
    test_ = await createTestServer();
    const app = docsRoutes(test_.deps, `${folder}/`);
    http = await serveOnLoopback(app.fetch);
    base = http.base;
  });
  afterAll(async () => {
    await http?.close();
    await test_?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  const curl = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)('curl', ['-sS', ...args], { maxBuffer: 16 * 1024 * 1024, encoding: 'buffer' });
    return stdout;
  };

  test('curl --compressed gets it gzipped, and the same page once inflated', async () => {
    const headers = (await curl('-D', '-', '-o', '/dev/null', '--compressed', `${base}/docs/`)).toString();
    expect(headers).toMatch(/content-encoding: gzip/i);
    expect(headers).toMatch(/vary: accept-encoding/i);
    const wire = await curl('-H', 'Accept-Encoding: gzip', `${base}/docs/`);
    expect(wire.length).toBeLessThan(Buffer.byteLength(html) / 10);
    expect((await curl('--compressed', `${base}/docs/`)).toString()).toBe(html);
  });

  test('a client that does not ask for gzip gets the page as it is', async () => {
    const headers = (await curl('-D', '-', '-o', '/dev/null', `${base}/docs/`)).toString();
    expect(headers).not.toMatch(/content-encoding/i);
    expect((await curl(`${base}/docs/`)).toString()).toBe(html);
  });
});

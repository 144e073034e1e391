/**
 * The contract files as a docs tool on another origin loads them (Swagger Editor, a browser
 * Postman): a page served by a second tiny server (another port, so another origin) fetches
 * from a running reference server in headless Chromium. The contract files load (D37); an API
 * operation and a payment page's status fail with a CORS error. Skipped, with a notice, where
 * no Chromium is installed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { haveChromium, launchChromium } from '../support/chromium.js';

const chromiumHere = haveChromium('the CORS browser tests');

let server: TestServer;
let http: ServerType;
let tool: Server;
let browser: Browser;
let page: Page;
let api = '';
let toolOrigin = '';
let chargeId = '';
const consoleErrors: string[] = [];

async function listen(target: Server | ServerType): Promise<string> {
  if (!target.listening) await new Promise((resolve) => target.once('listening', resolve));
  return `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
}

/** What a `fetch` from the tool's page came to: the text it read, or the error it failed with. */
type Outcome = { ok: true; status: number; text: string } | { ok: false; error: string };

function fetchFromTool(url: string, headers: Record<string, string> = {}): Promise<Outcome> {
  return page.evaluate(
    async ([url, headers]) => {
      try {
        const response = await fetch(url, { headers });
        return { ok: true as const, status: response.status, text: await response.text() };
      } catch (error) {
        return { ok: false as const, error: String(error) };
      }
    },
    [url, headers] as const,
  );
}

describe.skipIf(!chromiumHere)('the contract files from a page of another origin, in a real browser', () => {
  beforeAll(async () => {
    server = await createTestServer();
    const { data } = await server.api.POST('/charge/payment-link', { body: { total: 2500, devMode: true } });
    chargeId = data!.data.id;
    http = serve({ fetch: server.app.fetch, port: 0, hostname: '127.0.0.1' });
    api = await listen(http);
    // The docs tool: one empty page, on its own port.
    tool = createServer((_request, response) => {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Docs tool</title><link rel="icon" href="data:,"></head><body></body></html>',
      );
    });
    tool.listen(0, '127.0.0.1');
    toolOrigin = await listen(tool);
    expect(toolOrigin).not.toBe(api);

    browser = await launchChromium();
    page = await browser.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    await page.goto(`${toolOrigin}/`, { waitUntil: 'load' });
    expect(await page.evaluate('location.origin')).toBe(toolOrigin);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => http?.close(resolve));
    await new Promise((resolve) => tool?.close(resolve));
    await server?.close();
  });

  test('/openapi.json loads, and its `openapi` is read', async () => {
    const outcome = await fetchFromTool(`${api}/openapi.json`);
    expect(outcome).toMatchObject({ ok: true, status: 200 });
    expect(outcome.ok && JSON.parse(outcome.text).openapi).toMatch(/^3\.1\.\d+$/);
  });

  test('/openapi.yaml loads, with a header that needs a preflight too', async () => {
    const outcome = await fetchFromTool(`${api}/openapi.yaml`, { 'X-Requested-With': 'docs-tool' });
    expect(outcome).toMatchObject({ ok: true, status: 200 });
    expect(outcome.ok && outcome.text).toMatch(/^openapi: 3\.1\.\d+$/m);
  });

  test.each([
    ['an API operation, with its key (preflighted)', { path: () => `/charge/${chargeId}`, headers: () => ({ 'X-API-KEY': server.apiKey }) }],
    ['a payment page status (a simple request)', { path: () => `/pay/${chargeId}/status`, headers: () => ({}) }],
  ])('%s fails with a CORS error', async (_name, { path, headers }) => {
    consoleErrors.length = 0;
    const url = `${api}${path()}`;
    const outcome = await fetchFromTool(url, headers());
    expect(outcome).toEqual({ ok: false, error: 'TypeError: Failed to fetch' });
    // Chromium says why: the answer did not allow the tool's origin.
    await expect.poll(() => consoleErrors.some((line) => line.includes(url) && line.includes('blocked by CORS policy'))).toBe(true);
  });
});

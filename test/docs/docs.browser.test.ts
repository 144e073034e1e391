/**
 * The docs as a reader gets them: /docs of a running reference server in headless Chromium
 * (Debian's package, driven by playwright-core). Skipped, with a notice, where no Chromium is
 * installed; CI installs it (.ci/run).
 *
 * @full-run-only: it enumerates the contract's operations, but `npm run test:operation` leaves it to `npm test`: it needs Chromium and half a minute; the docs samples it runs are checked in the loop by the code-samples tests.
 */
// long-running: about 100 s (the docs page in Chromium); test/support/sequencer.ts starts it early
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { haveChromium, launchChromium } from '../support/chromium.js';
import { frameFromAnotherOrigin, reportCspViolations } from '../support/framing.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundledContractPath, listOperations, loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { pageDefinition, pageOperations } from '../../scripts/docs/page-order.js';
import { buildDocs, docsDir } from '../../scripts/docs/build.js';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { serveOnLoopback, type Listening } from '../../server/test-support/loopback.js';

const chromiumHere = haveChromium('the docs browser tests');

const operations = listOperations();
let server: TestServer;
let http: Listening | undefined;
let browser: Browser;
let page: Page;
let base = '';
const offHost: string[] = [];
/**
 * The one refusal the docs' policy (D50) is expected to cause: Redoc's search asks whether it may
 * compile a function (to run its index in a worker), is refused (no 'unsafe-eval'), and searches
 * on the page instead. Any other violation, or this one anywhere but in a script, fails a test.
 */
const redocsEvalProbe = /^CSP violation: script-src eval at \d+:\d+$/;
const consoleErrors: string[] = [];

describe.skipIf(!chromiumHere)('/docs in a real browser', () => {
  beforeAll(async () => {
    buildDocs();
    server = await createTestServer();
    http = await serveOnLoopback(server.app.fetch);
    base = http.base;
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url());
      if (url.protocol === 'data:' || url.hostname === '127.0.0.1' || url.hostname === 'localhost') return route.continue();
      offHost.push(url.href);
      return route.abort();
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.addInitScript(reportCspViolations);
    const response = await page.goto(`${base}/docs`, { waitUntil: 'load' });
    // Served under its Content-Security-Policy (D50), which the page must work under.
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.url()).toBe(`${base}/docs/`);
    expect(response?.status()).toBe(200);
    await page.locator('[data-component-name="Menu/MenuItem"]').first().waitFor();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await server?.close();
  });

  const menuItem = (text: string) => page.locator(`[data-component-name="Menu/MenuItem"] [data-text="${text}"]`).first();
  /** The side menu's name of a tag: its `x-displayName` on the page, else its name. */
  const tagLabel = (tag: string) => {
    const shown = ((pageDefinition(readFileSync(join(docsDir, 'index.html'), 'utf8')).tags ?? []) as JsonObject[]).find((t) => t.name === tag);
    return String(shown?.['x-displayName'] ?? tag);
  };

  /** Opens the operation's tag in the side menu (a tag toggles, so try again if it closed). */
  async function reveal(op: (typeof operations)[number]): Promise<boolean> {
    const item = menuItem(String((op.operation as JsonObject).summary));
    for (let attempt = 0; attempt < 3 && !(await item.isVisible()); attempt++) {
      await menuItem(tagLabel((op.operation.tags as string[])[0]!)).click();
      await page.waitForTimeout(200);
    }
    return item.isVisible();
  }

  test.each(operations.map((op) => [op.operationId, op] as const))('the side menu shows %s by its summary', async (_operationId, op) => {
    // Operations show under their tag once it is opened, as a reader would open it.
    expect(await reveal(op)).toBe(true);
    expect(await menuItem(String((op.operation as JsonObject).summary)).innerText()).toBe(String((op.operation as JsonObject).summary));
  });

  test('clicking an operation scrolls to it and shows its request samples: curl, TypeScript, the payload', async () => {
    const target = operations.find((op) => op.operationId === 'createPaymentLink')!;
    const summary = String((target.operation as JsonObject).summary);
    expect(await reveal(target)).toBe(true);
    await menuItem(summary).click();
    await expect.poll(() => page.url()).toMatch(new RegExp(`#/[a-z-]+/${target.operationId.toLowerCase()}$`));
    // The operation's heading (h1 on its own page, h2 within its tag's) is scrolled into view.
    const heading = page.locator('h1, h2', { hasText: summary }).first();
    await expect
      .poll(async () => {
        const box = await heading.boundingBox({ timeout: 1_000 }).catch(() => null);
        return box !== null && box.y >= 0 && box.y < 900;
      })
      .toBe(true);
    const section = page.locator(`[id$="/${target.operationId.toLowerCase()}"]`).first();
    expect(await section.innerText()).toContain('Base URL');
    // The request panel opens on the curl sample, with the variables a reader exports.
    const code = (text: string) => section.locator('pre', { hasText: text }).first();
    await expect.poll(() => code('RESPONSE=$(curl -sS -i "$PIX_BASE_URL/charge/payment-link"').isVisible()).toBe(true);
    expect(await code('RESPONSE=$(curl').innerText()).toContain('"productId": "$PRODUCT_ID"');
    // The other samples, chosen as a reader chooses them, from the panel's language menu.
    const chooseLanguage = async (name: string) => {
      await section
        .locator('button[aria-haspopup="menu"]', { hasText: /^(curl|TypeScript|Payload)$/ })
        .first()
        .click();
      await page.getByRole('menuitem', { name }).or(page.getByRole('option', { name })).first().click();
    };
    await chooseLanguage('TypeScript');
    await expect.poll(() => code("pix.base.POST('/charge/payment-link'").isVisible()).toBe(true);
    await chooseLanguage('Payload');
    await expect.poll(() => section.getByText('"productId"').first().isVisible()).toBe(true);
    await chooseLanguage('curl');
  });

  test('the side menu shows the operations in the order their samples run (tag by tag)', async () => {
    const order = pageOperations(pageDefinition(readFileSync(join(docsDir, 'index.html'), 'utf8')));
    const tags = [...new Set(order.map((op) => op.tag))];
    const labels = () =>
      page.locator('[data-component-name="Menu/MenuItem"] [data-text]').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-text') ?? ''));
    const shownTags = (await labels()).filter((label) => tags.map(tagLabel).includes(label));
    expect(shownTags).toEqual(tags.map(tagLabel));
    for (const tag of tags) {
      const ops = order.filter((op) => op.tag === tag);
      expect(await reveal(operations.find((op) => op.operationId === ops[0]!.operationId)!)).toBe(true);
      const summaries = ops.map((op) => op.summary);
      expect((await labels()).filter((label) => summaries.includes(label)).slice(0, summaries.length), tag).toEqual(summaries);
    }
  });

  test.each(['openapi.yaml', 'openapi.json'])('the download link %s at the top gives the contract the page renders', async (name) => {
    await page.goto(`${base}/docs/`, { waitUntil: 'load' });
    const link = page.locator(`a[href="${name}"]`).first();
    await expect.poll(() => link.isVisible()).toBe(true);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.url()).toBe(`${base}/docs/${name}`);
    const text = readFileSync((await download.path())!, 'utf8');
    if (name.endsWith('.yaml')) expect(text).toBe(readFileSync(bundledContractPath, 'utf8'));
    else expect(JSON.parse(text)).toEqual(loadBundledContract());
  });

  test('the introduction has the base-URL table, with every operation of the contract', async () => {
    await menuItem('Two base URLs').click();
    const table = page.locator('table', { has: page.locator('th', { hasText: /^Base URL$/ }) }).first();
    await expect.poll(() => table.isVisible()).toBe(true);
    const rows = (await table.locator('tbody tr').allInnerTexts()).map((row) => row.split('\t').map((cell) => cell.trim()));
    expect(rows.map((row) => row.join(' ')).sort()).toEqual(
      operations.map((op) => `{${op.server}} ${op.method.toUpperCase()} ${op.path} ${String(op.operation.summary)}`).sort(),
    );
  });

  test('the introduction lists the decisions, linked to the decisions page; the old DECISIONS.md address leads there', async () => {
    await menuItem('Contract decisions').click();
    await expect.poll(() => page.locator('h2', { hasText: 'Contract decisions' }).first().isVisible()).toBe(true);
    expect(await page.locator('a[href="decisions.html#D01"]').count()).toBeGreaterThan(0);
    const old = await page.request.get(`${base}/docs/DECISIONS.md`);
    expect(old.url()).toBe(`${base}/docs/decisions.html`);
    expect(old.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(await old.text()).toContain('<section id="D01">');
  });

  test('the search finds an operation by words of its summary, and opens it', async () => {
    // The search box of the side menu opens Redoc's search dialog, whose input then has the focus.
    await page
      .getByPlaceholder(/^Search/)
      .or(page.getByText(/^Search/))
      .first()
      .click();
    await page.keyboard.type('payment link');
    const hit = page.locator('[role="dialog"], [data-component-name*="Search" i]').getByText('Create a payment link').first();
    await expect.poll(() => hit.isVisible(), { timeout: 10_000 }).toBe(true);
    await hit.click();
    await expect.poll(() => page.url()).toMatch(/#\/[a-z-]+\/createpaymentlink$/);
  });

  test("an operation's decision mark opens the decisions page at that decision", async () => {
    const other = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const otherErrors: string[] = [];
    other.on('console', (message) => {
      if (message.type() === 'error') otherErrors.push(message.text());
    });
    await other.addInitScript(reportCspViolations);
    await other.goto(`${base}/docs/#/charges/createpaymentlink`, { waitUntil: 'load' });
    const section = other.locator('[id$="/createpaymentlink"]').first();
    const mark = section.locator('a[href="decisions.html#D10"]').first();
    await expect.poll(() => mark.isVisible()).toBe(true);
    await mark.click();
    await expect.poll(() => other.url()).toBe(`${base}/docs/decisions.html#D10`);
    const decision = other.locator('section#D10');
    expect(await decision.evaluate((element) => element.matches(':target'))).toBe(true);
    const box = await decision.boundingBox();
    expect(box !== null && box.y >= 0 && box.y < 900).toBe(true);
    expect(await decision.locator('h2').innerText()).toContain('Idempotency-Key');
    // Back to the reference from there.
    await other.locator('nav a[href="./"]').click();
    await expect.poll(() => other.url()).toBe(`${base}/docs/`);
    await other.close();
    expect(otherErrors.filter((text) => !redocsEvalProbe.test(text))).toEqual([]);
  });

  test.each(['/docs/', '/docs/decisions.html'])('a page of another origin cannot frame %s', async (path) => {
    const { framed, frameUrl, messages } = await frameFromAnotherOrigin(browser, `${base}${path}`, 'h1, h2');
    expect(framed, `framed as ${frameUrl}`).toBe(false);
    expect(messages.join('\n')).toMatch(/frame-ancestors 'none'/);
  });

  test('at a laptop width (1366x768) it reads like API docs first (issue 39); screenshots are saved', async () => {
    const laptop = await browser.newPage({ viewport: { width: 1366, height: 768 } });
    await laptop.goto(`${base}/docs/#/charges/createpaymentlink`, { waitUntil: 'load' });
    const section = laptop.locator('[id$="/createpaymentlink"]').first();
    const footnote = section.getByText('Decided by this contract where the').first();
    await expect.poll(() => footnote.isVisible()).toBe(true);
    await laptop.screenshot({ path: join(docsDir, 'screenshot-operation-1366.png') });
    // The operation's own description comes first, its decisions after, on one line.
    const description = String(operations.find((op) => op.operationId === 'createPaymentLink')!.operation.description).split('\n')[0]!;
    const first = section.getByText(description.slice(0, 30)).first();
    expect((await first.boundingBox())!.y).toBeLessThan((await footnote.boundingBox())!.y);
    expect(await section.innerText()).not.toContain('Not documented by the source');
    // The curl sample wraps inside its panel: nothing runs past the right edge.
    const curl = section.locator('pre', { hasText: 'RESPONSE=$(curl' }).first();
    await expect.poll(() => curl.isVisible()).toBe(true);
    expect(await curl.evaluate((pre) => pre.scrollWidth <= pre.clientWidth)).toBe(true);
    const panel = (await curl.boundingBox())!;
    expect(panel.x + panel.width).toBeLessThanOrEqual(1366);
    // One "Webhooks" in the side menu: the webhook events' group (an item of its own, not a
    // Menu/MenuItem), within the registrations' tag, once that is open.
    const registrations = operations.find((op) => op.operationId === 'createWebhook') ?? operations.find((op) => op.path === '/webhook')!;
    const tag = laptop.locator(`[data-component-name="Menu/MenuItem"] [data-text="${tagLabel((registrations.operation.tags as string[])[0]!)}"]`).first();
    const inside = laptop.locator(`[data-component-name="Menu/MenuItem"] [data-text="${String(registrations.operation.summary)}"]`).first();
    for (let attempt = 0; attempt < 3 && !(await inside.isVisible()); attempt++) {
      await tag.click();
      await laptop.waitForTimeout(200);
    }
    const webhooks = () =>
      laptop.locator('li [data-text]').evaluateAll((nodes) => nodes.filter((node) => node.getAttribute('data-text') === 'Webhooks').length);
    await expect.poll(webhooks).toBe(1);
    // The top: the integrator's guide linked, verifyWebhook named, the servers with their default address.
    await laptop.goto(`${base}/docs/`, { waitUntil: 'load' });
    const guide = laptop.locator('a[href="integrating.html"]').first();
    await expect.poll(() => guide.isVisible()).toBe(true);
    const top = await laptop.locator('body').innerText();
    expect(top).toContain('verifyWebhook(secret, headers, rawBody)');
    expect(top).toContain('generate one client per document');
    const servers = laptop.getByText('http://localhost:3000', { exact: true }).first();
    await expect.poll(() => servers.isVisible()).toBe(true);
    expect(await laptop.getByText('Show 1 variable').count()).toBe(0);
    await laptop.screenshot({ path: join(docsDir, 'screenshot-top-1366.png') });
    await guide.click();
    await expect.poll(() => laptop.url()).toBe(`${base}/docs/integrating.html`);
    expect(await laptop.locator('body').innerText()).toContain('verifyWebhook');
    await laptop.close();
  });

  test('no console error, no request off this host; a full-page screenshot is saved', async () => {
    mkdirSync(docsDir, { recursive: true });
    await page.screenshot({ path: join(docsDir, 'screenshot.png'), fullPage: true });
    expect(existsSync(join(docsDir, 'screenshot.png'))).toBe(true);
    expect(consoleErrors.filter((text) => !redocsEvalProbe.test(text))).toEqual([]);
    expect(offHost).toEqual([]);
  });
  test('the built file works opened from disk too, with nothing loaded from elsewhere', async () => {
    const other = await browser.newPage();
    const requests: string[] = [];
    other.on('request', (request) => requests.push(request.url()));
    await other.goto(`file://${join(docsDir, 'index.html')}`, { waitUntil: 'load' });
    await other.locator('[data-component-name="Menu/MenuItem"] [data-text="Charges"]').first().waitFor();
    expect(requests.filter((url) => !/^(file|data|blob):/.test(url))).toEqual([]);
    await other.close();
  });

  test("the server's bare URL opens the docs", async () => {
    const other = await browser.newPage();
    const response = await other.goto(`${base}/`, { waitUntil: 'load' });
    expect(other.url()).toBe(`${base}/docs/`);
    expect(response?.status()).toBe(200);
    await other.locator('[data-component-name="Menu/MenuItem"] [data-text="Charges"]').first().waitFor();
    await other.close();
  });
});

describe('the contract is served for tools, without an API key', () => {
  let local: TestServer;
  beforeAll(async () => {
    local = await createTestServer();
  });
  afterAll(async () => local.close());

  test.each([
    ['/openapi.yaml', { type: 'application/yaml', starts: 'openapi: 3.1.0' }],
    ['/openapi.json', { type: 'application/json', starts: '{"openapi":"3.1.0"' }],
  ])('%s', async (path, want) => {
    const response = await local.request(path, { apiKey: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(want.type);
    expect((await response.text()).startsWith(want.starts)).toBe(true);
  });
});

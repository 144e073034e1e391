/**
 * The hosted payment page (D42) as a payer gets it: /pay/{id} of a running reference server in
 * headless Chromium (Debian's package, driven by playwright-core) at a phone's viewport, with a
 * tiny local "shop" server as successUrl/failedUrl. Skipped, with a notice, where no Chromium is
 * installed.
 */
// long-running: about 45 s (the payment page in Chromium); test/support/sequencer.ts starts it early
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { haveChromium, launchChromium } from '../support/chromium.js';
import { frameFromAnotherOrigin, reportCspViolations } from '../support/framing.js';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { qrTextOfDataUri } from '../../conformance/pix/brcode-check.js';
import type { AppEnv } from '../../server/deps.js';
import { simulateExpiration, simulatePayment } from '../../server/domain/charge-lifecycle.js';
import { contrastRatio } from '../../server/pay/page.js';
import { payRoutes } from '../../server/routes/pay.js';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';

const chromiumHere = haveChromium('the payment page browser tests');

const screenshotDir = fileURLToPath(new URL('../../dist/pay/', import.meta.url));
const phone = { width: 375, height: 667 };
/** A larger phone (iPhone 12 to 15), the size the paid state is checked at. */
const tallPhone = { width: 390, height: 844 };

let server: TestServer;
let http: ServerType;
let shop: Server;
let browser: Browser;
let base = '';
let shopBase = '';

/** What one test's page did: console errors and requests that would have left 127.0.0.1. */
interface Session {
  context: BrowserContext;
  page: Page;
  consoleErrors: string[];
  offHost: string[];
}
let session: Session | undefined;

/** The app that serves /pay: the server's own once app.ts mounts `payRoutes`, until then these routes in front of it. */
function payApp(s: TestServer): { fetch: (request: Request) => Response | Promise<Response> } {
  if (s.app.routes.some((route) => route.path.startsWith('/pay/'))) return s.app;
  const wrapper = new Hono<AppEnv>();
  wrapper.route('/', payRoutes(s.deps));
  wrapper.all('*', (c) => s.app.fetch(c.req.raw));
  return wrapper;
}

async function listen(target: Server | ServerType): Promise<string> {
  if (!target.listening) await new Promise((resolve) => target.once('listening', resolve));
  return `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
}

/** A fresh phone-sized browser context that may use the clipboard, and a page in it. */
async function open(path: string, viewport = phone): Promise<Page> {
  const context = await browser.newContext({ viewport, isMobile: true, hasTouch: true, deviceScaleFactor: 2, locale: 'pt-BR' });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const current: Session = { context, page: await context.newPage(), consoleErrors: [], offHost: [] };
  session = current;
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.protocol === 'data:' || url.hostname === '127.0.0.1') return route.continue();
    current.offHost.push(url.href);
    return route.abort();
  });
  current.page.on('console', (message) => {
    if (message.type() === 'error') current.consoleErrors.push(message.text());
  });
  current.page.on('pageerror', (error) => current.consoleErrors.push(error.message));
  // Any refusal of the page's Content-Security-Policy (D50) is a console error, which afterEach forbids.
  await context.addInitScript(reportCspViolations);
  const response = await current.page.goto(`${base}${path}`, { waitUntil: 'load' });
  expect(response?.status()).toBe(200);
  return current.page;
}

/** A charge of company A through the API, with the shop's pages as its destinations. */
async function newCharge(
  options: { devMode?: boolean; success?: boolean; failed?: boolean; needShipping?: boolean } = {},
): Promise<{ id: string; brCode: string }> {
  const { data, response } = await server.api.POST('/charge/payment-link', {
    body: {
      total: 12990,
      devMode: options.devMode ?? true,
      ...(options.needShipping !== undefined ? { needShipping: options.needShipping } : {}),
      ...(options.success !== false ? { successUrl: `${shopBase}/obrigado` } : {}),
      ...(options.failed !== false ? { failedUrl: `${shopBase}/falhou` } : {}),
    },
  });
  expect(response.status).toBe(201);
  const charge = await server.api.GET('/charge/{id}', { params: { path: { id: data!.data.id } } });
  return { id: data!.data.id, brCode: charge.data!.data.brCode };
}

const text = async (page: Page, selector: string) => (await page.locator(selector).innerText()).replace(/\u00a0/g, ' ').trim();

/** `rgb(r, g, b)` as `#rrggbb`. */
function hex(rgb: string): string {
  const [r, g, b] = (rgb.match(/\d+/g) ?? []).map(Number);
  return `#${[r, g, b].map((n) => (n ?? 0).toString(16).padStart(2, '0')).join('')}`;
}

describe.skipIf(!chromiumHere)('the payment page in a real browser', () => {
  beforeAll(async () => {
    server = await createTestServer();
    http = serve({ fetch: payApp(server).fetch, port: 0, hostname: '127.0.0.1' });
    base = await listen(http);
    // The merchant's shop: where the page sends the payer after paying, or after the charge expired.
    shop = createServer((request, response) => {
      const title = { '/obrigado': 'Obrigado pela compra', '/falhou': 'Pagamento não concluído' }[request.url ?? ''];
      if (!title) return void response.writeHead(404).end();
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end(
        `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,"></head><body><h1>${title}</h1></body></html>`,
      );
    });
    shop.listen(0, '127.0.0.1');
    shopBase = await listen(shop);
    browser = await launchChromium();
  }, 60_000);

  afterEach(async () => {
    const current = session;
    session = undefined;
    if (!current) return;
    await current.context.close();
    expect(current.consoleErrors).toEqual([]);
    expect(current.offHost).toEqual([]);
    expect(server.violations).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => http?.close(resolve));
    await new Promise((resolve) => shop?.close(resolve));
    await server?.close();
  });

  test('pay a development charge: name, amount, QR, copy, simulate, and on to successUrl', async () => {
    const charge = await newCharge();
    const page = await open(`/pay/${charge.id}`);

    expect(await page.evaluate('document.documentElement.lang')).toBe('pt-BR');
    expect(await text(page, '#company')).toBe('Café Aurora Ltda');
    expect(await text(page, '#amount')).toBe('R$ 129,90');
    expect(await text(page, '#status')).toBe('Aguardando pagamento');
    expect(await text(page, '#countdown')).toMatch(/^(60:00|59:[0-5]\d)$/);

    // The QR image is drawn, and what is drawn scans as the charge's code.
    const qr = page.getByRole('img', { name: 'QR Code Pix para pagar R$ 129,90 a Café Aurora Ltda' });
    await qr.waitFor();
    expect(await page.evaluate('document.getElementById("qr").naturalWidth')).toBeGreaterThan(0);
    const drawn = await qr.screenshot();
    expect(qrTextOfDataUri(`data:image/png;base64,${drawn.toString('base64')}`)).toEqual({ text: charge.brCode });

    // Usable on a phone: nothing wider than the screen; the code field has its label.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(phone.width);
    expect(await page.getByLabel('Pix Copia e Cola').inputValue()).toBe(charge.brCode);
    expect(await page.getByLabel('Pix Copia e Cola').getAttribute('readonly')).not.toBeNull();

    mkdirSync(screenshotDir, { recursive: true });
    await page.screenshot({ path: join(screenshotDir, 'screenshot.png'), fullPage: true });
    expect(existsSync(join(screenshotDir, 'screenshot.png'))).toBe(true);

    await page.getByRole('button', { name: 'Copiar' }).click();
    await expect.poll(() => text(page, '#copy-feedback')).toBe('Copiado');
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(charge.brCode);

    // The countdown runs.
    const before = await text(page, '#countdown');
    await expect.poll(() => text(page, '#countdown'), { timeout: 3_000 }).not.toBe(before);

    await page.getByRole('button', { name: 'Simular pagamento' }).click();
    await expect.poll(() => text(page, '#done-title')).toBe('Pagamento confirmado');
    expect(await page.getByRole('link', { name: 'Voltar à loja' }).getAttribute('href')).toBe(`${shopBase}/obrigado`);
    await page.waitForURL(`${shopBase}/obrigado`, { timeout: 5_000 });
    expect(await page.locator('h1').innerText()).toBe('Obrigado pela compra');

    const status = await server.api.GET('/charge/{id}', { params: { path: { id: charge.id } } });
    expect(status.data?.data).toMatchObject({ status: 'PAID', paymentStatus: 'RECEIVED' });
  });

  test('an expired charge sends the payer to failedUrl', async () => {
    const charge = await newCharge();
    const page = await open(`/pay/${charge.id}`);
    expect(await text(page, '#status')).toBe('Aguardando pagamento');
    await simulateExpiration(server.deps, server.companyId, charge.id);
    // Seen by the next poll (2 s), then on to failedUrl.
    await page.waitForURL(`${shopBase}/falhou`, { timeout: 8_000 });
    expect(await page.locator('h1').innerText()).toBe('Pagamento não concluído');
  });

  test('a payment left processing (D39) shows as processing, the page still open, then paid and on to successUrl; a delivery says so (D44)', async () => {
    const charge = await newCharge({ needShipping: true });
    const page = await open(`/pay/${charge.id}`);
    expect(await text(page, '#shipping')).toBe('Este pedido será entregue: o endereço de entrega é pedido após o pagamento.');
    await simulatePayment(server.deps, server.companyId, charge.id, { until: 'PROCESSING' });
    await expect.poll(() => text(page, '#status'), { timeout: 5_000 }).toBe('Pagamento em processamento…');
    // Another poll later it is still processing: the page neither finishes nor leaves.
    await page.waitForTimeout(2_500);
    expect(await text(page, '#status')).toBe('Pagamento em processamento…');
    expect(await page.locator('#pay').isVisible()).toBe(true);
    expect(page.url()).toBe(`${base}/pay/${charge.id}`);
    await simulatePayment(server.deps, server.companyId, charge.id, { until: 'PAID' });
    await page.waitForURL(`${shopBase}/obrigado`, { timeout: 8_000 });
  });

  test('without successUrl, a payment made elsewhere shows the final state and stays', async () => {
    const charge = await newCharge({ success: false });
    const page = await open(`/pay/${charge.id}`);
    await simulatePayment(server.deps, server.companyId, charge.id);
    await expect.poll(() => page.locator('#done').isVisible(), { timeout: 5_000 }).toBe(true);
    expect(await text(page, '#done-title')).toBe('Pagamento confirmado');
    expect(await page.locator('#pay').isVisible()).toBe(false);
    expect(await page.locator('#done-link').isVisible()).toBe(false);
    await page.waitForTimeout(2_500);
    expect(page.url()).toBe(`${base}/pay/${charge.id}`);
  });

  describe.for([
    ['a page loaded already paid', { paidBeforeOpen: true }],
    ['a page that turns paid while open', { paidBeforeOpen: false }],
  ] as const)('the paid state at 390×844: %s', ([, { paidBeforeOpen }]) => {
    test('one confirmation, "Valor pago", the merchant and its CNPJ in view, no sideways scroll', async () => {
      const charge = await newCharge({ success: false });
      if (paidBeforeOpen) await simulatePayment(server.deps, server.companyId, charge.id);
      const page = await open(`/pay/${charge.id}`, tallPhone);
      if (!paidBeforeOpen) {
        expect(await text(page, '#amount-label')).toBe('Valor a pagar');
        await simulatePayment(server.deps, server.companyId, charge.id);
        await expect.poll(() => page.locator('#done').isVisible(), { timeout: 5_000 }).toBe(true);
        // The outcome is announced where the live status was: the focus is on it.
        expect(await page.evaluate('document.activeElement.id')).toBe('done-title');
      }

      // What the payer sees (innerText leaves out what is hidden): the confirmation once.
      const seen = ((await page.evaluate('document.body.innerText')) as string).replace(/\u00a0/g, ' ');
      expect(seen.split('Pagamento confirmado').length - 1).toBe(1);
      expect(seen).not.toContain('Valor a pagar');
      expect(await page.locator('#done-title').isVisible()).toBe(true);
      expect(await text(page, '#amount-label')).toBe('Valor pago');
      expect(await page.locator('#amount-label').isVisible()).toBe(true);
      expect(await text(page, '#company')).toBe('Café Aurora Ltda');
      expect(await text(page, '#company-tax-id')).toBe('CNPJ 45.723.174/0001-10');

      // The merchant's name and tax number: inside the viewport, their text not cut off.
      for (const id of ['company', 'company-tax-id', 'amount-label', 'done-title']) {
        const box = (await page.evaluate(`(() => {
          const element = document.getElementById(${JSON.stringify(id)});
          const r = element.getBoundingClientRect();
          return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, clipped: element.scrollWidth > element.clientWidth || element.scrollHeight > element.clientHeight };
        })()`)) as { left: number; top: number; right: number; bottom: number; clipped: boolean };
        expect({ id, ...box }).toMatchObject({ id, clipped: false });
        expect(box.left, id).toBeGreaterThanOrEqual(0);
        expect(box.top, id).toBeGreaterThanOrEqual(0);
        expect(box.right, id).toBeLessThanOrEqual(tallPhone.width);
        expect(box.bottom, id).toBeLessThanOrEqual(tallPhone.height);
      }
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(tallPhone.width);

      mkdirSync(screenshotDir, { recursive: true });
      await page.screenshot({ path: join(screenshotDir, `paid-390x844-${paidBeforeOpen ? 'loaded' : 'live'}.png`) });
    });
  });

  test('keyboard focus is visible and the header text contrasts with the company colour', async () => {
    const charge = await newCharge({ devMode: false });
    const page = await open(`/pay/${charge.id}`);
    expect(await page.locator('#simulate').count()).toBe(0);
    for (let i = 0; i < 10 && (await page.evaluate('document.activeElement && document.activeElement.id')) !== 'copy'; i++) await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement.id')).toBe('copy');
    const outline = (await page.evaluate(
      '(() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]; })()',
    )) as string[];
    expect(outline).toEqual(['solid', '3px']);
    const [background, color] = (await page.evaluate(
      '(() => { const s = getComputedStyle(document.querySelector("header")); return [s.backgroundColor, s.color]; })()',
    )) as string[];
    expect(hex(background!)).toBe('#0e7c66');
    expect(contrastRatio(hex(background!), hex(color!))).toBeGreaterThanOrEqual(4.5);
  });

  test('a page of another origin cannot frame the payment page (D50)', async () => {
    const charge = await newCharge();
    const { framed, frameUrl, messages } = await frameFromAnotherOrigin(browser, `${base}/pay/${charge.id}`, '#amount');
    expect(framed, `framed as ${frameUrl}`).toBe(false);
    expect(messages.join('\n')).toMatch(/frame-ancestors 'none'/);
  });

  test('a test code says, above its QR code and legibly, that it must not be paid (D43)', async () => {
    const charge = await newCharge({ devMode: true });
    const page = await open(`/pay/${charge.id}`);
    const notice = page.getByRole('note').filter({ hasText: 'Código de teste' });
    expect(await notice.isVisible()).toBe(true);
    expect(await notice.innerText()).toBe('Código de teste: não pague este QR Code com dinheiro real — ele não leva a nenhuma conta.');
    // Seen before the code: above the QR image, and read with the copy-and-paste field it describes.
    const [noticeBox, qrBox] = [await notice.boundingBox(), await page.locator('#qr').boundingBox()];
    expect(noticeBox!.y + noticeBox!.height).toBeLessThanOrEqual(qrBox!.y);
    expect(await page.getByLabel('Pix Copia e Cola').getAttribute('aria-describedby')).toBe('test-code copy-feedback');
    const [background, color] = (await page.evaluate(
      '(() => { const s = getComputedStyle(document.getElementById("test-code")); return [s.backgroundColor, s.color]; })()',
    )) as string[];
    expect(contrastRatio(hex(background!), hex(color!))).toBeGreaterThanOrEqual(4.5);
  });
});

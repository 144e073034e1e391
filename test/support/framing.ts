import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';

/**
 * What a browser does when a page of another origin frames `url`: a page served by a server of
 * its own on another port of 127.0.0.1 (another origin), with `url` in an iframe. `framed` is
 * whether the framed document loaded (its URL and a `selector` found in it); a page that may not
 * be framed (CSP `frame-ancestors 'none'`, `X-Frame-Options: DENY`) leaves Chromium's error page.
 */
export async function frameFromAnotherOrigin(
  browser: Browser,
  url: string,
  selector: string,
): Promise<{ framed: boolean; frameUrl: string; messages: string[]; framingOrigin: string }> {
  const framing: Server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(
      `<!doctype html><html><head><meta charset="utf-8"><title>Another site</title><link rel="icon" href="data:,"></head><body><iframe id="victim" src="${url}" width="800" height="600"></iframe></body></html>`,
    );
  });
  await new Promise<void>((resolve) => framing.listen(0, '127.0.0.1', resolve));
  const framingOrigin = `http://127.0.0.1:${(framing.address() as AddressInfo).port}`;
  let context: BrowserContext | undefined;
  try {
    context = await browser.newContext();
    const page: Page = await context.newPage();
    const messages: string[] = [];
    page.on('console', (message) => messages.push(message.text()));
    await page.goto(framingOrigin, { waitUntil: 'load' });
    const frame = await (await page.locator('#victim').elementHandle())!.contentFrame();
    const frameUrl = frame?.url() ?? '';
    const found = frame
      ? await frame
          .locator(selector)
          .count()
          .catch(() => 0)
      : 0;
    return { framed: frameUrl === url && found > 0, frameUrl, messages, framingOrigin };
  } finally {
    await context?.close();
    await new Promise((resolve) => framing.close(resolve));
  }
}

/**
 * A script for `addInitScript`: every Content-Security-Policy violation of the page is written to
 * the console as an error (`CSP violation: <directive> <blocked> at <line>:<column>`), so that
 * a test that wants no console errors sees it even when the page catches what was refused.
 */
export const reportCspViolations = `document.addEventListener('securitypolicyviolation', (e) => console.error('CSP violation: ' + e.effectiveDirective + ' ' + e.blockedURI + ' at ' + e.lineNumber + ':' + e.columnNumber));`;

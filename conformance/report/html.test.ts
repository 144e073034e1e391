import { describe, expect, test } from 'vitest';
import { redactReport } from './failures.js';
import { htmlEscape, renderHtml } from './html.js';
import { API_KEY, sampleReport } from './sample-report.js';
import { checkNames } from '../engine/types.js';

const html = renderHtml(redactReport(sampleReport(), [API_KEY]));

/** Every URL-bearing attribute of the page. */
function urlAttributes(page: string): string[] {
  return [...page.matchAll(/\s(?:src|href|action|srcset|poster|data|background|formaction)\s*=\s*["']?([^"'\s>]+)/gi)].map((m) => m[1]!);
}

describe('renderHtml', () => {
  test('is one self-contained page: no script, no external src/href, inline CSS only', () => {
    expect(html).toMatch(/^<!DOCTYPE html>/);
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link\b/i);
    expect(html).not.toMatch(/@import|url\(/i);
    expect(urlAttributes(html).filter((u) => /^(https?:)?\/\//i.test(u))).toEqual([]);
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`);
  });

  test('the checks of the page itself would catch an external asset', () => {
    expect(urlAttributes('<img src="https://cdn.example.com/x.png"><a href=//evil.test>x</a>')).toEqual(['https://cdn.example.com/x.png', '//evil.test']);
  });

  test('the matrix: one row per operation, one cell per check, classed by outcome', () => {
    const rows = [...html.matchAll(/<tr><td class="op">([^<]+)<\/td>(.*?)<\/tr>/g)];
    expect(rows.map((r) => r[1])).toEqual(['createPaymentLink', 'getCharge', 'listClients']);
    const classes = (row: string) => [...row.matchAll(/<td class="(\w+)"/g)].map((m) => m[1]);
    // One cell per check, in checkNames' order: the three results of the first row, the rest empty.
    const given: Partial<Record<(typeof checkNames)[number], string>> = {
      not_a_server_error: 'fail',
      response_schema_conformance: 'info',
      idempotency_replay: 'skip',
    };
    expect(classes(rows[0]![2]!)).toEqual(checkNames.map((check) => given[check] ?? 'none'));
    expect(rows[1]![2]).toContain('title="skipped: no second API key (--second-api-key)"');
  });

  test('one <details> per failed or info finding, with its exchange; passes get none', () => {
    const details = [...html.matchAll(/<details class="(fail|info)"(?: id="[\w-]+")?><summary>(.*?)<\/summary>(.*?)<\/details>/gs)];
    const text = (markup: string) =>
      markup
        .replace(/<[^>]+>/g, '')
        .replace(/&#39;/g, "'")
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&');
    expect(details.map((d) => [d[1], text(d[2]!).slice(0, 60)])).toEqual([
      ['fail', expect.stringMatching(/^✗ createPaymentLink › not_a_server_error — answered 500/)],
      ['fail', "✗ listClients › tenant_isolation — another company's client "],
      ['fail', '✗ listClients › ignored_auth — no answer'],
      ['info', 'i createPaymentLink › response_schema_conformance — external'],
    ]);
    expect(details[3]![2]).toContain('(departs from D21)');
    expect(details[0]![3]).toMatch(/^<pre>→ POST http:\/\/ref\.test\/charge\/payment-link\n/);
    expect(html).not.toContain('answered 201');
  });

  test('each failed or info cell links to its first finding; no other cell links', () => {
    const links = [...html.matchAll(/<td class="(\w+)"[^>]*><a href="#([\w-]+)">/g)].map((m) => [m[1], m[2]]);
    expect(links).toEqual([
      ['fail', 'r-createPaymentLink-not_a_server_error'],
      ['info', 'r-createPaymentLink-response_schema_conformance'],
      ['fail', 'r-listClients-ignored_auth'],
      ['fail', 'r-listClients-tenant_isolation'],
    ]);
    for (const [, id] of links) expect(html.match(new RegExp(`<details class="(fail|info)" id="${id}">`, 'g'))).toHaveLength(1);
  });

  test('what the target sent is escaped, never markup', () => {
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html.match(/<script/gi)).toBeNull();
  });

  test('skip reasons are listed with their checks', () => {
    expect(html).toContain('<li>the target keeps no state (--stateless) — 1 check(s)');
  });

  test('no full API key, even one the target echoed', () => {
    expect(html).not.toContain(API_KEY);
    expect(html).toContain('sk_a1b…****');
  });
});

test('htmlEscape', () => {
  expect(htmlEscape(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
});

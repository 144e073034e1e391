import { describe, expect, test } from 'vitest';
import { redactReport } from './failures.js';
import { htmlEscape, renderHtml } from './html.js';
import { API_KEY, groupedReport, sampleReport } from './sample-report.js';
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
    const details = [...html.matchAll(/<details class="(fail|info)" id="[\w-]+"><summary>(.*?)<\/summary>(.*?)<\/details>/gs)];
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
    expect(details[0]![3]).toMatch(
      /\ncurl -sS -i -g -X POST http:\/\/ref\.test\/charge\/payment-link -H [^\n]+ -H &quot;X-API-KEY: \$PIX_API_KEY&quot; [^\n]+<\/pre>$/,
    );
    expect(html).not.toContain('answered 201');
  });

  test('each failed or info cell links to the group of its first finding; no other cell links', () => {
    const links = [...html.matchAll(/<td class="(\w+)"[^>]*><a href="#([\w-]+)">/g)].map((m) => [m[1], m[2]]);
    expect(links).toEqual([
      ['fail', 'fail-1'],
      ['info', 'info-1'],
      ['fail', 'fail-3'],
      ['fail', 'fail-2'],
    ]);
    for (const [, id] of links) expect(html.match(new RegExp(`<details class="(fail|info)" id="${id}"><summary>`, 'g'))).toHaveLength(1);
  });

  test('the legend says what every mark means', () => {
    const marks = [...html.matchAll(/<dl class="legend marks">(.*?)<\/dl>/g)][0]![1]!;
    expect([...marks.matchAll(/<dt>(.*?)<\/dt><dd>(.*?)<\/dd>/g)].map((m) => [m[1], m[2]])).toEqual([
      ['✓', 'passed: the whole check ran, and the deployment held to it'],
      ['✗', 'failed: listed under Failures'],
      ['i', 'info: departs only from a decision of the contract, which profile seed allows'],
      ['–', 'skipped: not run, or not in full, for the reason listed under Skipped'],
      ['·', 'no result: the check does not apply to this operation, or had nothing to judge'],
    ]);
  });

  test('what the target sent is escaped, never markup', () => {
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html.match(/<script/gi)).toBeNull();
  });

  test('skip reasons are listed with their checks', () => {
    expect(html).toContain('<li>the target keeps no state (--stateless) — 1 check<details>');
  });

  test('no full API key, even one the target echoed', () => {
    expect(html).not.toContain(API_KEY);
    expect(html).toContain('sk_a1b…****');
  });
});

test('htmlEscape', () => {
  expect(htmlEscape(`<a href="x">&'`)).toBe('&lt;a href=&quot;x&quot;&gt;&amp;&#39;');
});

describe('renderHtml groups identical findings', () => {
  const page = renderHtml(groupedReport());
  const groups = [...page.matchAll(/<details class="(fail|info)" id="([\w-]+)"><summary>(.*?)<\/summary>/g)].map((m) => [
    m[1],
    m[2],
    m[3]!.replace(/<[^>]+>/g, ''),
  ]);
  test('one entry per group, with its count and operations; the section counts findings and groups', () => {
    expect(groups).toEqual([
      [
        'fail',
        'fail-1',
        '✗ not_a_server_error × 2 on 2 operations (getCharge, listClients) — GET /charge/6c4cc9f9-04ec-4ce0-935f-6411cb1089af → 500: a server error',
      ],
      ['fail', 'fail-2', '✗ listClients › tenant_isolation — clnt_9x8y7z (conf1234abcd-B) of the other company is listed'],
      [
        'info',
        'info-1',
        'i content_type_conformance × 3 on 2 operations (createPaymentLink ×2, createOrder) — POST /charge/payment-link → 400: Content-Type application/json, documented application/problem+json (departs from D34)',
      ],
      [
        'info',
        'info-2',
        'i content_type_conformance × 3 on 3 operations (createPaymentLink, createOrder, getCharge) — POST /charge/payment-link → 401: Content-Type application/json, documented application/problem+json (departs from D02)',
      ],
    ]);
    expect(page).toContain('<h2>Failures (3 findings, 2 distinct)</h2>');
    expect(page).toContain('<h2>Info: departures from the contract’s decisions (6 findings, 2 distinct)</h2>');
  });
  test('the other findings of a group, each with its own message, request, curl line and exchange', () => {
    const group = page.slice(page.indexOf('id="fail-1"'), page.indexOf('id="fail-2"'));
    expect(group).toContain('<details class="more"><summary>the 1 other finding of this group</summary>');
    expect(group).toContain(
      '<details><summary><code>listClients</code> · GET http://ref.test/client?limit=2 — GET /client → 500: a server error</summary><pre>→ GET',
    );
    expect(group).toContain(`curl -sS -i -g -X GET &#39;http://ref.test/client?limit=2&#39; -H &quot;X-API-KEY: $PIX_API_KEY&quot;</pre>`);
  });
  test('cells link to their group, several cells to one group', () => {
    const links = [...page.matchAll(/<a href="#([\w-]+)">/g)].map((m) => m[1]);
    expect(links).toEqual(['info-1', 'info-1', 'fail-1', 'info-2', 'fail-1', 'fail-2']);
  });
});

test('a run that stopped before its end says why above the totals, and lists what it could not delete', () => {
  const stopped = 'target unreachable: http://ref.test/order got no answer; the run stops';
  const page = renderHtml({ ...sampleReport(), stopped, leftBehind: ['DELETE http://ref.test/webhook/wbhk_1'] });
  expect(page).toContain(`<p class="stopped"><strong>The run stopped before its end</strong>: ${stopped}. What follows is what it had found by then;`);
  expect(page).toContain('<pre>DELETE http://ref.test/webhook/wbhk_1</pre>');
  expect(page.indexOf('class="stopped"')).toBeLessThan(page.indexOf('class="totals'));
  expect(renderHtml(sampleReport())).not.toContain('class="stopped"');
});

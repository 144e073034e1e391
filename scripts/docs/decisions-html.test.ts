import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { decisionsHtml } from './decisions-html.js';
import { decisionRows } from './decorate.js';

const markdown = readFileSync(fileURLToPath(new URL('../../openapi/DECISIONS.md', import.meta.url)), 'utf8');

describe('decisionsHtml', () => {
  const html = decisionsHtml(markdown, 'Pix Payments API');

  test('every decision has its row anchor and a link to itself', () => {
    const ids = decisionRows(markdown).map((row) => row.id);
    expect(ids.length).toBeGreaterThan(40);
    for (const id of ids) {
      expect(html).toContain(`<tr id="${id}">`);
      expect(html).toContain(`<a href="#${id}">${id}</a>`);
    }
  });

  test.each([
    ['a table row', { given: '| ID | X |\n|---|---|\n| D07 | y |\n', want: ['<tr id="D07">', '<a href="#D07">D07</a>'], not: [] }],
    ['raw HTML in the source is text', { given: 'a <script>alert(1)</script> b\n', want: ['&lt;script&gt;'], not: ['<script>'] }],
    ['a row whose first cell is no decision id', { given: '| ID | X |\n|---|---|\n| Dx | y |\n', want: ['<td>Dx</td>'], not: ['id="Dx"'] }],
  ])('%s', (_name, { given, want, not }) => {
    const out = decisionsHtml(`# Contract decisions\n\n${given}`, 'API');
    for (const text of want) expect(out).toContain(text);
    for (const text of not) expect(out).not.toContain(text);
  });

  test('a self-contained page: title, a way back to the reference, no script, nothing from elsewhere', () => {
    expect(html).toContain('<title>Contract decisions — Pix Payments API</title>');
    expect(html).toContain('<a href="./">');
    expect(html).not.toMatch(/<script|https?:\/\/[^"\s]*\.(css|js|woff2?)\b|<link rel="stylesheet"/);
  });
});

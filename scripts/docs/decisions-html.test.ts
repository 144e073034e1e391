/**
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { decisionsHtml } from './decisions-html.js';
import { readDecisions } from '../../lib/contract/decisions.js';

const markdown = readFileSync(fileURLToPath(new URL('../../openapi/DECISIONS.md', import.meta.url)), 'utf8');

describe('decisionsHtml', () => {
  const html = decisionsHtml(markdown, 'Pix Payments API');

  test('every decision is a section with its anchor, its heading linking to itself', () => {
    const decisions = readDecisions(markdown);
    expect(decisions.length).toBeGreaterThan(40);
    for (const { id } of decisions) {
      expect(html).toContain(`<section id="${id}">\n<h2><a href="#${id}">${id}</a> `);
    }
    expect(html.match(/<section /g)).toHaveLength(decisions.length);
    expect(html.match(/<\/section>/g)).toHaveLength(decisions.length);
  });

  test.each([
    [
      'a decision, to the next one',
      {
        given: '## D07 Seven\n\n**Decision.** y\n\n## D08 Eight\n\nz\n',
        want: ['<section id="D07">\n<h2><a href="#D07">D07</a> Seven</h2>\n<p><strong>Decision.</strong> y</p>\n</section>\n<section id="D08">'],
        not: [],
      },
    ],
    ['a deeper heading stays in its decision', { given: '## D07 Seven\n\n### Part\n\ny\n', want: ['<h3>Part</h3>\n<p>y</p>\n</section>'], not: [] }],
    ['raw HTML in the source is text', { given: 'a <script>alert(1)</script> b\n', want: ['&lt;script&gt;'], not: ['<script>'] }],
    ['raw HTML cannot open a section', { given: '<section id="D01">\n', want: ['&lt;section'], not: ['<section'] }],
    ['a heading that is no decision', { given: '## Dx y\n\nz\n', want: ['<h2>Dx y</h2>'], not: ['id="Dx"', '<section'] }],
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

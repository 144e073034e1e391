/**
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { listOperations, loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { selfContained } from './build.js';
import { baseUrlTable } from './base-url-table.js';
import { readDecisions } from '../../lib/contract/decisions.js';
import { appendToSection, decisionLink, decisionsPage, decorateForDocs, linkDecisionMentions, operationDecisions } from './decorate.js';

const contract = loadBundledContract();
const decisions = readFileSync(fileURLToPath(new URL('../../openapi/DECISIONS.md', import.meta.url)), 'utf8');

describe('operationDecisions', () => {
  const cases: Array<[string, { given: string; want: { includes: string[]; excludes: string[] } }]> = [
    ['an alt operation: authentication and error responses are decisions', { given: 'createClient', want: { includes: ['D02', 'D03'], excludes: ['D01'] } }],
    ['a success code the seed leaves open', { given: 'getCharge', want: { includes: ['D01', 'D02', 'D27'], excludes: ['D03'] } }],
    ['the Idempotency-Key header and its conflicts', { given: 'createPaymentLink', want: { includes: ['D01', 'D10', 'D11'], excludes: [] } }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const op = listOperations(contract).find((o) => o.operationId === given)!;
    const ids = operationDecisions(contract, op.operation);
    for (const id of want.includes) expect(ids).toContain(id);
    for (const id of want.excludes) expect(ids).not.toContain(id);
  });
});

describe('decorateForDocs', () => {
  const decorated = decorateForDocs(contract, decisions);

  const intro = String((decorated.info as JsonObject).description);

  test('every decision is listed in the introduction, each linked to its anchor on the decisions page', () => {
    expect(intro).toContain('## Contract decisions');
    expect(intro).toContain(`[Contract decisions](${decisionsPage})`);
    for (const { id } of readDecisions(decisions)) expect(intro).toContain(`| [${id}](${decisionsPage}#${id}) |`);
  });

  test('the "Two base URLs" section holds the table generated from the contract', () => {
    const section = intro.slice(intro.indexOf('## Two base URLs'), intro.indexOf('\n## ', intro.indexOf('## Two base URLs')));
    expect(section).toContain(baseUrlTable(contract));
  });

  test('the introduction says which variables the code samples read, which sample sets each id, and what a repeated Idempotency-Key does', () => {
    const section = intro.slice(intro.indexOf('## Code samples'), intro.indexOf('## Contract decisions'));
    expect(section).toContain('export PIX_BASE_URL=http://localhost:3000 PIX_BASE_URL_ALT=http://localhost:3000 PIX_API_KEY=sk_…');
    for (const [name, setter] of [
      ['CHARGE_ID', 'Create a payment link'],
      ['PRODUCT_ID', 'Create a product'],
      ['CLIENT_ID', 'Create a client'],
      ['WEBHOOK_ID', 'Register a webhook'],
      ['SUBSCRIPTION_ID', 'Create a subscription'],
      ['ORDER_ID', 'Create an order'],
    ])
      expect(section).toContain(`\`$${name}\` (*${setter}*)`);
    expect(section).toMatch(/same key and body, a request answers the first response again \(with `Idempotent-Replayed: true`\)/);
    expect(section).toContain('[D10](decisions.html#D10)');
    expect(section).not.toMatch(/\$API_KEY|\bBASE_URL=/);
  });

  test.each(listOperations(contract).map((op) => [op.operationId, op] as const))(
    '%s names its base URL and its decisions first, and has code samples',
    (_id, op) => {
      const operation = (decorated.paths as Record<string, JsonObject>)[op.path]![op.method] as JsonObject;
      const description = String(operation.description);
      // The operation's own description first, then one line: its base URL, the decisions it rests on.
      expect(description.startsWith(linkDecisionMentions(String(op.operation.description)).trimEnd())).toBe(true);
      const footnote = description.split('\n').at(-1)!;
      expect(footnote.startsWith(`**Base URL:** \`{${op.server}}\``)).toBe(true);
      const decisions = operationDecisions(contract, op.operation);
      if (decisions.length > 0) expect(footnote).toContain('Decided by this contract where the [source document](decisions.html) is silent: ');
      for (const id of decisions) expect(footnote).toContain(`[${id}](${decisionLink(id)} "`);
      expect(description).not.toContain('Not documented by the source');
      expect((operation['x-codeSamples'] as Array<{ label: string }>).map((sample) => sample.label)).toEqual(['curl', 'TypeScript']);
    },
  );

  test('leaves the contract itself unchanged', () => {
    expect((contract.info as JsonObject).description).not.toContain('## Contract decisions');
  });
});

describe('linkDecisionMentions', () => {
  test.each([
    ['a bold mention', { given: 'is `404` (**D27**).', want: `is \`404\` ([**D27**](${decisionsPage}#D27)).` }],
    ['two mentions', { given: '**D01**, **D02**', want: `[**D01**](${decisionsPage}#D01), [**D02**](${decisionsPage}#D02)` }],
    ['an existing link is kept', { given: `[**D03**](x)`, want: `[**D03**](x)` }],
    ['plain text is kept', { given: 'D04 and Dnn', want: 'D04 and Dnn' }],
  ])('%s', (_name, { given, want }) => {
    expect(linkDecisionMentions(given)).toBe(want);
  });
});

describe('appendToSection', () => {
  test.each([
    ['a middle section', { given: '# T\n## A\na\n## B\nb\n', want: '# T\n## A\na\n\nX\n\n## B\nb\n' }],
    ['the last section', { given: '## A\na\n', want: '## A\na\n\nX\n\n' }],
  ])('%s', (_name, { given, want }) => {
    expect(appendToSection(given, '## A', 'X')).toBe(want);
  });
  test('a missing section is an error', () => {
    expect(() => appendToSection('## B\n', '## A', 'X')).toThrow(/"## A"/);
  });
});

describe('selfContained', () => {
  test('replaces every resource Redoc would fetch from its CDN, and declares an icon', () => {
    const html =
      '<html><head><title>x</title></head><body><img src="https://cdn.redoc.ly/redoc/logo-mini-full.svg"><img src="https://cdn.redoc.ly/redoc/logo-mini.svg"></body></html>';
    const out = selfContained(html);
    expect(out).not.toContain('cdn.redoc.ly');
    expect(out).toContain('<head><link rel="icon" href="data:,">');
    expect(out.match(/src="data:image\/svg\+xml,/g)).toHaveLength(2);
  });
});

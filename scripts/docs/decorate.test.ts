import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { listOperations, loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import { selfContained } from './build.js';
import { decisionRows, decisionsAnchor, decorateForDocs, operationDecisions } from './decorate.js';

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

  test('every decision of DECISIONS.md is in the introduction, which links to it', () => {
    const intro = String((decorated.info as JsonObject).description);
    expect(intro).toContain('## Contract decisions');
    expect(intro).toContain(`(${decisionsAnchor})`);
    for (const { id } of decisionRows(decisions)) expect(intro).toContain(`| ${id} |`);
  });

  test.each(listOperations(contract).map((op) => [op.operationId, op] as const))('%s names its base URL and its decisions first', (_id, op) => {
    const operation = (decorated.paths as Record<string, JsonObject>)[op.path]![op.method] as JsonObject;
    const description = String(operation.description);
    expect(description.startsWith(`> **Base URL:** \`{${op.server}}\``)).toBe(true);
    for (const id of operationDecisions(contract, op.operation)) expect(description).toContain(`[${id}](${decisionsAnchor})`);
    expect(description).toContain(String(op.operation.description));
  });

  test('leaves the contract itself unchanged', () => {
    expect((contract.info as JsonObject).description).not.toContain('## Contract decisions');
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

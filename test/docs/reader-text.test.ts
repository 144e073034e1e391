/**
 * What the docs say to a reader names no file of this repository: an integrator has the page, not
 * the clone. The seed is "the seed" and its section numbers, decisions are linked on the decisions
 * page, never `shared/seeds/…`, `openapi/…`, `DECISIONS.md` or a `.ts` file. Checked on every
 * text Redoc shows of the docs spec (descriptions, summaries, titles, code samples) and on the
 * decisions page's text.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../lib/contract/bundled.js';
import { loadBundledContract } from '../../lib/contract/bundled.js';
import { decisionsHtml } from '../../scripts/docs/decisions-html.js';
import { decorateForDocs } from '../../scripts/docs/decorate.js';

const decisions = readFileSync(fileURLToPath(new URL('../../openapi/DECISIONS.md', import.meta.url)), 'utf8');
const docsSpec = decorateForDocs(loadBundledContract(), decisions);

/** A path or file of a repository: its folders, file names with a source or document extension, the seed's folder. */
const repositoryPath =
  /(?<![\w-])(?:\.\.\/)*(?:shared|seeds|openapi|generated|server|scripts|lib|conformance|client|test|examples|dist|bench|bin)\/|(?<![/\w.-])[\w{}.-]+\.(?:md|ts|mjs|cjs|txt|ya?ml)\b/;

/** Cases the pattern must tell apart, so the check below can fail. */
const cases: Array<[string, { given: string; want: boolean }]> = [
  ['the seed file', { given: 'the seed (`shared/seeds/000_1abf7fc2b83a6325.txt`)', want: true }],
  ['a path beside the repository', { given: '(`../shared/seeds/…`)', want: true }],
  ['a contract file', { given: 'see `openapi/paths/charge_{id}.yaml`', want: true }],
  ['the decisions file', { given: 'explained in [DECISIONS.md](DECISIONS.md)', want: true }],
  ['a source file', { given: 'done in normalise.ts', want: true }],
  ['the served contract', { given: 'serves `/openapi.yaml` and `/openapi.json`', want: false }],
  ['the client package', { given: "import { createPixClient } from 'pix-payments-toolkit/client';", want: false }],
  ['a served page', { given: 'the docs (`/docs/`) and `/pay/{id}`', want: false }],
  ['a seed section', { given: '(seed §4.1: "not shown")', want: false }],
  ['the decisions page', { given: '[D01](decisions.html#D01)', want: false }],
];

/** Every text Redoc shows: descriptions, summaries and titles anywhere, and code samples' sources, with where each is. */
function readerTexts(value: unknown, at = '#'): Array<{ at: string; text: string }> {
  if (Array.isArray(value)) return value.flatMap((item, index) => readerTexts(item, `${at}/${index}`));
  if (!value || typeof value !== 'object') return [];
  return Object.entries(value as JsonObject).flatMap(([key, item]) => {
    const here = `${at}/${key}`;
    if (['description', 'summary', 'title', 'source', 'label'].includes(key) && typeof item === 'string') return [{ at: here, text: item }];
    return readerTexts(item, here);
  });
}

describe('reader-facing text names no repository path', () => {
  test.each(cases)('the check: %s', (_name, { given, want }) => {
    expect(repositoryPath.test(given)).toBe(want);
  });

  test('the docs page: every description, summary, title and code sample', () => {
    const texts = readerTexts(docsSpec);
    expect(texts.length).toBeGreaterThan(100);
    const found = texts.filter(({ text }) => repositoryPath.test(text)).map(({ at, text }) => `${at}: ${repositoryPath.exec(text)![0]}`);
    expect(found).toEqual([]);
  });

  test('the decisions page', () => {
    const text = decisionsHtml(decisions, 'Pix Payments API')
      .replace(/<style>[\s\S]*?<\/style>/, '')
      .replace(/<[^>]+>/g, ' ');
    expect(text).toContain('D01');
    expect(text.match(new RegExp(repositoryPath.source, 'g')) ?? []).toEqual([]);
  });
});

/**
 * What the docs say to a reader names no file of this repository: an integrator has the page, not
 * the clone. The seed is "the seed" and its section numbers, decisions are linked on the decisions
 * page, never `shared/seeds/…`, `openapi/…`, `DECISIONS.md` or a `.ts` file. Checked on every
 * text Redoc shows of the docs spec (descriptions, summaries, titles, code samples) and on the
 * decisions page's text.
 *
 * And nothing a reader sees cites the team's issue tracker ("issue 13", "#27", "(issue: charge
 * lifecycle)"): a reader has no access to it, and the text must say the reason itself. Checked on
 * the docs page and the decisions page as above, and on the guides (README.md, docs/*.md) and
 * openapi/DECISIONS.md as written.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import type { JsonObject } from '../../lib/contract/bundled.js';
import { loadBundledContract } from '../../lib/contract/bundled.js';
import { decisionsHtml } from '../../scripts/docs/decisions-html.js';
import { decorateForDocs } from '../../scripts/docs/decorate.js';

const decisions = readFileSync(fileURLToPath(new URL('../../openapi/DECISIONS.md', import.meta.url)), 'utf8');
const docsSpec = decorateForDocs(loadBundledContract(), decisions);

/**
 * A path or file of a repository: its folders, file names with a source or document extension, the
 * seed's folder. A folder's name after a `/` is a URL path of the API (`/client/{id}`), not a folder.
 */
const repositoryPath =
  /(?<![\w/-])(?:\.\.\/)*(?:shared|seeds|openapi|generated|server|scripts|lib|conformance|client|test|examples|dist|bench|bin)\/|(?<![/\w.-])[\w{}.-]+\.(?:md|ts|mjs|cjs|txt|ya?ml)\b/;

/**
 * A citation of an issue or pull request: `issue 13`, `issues 8 and 17`, `issue #27`, `(issue: …)`,
 * `PR 4`, and a bare `#27` in prose (in code, `#000` is a colour).
 */
const issueCitation = /\b(?:issues?|pull requests?|PRs?)\s*(?::|#?\d)|(?<=^|[\s(])#\d{1,5}\b(?![\w-])/i;

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
  ["an operation path under a folder's name", { given: 'read one with `GET /client/{id}`', want: false }],
  ['a folder after a URL path', { given: 'served at /docs/openapi/x', want: false }],
];

/** Cases the citation pattern must tell apart. */
const citationCases: Array<[string, { given: string; want: boolean }]> = [
  ['an issue by number', { given: '(issue 13: `529.982.247-25` was refused)', want: true }],
  ['issues by number', { given: 'the runs of issues 8 and 17', want: true }],
  ['an issue by hash', { given: 'see issue #27', want: true }],
  ['an issue by title', { given: '(issue: charge lifecycle)', want: true }],
  ['a bare hash number', { given: 'fixed in #27.', want: true }],
  ['a pull request', { given: 'since PR 4', want: true }],
  ['keys are issued', { given: 'keys are issued out of band', want: false }],
  ['a key issued by a command', { given: 'npm run keys -- issue --company comp_x', want: false }],
  ['a hex colour in code', { given: '`#0E7C66`, `#000`, "backgroundColor": "#000000"', want: false }],
  ['an HTML entity', { given: '&#39;', want: false }],
  ['an anchor', { given: '[D10](decisions.html#D10), [the guide](conformance.md#try-it)', want: false }],
  ['a numbered issue of a standard', { given: 'RFC 9110 §15.5.6', want: false }],
];

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
/** The guides and the decisions as written: what a reader of the repository sees. */
const writtenTexts = [
  'README.md',
  'openapi/DECISIONS.md',
  ...readdirSync(`${repoRoot}docs`)
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
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
    expect(decisionsPageText()).toContain('D01');
    expect(decisionsPageText().match(new RegExp(repositoryPath.source, 'g')) ?? []).toEqual([]);
  });
});

/** The decisions page as a reader sees it: the text of its HTML. */
function decisionsPageText(): string {
  return decisionsHtml(decisions, 'Pix Payments API')
    .replace(/<style>[\s\S]*?<\/style>/, '')
    .replace(/<[^>]+>/g, ' ');
}

describe('reader-facing text cites no issue of the tracker', () => {
  test.each(citationCases)('the check: %s', (_name, { given, want }) => {
    expect(issueCitation.test(given)).toBe(want);
  });

  test('the docs page: every description, summary, title and code sample', () => {
    const found = readerTexts(docsSpec)
      .filter(({ text }) => issueCitation.test(text))
      .map(({ at, text }) => `${at}: ${issueCitation.exec(text)![0]}`);
    expect(found).toEqual([]);
  });

  test('the decisions page', () => {
    expect(decisionsPageText().match(new RegExp(issueCitation.source, 'gi')) ?? []).toEqual([]);
  });

  test.each(writtenTexts)('%s', (file) => {
    const found = readFileSync(`${repoRoot}${file}`, 'utf8')
      .split('\n')
      .flatMap((line, index) => (issueCitation.test(line) ? [`line ${index + 1}: ${issueCitation.exec(line)![0]}`] : []));
    expect(found).toEqual([]);
  });
});

/**
 * The README and the guides link to each other, to the repository's files and to headings: every
 * relative link leads somewhere, as a reader following it on a forge or in an editor would find.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '../../server/test-support/processes.js';

/** GitHub's heading anchors: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (fenced code left out). */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced && /^#{1,6} /.test(line)) found.add(slug(line.replace(/^#+ /, '')));
  }
  return found;
}

/** Relative link targets outside fenced code: `[text](target)`. */
function links(markdown: string): string[] {
  const out: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) for (const [, target] of line.matchAll(/\]\(([^)\s]+)\)/g)) if (!/^[a-z]+:/i.test(target!)) out.push(target!);
  }
  return out;
}

const guides = [
  'README.md',
  ...readdirSync(join(repoRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

describe('links of the README and the guides', () => {
  test.each([
    ['## Try it', 'try-it'],
    ['## Several instances on one PostgreSQL', 'several-instances-on-one-postgresql'],
    ['## Charge lifecycle, sandbox controls and webhooks', 'charge-lifecycle-sandbox-controls-and-webhooks'],
    ['### `--webhook-receiver` and HAR', '--webhook-receiver-and-har'],
  ])('slug of %s is %s', (heading, want) => {
    expect(slug(heading.replace(/^#+ /, ''))).toBe(want);
  });

  test.each(guides)('%s: every relative link leads to a file and heading that exist', (file) => {
    const broken: string[] = [];
    for (const target of links(readFileSync(join(repoRoot, file), 'utf8'))) {
      const [path, anchor] = target.split('#') as [string, string | undefined];
      const resolved = path === '' ? join(repoRoot, file) : join(repoRoot, dirname(file), path);
      if (!existsSync(resolved)) {
        broken.push(`${target}: no ${relative(repoRoot, resolved)}`);
        continue;
      }
      if (anchor !== undefined && statSync(resolved).isFile() && !anchors(readFileSync(resolved, 'utf8')).has(anchor))
        broken.push(`${target}: no heading #${anchor} in ${relative(repoRoot, resolved)}`);
    }
    expect(broken).toEqual([]);
  });
});

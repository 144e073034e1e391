/**
 * A quiet, quick start (issue 39): `npm start` runs `npm run build:server` and `npm run docs`
 * first (prestart); each builds again only when what it is made from changed (a stamp of its
 * inputs' contents beside its output), and the docs build prints none of Redocly's boxed notices
 * (on Node 20: "Node.js 20 reached end-of-life…", which contradicts the README).
 *
 * The builds' stamps are the repository's own (dist/), which this file changes: every test of
 * them is here, one after the other, not in a file that could run beside these.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { buildDocsIfChanged, docsDir, withoutNotices } from '../../scripts/docs/build.js';
import { repoRoot, tsx } from '../../server/test-support/processes.js';

/** Runs `command args` from the repository root; its exit status and output. */
function run(command: string, args: readonly string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, { cwd: repoRoot, encoding: 'utf8' });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The modification time of a file of the repository, in ms. */
const modified = (path: string) => statSync(join(repoRoot, path)).mtimeMs;

/** Marks one recorded input of `stamp` as changed, as an edit of that file would. */
function pretendChanged(stamp: string): string {
  const file = join(repoRoot, stamp);
  const recorded = JSON.parse(readFileSync(file, 'utf8')) as { inputs: Record<string, string> };
  const [name] = Object.keys(recorded.inputs);
  recorded.inputs[name!] = 'changed';
  writeFileSync(file, JSON.stringify(recorded));
  return name!;
}

describe('the builds npm start runs first', () => {
  // The test run's global setup built the page (or kept it): the same inputs keep it.
  test('the same inputs keep the page the last build made, and its stamp names every input', () => {
    const again = buildDocsIfChanged();
    expect(again.built).toBe(false);
    const stamp = JSON.parse(readFileSync(join(docsDir, '.stamp.json'), 'utf8')) as { inputs: Record<string, string> };
    expect(Object.keys(stamp.inputs)).toEqual(expect.arrayContaining(['generated/openapi.yaml', 'openapi/DECISIONS.md', 'redocly.yaml']));
    expect(readFileSync(again.output, 'utf8')).toContain('<html');
  });

  // Each of the next two makes its whole build twice: 8–10 s alone, up to 37 s beside a full run's other files.
  test('the server is compiled again only when an input changed', { timeout: 90_000 }, () => {
    execFileSync(process.execPath, ['scripts/build-server.mjs', '--force'], { cwd: repoRoot, stdio: 'pipe' });
    const built = modified('dist/server/main.mjs');
    expect(run(process.execPath, ['scripts/build-server.mjs']).status).toBe(0);
    expect(modified('dist/server/main.mjs')).toBe(built);
    const stampText = readFileSync(join(repoRoot, 'dist/server/.stamp.json'), 'utf8');
    expect(stampText).toContain('"server/main.ts"');

    pretendChanged('dist/server/.stamp.json');
    expect(run(process.execPath, ['scripts/build-server.mjs']).status).toBe(0);
    expect(modified('dist/server/main.mjs')).toBeGreaterThan(built);
  });

  test('the docs page is built again only when an input changed, with no Redocly notice', { timeout: 90_000 }, () => {
    const first = run(tsx, ['scripts/docs/build.ts', '--force']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain('Docs written to');
    expect(first.stderr).not.toMatch(/end-of-life|Node\.js 2\d|Redoc 3/);
    const built = modified('dist/docs/index.html');

    const again = run(tsx, ['scripts/docs/build.ts']);
    expect(again).toEqual({ status: 0, stdout: '', stderr: '' });
    expect(modified('dist/docs/index.html')).toBe(built);

    pretendChanged('dist/docs/.stamp.json');
    const changed = run(tsx, ['scripts/docs/build.ts']);
    expect(changed.stdout).toContain('Docs written to');
    expect(modified('dist/docs/index.html')).toBeGreaterThan(built);
  });
});

describe("Redocly's output", () => {
  const box = (lines: string[]) => {
    const width = Math.max(...lines.map((line) => line.length)) + 4;
    return [`    ╔${'═'.repeat(width)}╗`, ...lines.map((line) => `    ║  ${line.padEnd(width - 2)}║`), `    ╚${'═'.repeat(width)}╝`];
  };

  test('keeps what is not a boxed notice', () => {
    const output = [
      '',
      ...box(['Deprecation warning: Node.js 20 support is ending', 'Node.js 20 reached end-of-life on April 30, 2026.']),
      '',
      '',
      ...box(['build-docs now renders docs with Redoc 3.']),
      '',
      '[WARNING] something to fix',
      '',
    ].join('\n');
    expect(withoutNotices(output)).not.toMatch(/Node\.js 20|Redoc 3|║/);
    expect(withoutNotices(output)).toContain('[WARNING] something to fix');
  });
});

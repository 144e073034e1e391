/**
 * docs/contributing.md cannot drift from the repository: every file it names exists, every npm
 * script and test file its commands name exists, and the commands of "Adding an operation" run
 * as written (the PostgreSQL one included: it skips, saying so, when TEST_DATABASE_URL is not
 * set). Its three walks (a read, a paged list, a write with an Idempotency-Key) are there.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '../../server/test-support/processes.js';
import { runBash } from '../support/bash.js';
import { fencedBlocks } from '../support/markdown.js';

const guide = readFileSync(join(repoRoot, 'docs', 'contributing.md'), 'utf8');
const scripts = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
const databaseUrl = process.env.TEST_DATABASE_URL || undefined;

/** The repository paths the guide names in code spans (not placeholders such as `openapi/paths/<path>.yaml`). */
const namedFiles = [
  ...new Set(
    [...guide.matchAll(/`([^`\s]+)`/g)]
      .map((m) => m[1]!)
      .filter((span) => /^(server|lib|openapi|scripts|test|conformance|client|generated|docs|releases|examples)\/[\w./{}-]+\.\w+$/.test(span)),
  ),
];

/** Every command line of the guide's `sh` blocks, by section, without its comment. */
function commands(section: string): string[] {
  return fencedBlocks(guide, section, 'sh')
    .flatMap((block) => block.split('\n'))
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
const sections = [...guide.matchAll(/^#{2} .+$/gm)].map((m) => m[0]);
const allCommands = sections.flatMap((section) => commands(section));

/** This process's environment without vitest's own variables: the command runs as from a shell. */
function shellEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|npm_|NODE_ENV$|TEST$|TEST_DATABASE_URL$)/.test(name)));
}

describe('docs/contributing.md', () => {
  test('walks a read, a paged list and a write with an Idempotency-Key, each naming its files', () => {
    for (const walk of ['A read by id: `GET /client/{id}`', 'A paged list: `GET /client`', 'A write with an Idempotency-Key']) {
      const at = guide.indexOf(`#### ${walk}`);
      expect(at, `the walk "${walk}"`).toBeGreaterThan(0);
      const next = guide.indexOf('\n#', at + 1);
      const files = namedFiles.filter((file) => guide.slice(at, next).includes(`\`${file}\``));
      expect(files.length, `files named in the walk "${walk}"`).toBeGreaterThanOrEqual(4);
    }
  });

  test.each(namedFiles)('names %s, which exists', (file) => {
    expect(existsSync(join(repoRoot, file)), `docs/contributing.md names ${file}`).toBe(true);
  });

  test('every npm script and test file its commands name exists', () => {
    expect(allCommands.length).toBeGreaterThan(5);
    for (const line of allCommands) {
      for (const m of line.matchAll(/\bnpm run (?:-s )?([\w:]+)/g)) expect(Object.keys(scripts), line).toContain(m[1]);
      if (line.startsWith('npm ') && !line.startsWith('npm run') && !line.startsWith('npm ci'))
        expect(Object.keys(scripts), line).toContain(line.split(' ')[1]);
      for (const m of line.matchAll(/\s([\w/.-]+\.test\.ts)\b/g)) expect(existsSync(join(repoRoot, m[1]!)), line).toBe(true);
    }
  });

  const loop = commands('## Adding an operation');
  const storeCommand = loop.find((line) => line.includes('TEST_DATABASE_URL='));

  test('its loop is build:contract, test:operation and the store suite on PostgreSQL', () => {
    expect(loop.some((line) => line.startsWith('npm run build:contract'))).toBe(true);
    // npm run test:operation, as written here, is run by scripts/test-operation/test-operation.test.ts.
    expect(loop.some((line) => line.startsWith('npm run test:operation -- '))).toBe(true);
    expect(readFileSync(join(repoRoot, 'scripts', 'test-operation', 'test-operation.test.ts'), 'utf8')).toContain("'## Adding an operation'");
    expect(storeCommand).toBeDefined();
  });

  if (!databaseUrl)
    console.warn(
      "NOTICE: test/guides/contributing.test.ts: the guide's PostgreSQL command is not run: set TEST_DATABASE_URL=postgres://root@127.0.0.1:5432/test",
    );
  test.skipIf(!databaseUrl)('its store command runs the store suite on PostgreSQL, as written', { timeout: 180_000 }, async () => {
    const line = storeCommand!.replace(/TEST_DATABASE_URL=\S+/, `TEST_DATABASE_URL='${databaseUrl}'`);
    const ran = await runBash(line, { cwd: repoRoot, env: shellEnv(), timeoutMs: 170_000 });
    expect(ran.code, ran.stdout + ran.stderr).toBe(0);
    // The store suite runs on PostgreSQL too: it says so when it does not.
    expect(ran.stdout + ran.stderr).not.toContain('PostgreSQL store tests skipped');
    expect(ran.stdout).toMatch(/store\.test\.ts/);
  });
});

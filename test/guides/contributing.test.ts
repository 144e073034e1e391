/**
 * docs/contributing.md cannot drift from the repository: every file it names exists, every npm
 * script and test file its commands name exists, and the commands of "Adding an operation" run
 * as written (the PostgreSQL one included: it skips, saying so, when TEST_DATABASE_URL is not
 * set). Its three walks (a read, a paged list, a write with an Idempotency-Key) each name exactly
 * the files their operation takes part in, as the contract and the code say
 * (test/support/operation-files.ts): the equivalent of making the addition in a scratch copy,
 * which cannot drift.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { repoRoot } from '../../server/test-support/processes.js';
import { runBash } from '../support/bash.js';
import { fencedBlocks } from '../support/markdown.js';
import { participants, walkDrift } from '../support/operation-files.js';

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

/**
 * The guide's walks: a heading `#### <kind>: `METHOD /path` (`operationId`)` and its numbered
 * steps, with the repository files the steps name.
 */
const walks = [...guide.matchAll(/^#### (A read by id|A paged list|A write with an Idempotency-Key): `[^`]+` \(`(\w+)`\)/gm)].map((m) => {
  const steps = guide.slice(guide.indexOf('\n1. ', m.index));
  const list = steps.slice(0, steps.search(/\n\n/) + 1 || undefined);
  return { kind: m[1]!, operationId: m[2]!, files: namedFiles.filter((file) => list.includes(`\`${file}\``)) };
});
const allCommands = sections.flatMap((section) => commands(section));

/** This process's environment without vitest's own variables: the command runs as from a shell. */
function shellEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|npm_|NODE_ENV$|TEST$|TEST_DATABASE_URL$)/.test(name)));
}

describe('docs/contributing.md', () => {
  test('walks a read, a paged list and a write with an Idempotency-Key, each naming its operation', () => {
    expect(walks.map((w) => w.kind)).toEqual(['A read by id', 'A paged list', 'A write with an Idempotency-Key']);
    expect(walks.map((w) => w.operationId)).toEqual(['getClient', 'listClients', 'createPaymentLink']);
  });

  // What each walk names is what its operation takes part in, derived from the contract and the
  // code: a file a new operation of its kind must change that the walk omits, or a file it names
  // that no longer takes part, fails here.
  test.each(walks.map((w) => [w.kind, w] as const))('the walk "%s" names the files its operation takes part in, and only those', (_kind, walk) => {
    const { missing, strays } = walkDrift(walk.files, participants(walk.operationId));
    expect(missing, `files ${walk.operationId} takes part in that the walk does not name`).toEqual([]);
    expect(strays, `files the walk names that take no part in ${walk.operationId}`).toEqual([]);
  });

  test('the walk check fails a walk that omits a file or names one that takes no part', () => {
    const read = participants('getClient');
    const { missing, strays } = walkDrift([...read.required.filter((file) => file !== 'server/routes/clients.test.ts'), 'server/routes/webhooks.ts'], read);
    expect(missing).toEqual(['server/routes/clients.test.ts']);
    expect(strays).toEqual(['server/routes/webhooks.ts']);
    // The participants are the operation's own: a list's are not a read's (the paging parameters
    // are every list's, so a second list makes them shared, not a list's own: they are reached).
    expect(participants('listClients').reaches).toContain('openapi/components/parameters/PageLimit.yaml');
    expect(read.reaches).not.toContain('openapi/components/parameters/PageLimit.yaml');
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

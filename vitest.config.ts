import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import LongFilesFirst from './test/support/sequencer.js';

const root = fileURLToPath(new URL('.', import.meta.url));

const everything = [
  'test/**/*.test.ts',
  'server/**/*.test.ts',
  'conformance/**/*.test.ts',
  'lib/**/*.test.ts',
  'scripts/**/*.test.ts',
  'client/**/*.test.ts',
  'examples/**/*.test.ts',
];

/**
 * Tests run once, not once per engine: the store suite and the two-instance test (which choose
 * their engines themselves), and the tests that read the SQLite file itself (the SQLite store,
 * a crash's file, secrets in the file, the keys CLI's file). Server processes of the other tests
 * get a PostgreSQL schema in place of their file on the PostgreSQL run (test-support/processes).
 */
const runOnce = [
  'server/scale-out/**/*.test.ts',
  'server/store/**/*.test.ts',
  'server/robustness/crash.test.ts',
  'server/robustness/secrets.test.ts',
  'server/cli/keys.test.ts',
];

/** Every test file under `dir` (relative to the repository). */
function testFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) found.push(...testFiles(path));
    else if (entry.name.endsWith('.test.ts')) found.push(path);
  }
  return found;
}

/**
 * Most test files share their worker's modules (vitest's `isolate: false`): the contract, the
 * validators and the server's modules are imported and compiled once per worker rather than once
 * per file, which halves the CPU of a run. A file that changes what other files would see gets a
 * module graph of its own: it mocks modules or globals (`vi.*`), sets environment variables, or
 * runs child processes (test-support/processes keeps the children and bundles of its file).
 */
const needsIsolation = /\bvi\.|process\.env\.\w+\s*=(?!=)|process\.env\[[^\]]+\]\s*=(?!=)|delete process\.env|test-support\/processes/;
const isolated = everything
  .map((pattern) => pattern.slice(0, pattern.indexOf('/')))
  .flatMap(testFiles)
  .filter((file) => needsIsolation.test(readFileSync(join(root, file), 'utf8')));

/**
 * The Node lines' own test installs the other tested Node lines from the registry and builds
 * better-sqlite3's addon for each: `npm run test:node` runs it (as the project `node-lines`, which
 * exists only when TEST_NODE_LINES=1) before the tests on those lines, which use what it made.
 * `npm test` downloads no Node binary.
 */
const nodeLinesTest = 'scripts/node-lines/lines.test.ts';

// The server tests run on SQLite, and again on PostgreSQL when TEST_DATABASE_URL names one
// (.ci/run sets it); without it the PostgreSQL run is skipped, and said so.
const postgres = process.env.TEST_DATABASE_URL;
if (!postgres) {
  console.warn(
    'NOTICE: TEST_DATABASE_URL is not set: the server tests run on SQLite only (set it, e.g. postgres://root@127.0.0.1:5432/test, to run them on PostgreSQL too).',
  );
}

export default defineConfig({
  // The package's own client by its name (examples/ import it so), from its source, as tsconfig.json's `paths`.
  resolve: { alias: { 'pix-payments-toolkit/client': fileURLToPath(new URL('./client/index.ts', import.meta.url)) } },
  test: {
    // Three test files at a time, on two cores (vitest's default there is one): most files wait on
    // servers, browsers, PostgreSQL and fsyncs rather than compute, and a third fills those waits
    // (a full run with both engines: 710 s with two, 610 s with three, on the same loaded machine).
    maxWorkers: 3,
    testTimeout: 30_000,
    globalSetup: ['test/support/global-setup.ts'],
    // The long files (each says so: `// long-running: about N s`) start first, the longest first.
    sequence: { sequencer: LongFilesFirst },
    hookTimeout: 60_000,
    // Each engine's files in two projects, `<engine>` sharing modules and `<engine>:isolated`
    // (`--project 'sqlite*'` names both).
    projects: [
      { extends: true as const, test: { name: 'sqlite', include: everything, exclude: [...isolated, nodeLinesTest], isolate: false } },
      { extends: true as const, test: { name: 'sqlite:isolated', include: isolated, exclude: [nodeLinesTest] } },
      ...(process.env.TEST_NODE_LINES === '1' ? [{ extends: true as const, test: { name: 'node-lines', include: [nodeLinesTest] } }] : []),
      ...(postgres
        ? [false, true].map((isolate) => ({
            extends: true as const,
            test: {
              name: isolate ? 'postgres:isolated' : 'postgres',
              include: isolate ? isolated.filter((file) => file.startsWith('server/')) : ['server/**/*.test.ts'],
              exclude: isolate ? runOnce : [...runOnce, ...isolated],
              isolate,
              env: { TEST_ENGINE: 'postgres' },
              setupFiles: ['server/test-support/postgres-schemas.ts'],
            },
          }))
        : []),
    ],
  },
});

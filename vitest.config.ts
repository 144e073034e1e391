import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

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
    // Two test files at a time, even on two cores (vitest's default there is one): most files
    // wait on servers, browsers, PostgreSQL and fsyncs rather than compute, and CI has 15 minutes.
    maxWorkers: 2,
    testTimeout: 30_000,
    globalSetup: ['test/support/global-setup.ts'],
    hookTimeout: 60_000,
    projects: [
      { extends: true as const, test: { name: 'sqlite', include: everything } },
      ...(postgres
        ? [
            {
              extends: true as const,
              test: {
                name: 'postgres',
                include: ['server/**/*.test.ts'],
                exclude: runOnce,
                env: { TEST_ENGINE: 'postgres' },
                setupFiles: ['server/test-support/postgres-schemas.ts'],
              },
            },
          ]
        : []),
    ],
  },
});

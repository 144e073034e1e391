import { defineConfig } from 'vitest/config';

const everything = ['test/**/*.test.ts', 'server/**/*.test.ts', 'conformance/**/*.test.ts', 'lib/**/*.test.ts', 'scripts/**/*.test.ts'];

/**
 * Tests run once, not once per engine: of the SQLite store and file itself, the store suite and
 * the two-instance test (which choose their engines themselves), and the tests of server
 * processes started on a SQLite file.
 */
const runOnce = [
  'server/scale-out/**/*.test.ts',
  'server/store/**/*.test.ts',
  'server/robustness/crash.test.ts',
  'server/robustness/secrets.test.ts',
  'server/robustness/limits.test.ts',
  'server/main.test.ts',
  'server/cli/keys.test.ts',
  'server/webhooks/delivery.e2e.test.ts',
];

// The server tests run on SQLite, and again on PostgreSQL when TEST_DATABASE_URL names one
// (.ci/run sets it); without it the PostgreSQL run is skipped, and said so.
const postgres = process.env.TEST_DATABASE_URL;
if (!postgres) {
  console.warn('NOTICE: TEST_DATABASE_URL is not set: the server tests run on SQLite only (set it, e.g. postgres://root@127.0.0.1:5432/test, to run them on PostgreSQL too).');
}

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true as const, test: { name: 'sqlite', include: everything } },
      ...(postgres
        ? [{ extends: true as const, test: { name: 'postgres', include: ['server/**/*.test.ts'], exclude: runOnce, env: { TEST_ENGINE: 'postgres' } } }]
        : []),
    ],
  },
});

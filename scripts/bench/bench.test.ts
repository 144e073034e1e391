/**
 * Smoke test of `npm run bench`: one short round of each phase end to end, as a child process. It
 * checks that the harness works (every target started, every scenario measured in its phase, the
 * targets evaluated), not how fast anything is: the speed targets are the bench's own verdict
 * (exit code 1), not a test's. With TEST_DATABASE_URL it also gives the bench that PostgreSQL
 * server (--database-url) and checks the PostgreSQL row and that its schema is gone afterwards;
 * without, that the row is skipped, saying so.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, expect, test } from 'vitest';
import type { Results } from './report.js';
import { chargeScenario, scenarios } from './scenarios.js';
import { repoRoot } from './targets.js';

const folder = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
const databaseUrl = process.env.TEST_DATABASE_URL || undefined;
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function runBench(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
    execFile(
      tsx,
      [join(repoRoot, 'scripts', 'bench', 'run.ts'), ...args],
      // BENCH_DATABASE_URL of the person running the tests is not the bench's: only --database-url is.
      { cwd: repoRoot, env: { ...process.env, BENCH_DATABASE_URL: '' }, timeout: 110_000, maxBuffer: 10 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      },
    );
  });
}

test('one short round per phase measures every scenario on every target and evaluates the targets', { timeout: 120_000 }, async () => {
  const out = join(folder, 'results.json');
  const scales = [200, 400];
  // Small client scales: the smoke test checks the harness, not the history's cost.
  const args = ['--duration', '1', '--warmup', '0', '--rounds', '1', '--client-scales', scales.join(','), '--out', out];
  const { code, stdout, stderr } = await runBench(databaseUrl ? [...args, '--database-url', databaseUrl] : args);
  // 0: every target holds, 1: one fails; 2 (or a kill) would be a broken harness.
  expect([0, 1], `exit code ${code}\n${stderr}`).toContain(code);
  expect(stdout).toContain('Targets');

  const results = JSON.parse(readFileSync(out, 'utf8')) as Results;
  const plan = scenarios(scales);
  // One round of each phase, each measuring exactly its own scenarios.
  expect(results.rounds.map((round) => [round.phase, round.round])).toEqual([
    [1, 1],
    [2, 1],
  ]);
  for (const round of results.rounds) {
    expect(Object.keys(round.scenarios), `phase ${round.phase}`).toEqual(plan.filter((scenario) => scenario.phase === round.phase).map((s) => s.name));
    expect(round.smallArray.reqPerSec, `small array, phase ${round.phase}`).toBeGreaterThan(0);
  }
  // Phase 1 holds the smallest history's lists and nothing of the larger one.
  expect(plan.filter((scenario) => scenario.clients !== undefined && scenario.phase === 1).map((s) => s.clients)).toEqual([200, 200]);
  expect(plan.filter((scenario) => scenario.phase === 2).map((s) => s.clients)).toEqual([400, 400]);
  expect(Object.keys(results.medians.scenarios)).toEqual(plan.map((scenario) => scenario.name));

  let writes = 0;
  for (const scenario of plan) {
    const figures = results.medians.scenarios[scenario.name]!;
    const ratios = results.ratios.scenarios[scenario.name]!;
    for (const target of [
      'reference',
      'sameBytes',
      ...(scenario.write ? (['durableWrite'] as const) : []),
      ...(scenario.withPrism ? (['prism'] as const) : []),
    ] as const) {
      expect(figures[target]?.reqPerSec, `${target} ${scenario.name}`).toBeGreaterThan(0);
    }
    if (scenario.write) {
      writes++;
      expect(Number.isFinite(ratios.referenceToDurableWrite?.median), `reference / durable write, ${scenario.name}`).toBe(true);
    } else {
      expect(figures.durableWrite, `durable write of a read, ${scenario.name}`).toBeUndefined();
      expect(ratios.referenceToDurableWrite, `reference / durable write of a read, ${scenario.name}`).toBeUndefined();
    }
  }
  expect(writes).toBe(2);

  // The PostgreSQL row: the writes on a reference server on PostgreSQL, or one line saying how to get it.
  const postgresRows = plan.filter((scenario) => results.medians.scenarios[scenario.name]?.postgres !== undefined).map((scenario) => scenario.name);
  if (databaseUrl) {
    expect(results.postgres).toHaveProperty('schema');
    expect(postgresRows).toEqual(plan.filter((scenario) => scenario.write).map((scenario) => scenario.name));
    for (const name of postgresRows) {
      expect(results.medians.scenarios[name]?.postgres?.reqPerSec, `PostgreSQL, ${name}`).toBeGreaterThan(0);
      expect(Number.isFinite(results.ratios.scenarios[name]?.postgresToSqlite?.median), `PostgreSQL / SQLite, ${name}`).toBe(true);
    }
    expect(stdout).toContain('reference server on PostgreSQL');
    expect(stdout).toContain('PostgreSQL / SQLite');
    // Nothing left behind on the server.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const schema = 'schema' in results.postgres ? results.postgres.schema : '';
      const { rowCount } = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
      expect(rowCount, `schema ${schema} still there`).toBe(0);
    } finally {
      await client.end();
    }
  } else {
    expect(results.postgres).toHaveProperty('skipped');
    expect(postgresRows).toEqual([]);
    expect(stdout.match(/^PostgreSQL row skipped: .*--database-url.*$/gm)).toHaveLength(1);
  }
  expect(stdout).toContain('bare Hono, same bytes written durably (limit)');
  expect(stdout).toContain('reference / durable write');

  // The two memory rows, each a target of its own.
  expect(results.referencePhase1PeakRssMb).toBeGreaterThan(0);
  expect(results.referenceLargestHistoryPeakRssMb).toBeGreaterThan(0);
  const rssTargets = results.targets.filter((target) => target.name.startsWith('peak RSS'));
  expect(rssTargets.map((target) => [target.measured, target.limit])).toEqual([
    [results.referencePhase1PeakRssMb, 128],
    [results.referenceLargestHistoryPeakRssMb, 256],
  ]);
  expect(stdout).toMatch(/Peak RSS of the reference server: [0-9.]+ MB in phase 1; [0-9.]+ MB during the lists of 400 clients/);

  expect(results.startups).toHaveLength(1);
  expect(results.medians.startup.referenceMs).toBeGreaterThan(0);
  expect(results.medians.startup.prismMs).toBeGreaterThan(0);
  expect(results.qr.referenceMsPerPng).toBeGreaterThan(0);

  // Every scenario's own ratio targets, then paged across histories, two RSS, start-up, QR.
  const scenarioTargets = plan.reduce((sum, scenario) => sum + Object.keys(scenario.targets).length, 0);
  expect(results.targets).toHaveLength(scenarioTargets + 5);
  for (const target of results.targets) {
    expect(typeof target.pass, target.name).toBe('boolean');
    expect(Number.isFinite(target.measured), target.name).toBe(true);
    if (target.unit === 'x' && !target.name.startsWith('brCodeBase64')) expect(target.spread, `spread of ${target.name}`).toBeDefined();
  }
  // One round is too few to judge GET /charge/{id} against its same bytes: it fails, saying why.
  const charge = results.targets.find((target) => target.name.startsWith(`${chargeScenario} req/s, reference / bare Hono (same bytes)`));
  expect(charge).toMatchObject({ pass: false, reason: 'needs --rounds 3 or more' });
  expect(stdout).toContain('FAIL: needs --rounds 3 or more');
  // Each ratio target's spread in the text: median (lowest–highest).
  expect(stdout).toMatch(/[0-9.]+ \([0-9.]+–[0-9.]+\) x/);
});

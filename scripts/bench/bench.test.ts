/**
 * Smoke test of `npm run bench`: one short round of each phase end to end, as a child process. It
 * checks that the harness works (every target started, every scenario measured in its phase at
 * one fixed rate, its CPU per request read, the targets evaluated), not how fast anything is: the
 * speed targets are the bench's own verdict (exit code 1), not a test's. The CPU arithmetic
 * (cpu.ts) is tested on its own first. With TEST_DATABASE_URL it also gives the bench that PostgreSQL
 * server (--database-url) and checks the PostgreSQL row and that its schema is gone afterwards;
 * without, that the row is skipped, saying so.
 */
// long-running: about 55 s (every phase of the bench, each target a process); test/support/sequencer.ts starts it early
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { cpuMicrosPerRequest, cpuRatio, fixedRate, parseSchedstatNs, readCpuNs, readTreeCpuNs } from './cpu.js';
import { HarnessError } from './harness-error.js';
import { fixedRateRequests } from './load.js';
import { parseOptions, UsageError } from './options.js';
import { scenarioRatios, type Results, type RunFigures } from './report.js';
import { chargeScenario, orderScenario, pagedClientsScenario, paymentLinkScenario, scenarios, unpagedClientsScenario } from './scenarios.js';
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
      { cwd: repoRoot, env: { ...process.env, BENCH_DATABASE_URL: '' }, timeout: 170_000, maxBuffer: 10 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      },
    );
  });
}

describe('CPU per request (cpu.ts)', () => {
  // A thread's schedstat (proc(5)): ns on the CPU, ns waiting to run, slices run.
  test.each<[string, string, number | RegExp]>([
    ['a line as the kernel writes it', '18033447 11943482 70\n', 18_033_447],
    ['without its newline', '18033447 11943482 70', 18_033_447],
    ['a thread that has not run yet', '0 0 0\n', 0],
    ['an hour of CPU', '3600000000000 5 1\n', 3_600_000_000_000],
    ['empty', '', /not a schedstat line/],
    ['two fields', '18033447 11943482\n', /not a schedstat line/],
    ['four fields', '1 2 3 4\n', /not a schedstat line/],
    ['a negative time', '-5 0 1\n', /not a schedstat line/],
    ['a fraction', '1.5 0 1\n', /not a schedstat line/],
    ['words', 'time on cpu\n', /not a schedstat line/],
    ["beyond a double's whole numbers", '18446744073709551615 0 1\n', /not a schedstat line/],
  ])('schedstat: %s', (_name, line, want) => {
    if (want instanceof RegExp) {
      expect(() => parseSchedstatNs(line)).toThrow(HarnessError);
      expect(() => parseSchedstatNs(line)).toThrow(want);
    } else expect(parseSchedstatNs(line)).toBe(want);
  });

  test("a process's CPU is its threads' summed; a thread gone since the listing is skipped, a malformed one is an error", () => {
    const proc = join(folder, 'proc');
    const thread = (pid: number, tid: number, schedstat?: string) => {
      mkdirSync(join(proc, String(pid), 'task', String(tid)), { recursive: true });
      if (schedstat !== undefined) writeFileSync(join(proc, String(pid), 'task', String(tid), 'schedstat'), schedstat);
    };
    thread(4242, 4242, '1000000 5 10\n');
    thread(4242, 4243, '250 0 1\n');
    // Listed, then exited before its file was read: no schedstat any more.
    thread(4242, 4244);
    expect(readCpuNs(4242, proc)).toBe(1_000_250);
    thread(4343, 4343, '1000 0 1\n');
    thread(4343, 4344, 'garbage\n');
    expect(() => readCpuNs(4343, proc)).toThrow(/task\/4344\/schedstat: not a schedstat line/);
    // Every thread gone: the process has exited.
    thread(4444, 4445);
    expect(() => readCpuNs(4444, proc)).toThrow(/no thread of process 4444/);
    expect(() => readCpuNs(4545, proc)).toThrow(/cannot read .*4545\/task/);
  });

  test("a process tree's CPU is its processes' summed, children listed by each thread; a child gone since the listing is skipped", () => {
    const proc = join(folder, 'proc-tree');
    const thread = (pid: number, tid: number, schedstat: string, children = '') => {
      mkdirSync(join(proc, String(pid), 'task', String(tid)), { recursive: true });
      writeFileSync(join(proc, String(pid), 'task', String(tid), 'schedstat'), schedstat);
      writeFileSync(join(proc, String(pid), 'task', String(tid), 'children'), children);
    };
    // The mock: the script (two threads, one with a child), Prism (with a child of its own).
    thread(5000, 5000, '1000 0 1\n', '5100 ');
    thread(5000, 5001, '10 0 1\n');
    thread(5100, 5100, '200000 0 1\n', '5200');
    thread(5200, 5200, '3 0 1\n');
    expect(readTreeCpuNs(5000, proc)).toBe(201_013);
    expect(readTreeCpuNs(5100, proc)).toBe(200_003);
    // A child listed that has exited since: skipped.
    thread(6000, 6000, '7 0 1\n', '6100');
    expect(readTreeCpuNs(6000, proc)).toBe(7);
  });

  test("a process's own CPU is read from /proc in ns and grows with the work it does", () => {
    const before = readCpuNs(process.pid);
    expect(before).toBeGreaterThan(0);
    // Work until the kernel has counted more (a bounded loop, not a timing): a running thread's
    // time is brought up to date at its next switch or tick.
    let after = before;
    let sum = 0;
    for (let i = 0; i < 200 && after === before; i++) {
      for (let j = 0; j < 1_000_000; j++) sum += j % 7;
      after = readCpuNs(process.pid);
    }
    expect(sum).toBeGreaterThan(0);
    expect(after).toBeGreaterThan(before);
    expect(() => readCpuNs(2 ** 22 + 1)).toThrow(/cannot read \/proc/);
  });

  test('µs per request: ns over answers', () => {
    // 1.5 s of CPU over 50,000 answers: 30 µs each.
    expect(cpuMicrosPerRequest(1_500_000_000, 50_000)).toBeCloseTo(30, 10);
    // Less than a clock tick's 10 ms still reads: 3.6 ms over 300 answers.
    expect(cpuMicrosPerRequest(3_600_000, 300)).toBeCloseTo(12, 10);
    expect(() => cpuMicrosPerRequest(3, 0)).toThrow(/without answers/);
  });

  test('the fixed rate is half the slowest maximum, a multiple of the connections, at least 1', () => {
    expect(fixedRate([44_000, 13_400], 16)).toBe(6_688);
    expect(fixedRate([13_400, 44_000, 1_525], 16)).toBe(752);
    // Below the connections, autocannon lowers the connections to the rate.
    expect(fixedRate([21, 6], 1)).toBe(3);
    expect(fixedRate([20], 16)).toBe(10);
    expect(fixedRate([1.5], 1)).toBe(1);
    expect(() => fixedRate([], 16)).toThrow();
    expect(() => fixedRate([100, 0], 16)).toThrow();
    expect(fixedRateRequests({ connections: 16, duration: 10, rate: 752 })).toBe(7_520);
    // A fraction of a second: rounded, never none.
    expect(fixedRateRequests({ connections: 16, duration: 0.5, rate: 753 })).toBe(377);
    expect(fixedRateRequests({ connections: 1, duration: 0.1, rate: 3 })).toBe(1);
  });

  test("each ratio is the other target's µs over the reference's", () => {
    const run = (cpuUsPerRequest: number): RunFigures => ({
      maxReqPerSec: 1,
      offeredRate: 1,
      p50Ms: 1,
      p99Ms: 1,
      requests: 1,
      cpuMs: 1,
      cpuUsPerRequest,
      peakRssMb: 1,
    });
    expect(cpuRatio(20, 60)).toBeCloseTo(1 / 3, 10);
    const ratios = scenarioRatios({ reference: run(100), sameBytes: run(25), durableWrite: run(60), prism: run(900), postgres: run(150) }, run(10));
    expect(ratios).toEqual({
      sameBytesToReference: 0.25,
      durableWriteToReference: 0.6,
      smallArrayToReference: 0.1,
      prismToReference: 9,
      postgresToSqlite: 1.5,
    });
    expect(scenarioRatios({ reference: run(50), sameBytes: run(25) }, run(10))).toEqual({ sameBytesToReference: 0.5, smallArrayToReference: 0.2 });
    // Prism and PostgreSQL are compared with the reference at their own rate, where it was measured.
    const atTheirRate = scenarioRatios(
      { reference: run(50), sameBytes: run(25), prism: run(900), postgres: run(300), referenceAtComparisonRate: run(100) },
      run(10),
    );
    expect(atTheirRate).toMatchObject({ sameBytesToReference: 0.5, prismToReference: 9, postgresToSqlite: 3 });
  });
});

describe('the command line (options.ts)', () => {
  test.each<[string, { given: string[]; want: { duration: number; warmup: number } | RegExp }]>([
    ['the defaults', { given: [], want: { duration: 10, warmup: 1 } }],
    ['whole seconds', { given: ['--duration', '5', '--warmup', '2'], want: { duration: 5, warmup: 2 } }],
    ['decimal seconds, for a smoke run', { given: ['--duration=0.5', '--warmup', '.3'], want: { duration: 0.5, warmup: 0.3 } }],
    ['less than a tenth', { given: ['--warmup', '0.05'], want: /^--warmup needs a number of seconds, 0\.1 or more, got "0\.05"$/ }],
    ['zero', { given: ['--duration', '0'], want: /^--duration needs a number of seconds, 0\.1 or more, got "0"$/ }],
    ['not a number', { given: ['--duration', '1s'], want: /^--duration needs a number of seconds, 0\.1 or more, got "1s"$/ }],
    ['nothing', { given: ['--duration'], want: /^--duration needs a number of seconds, 0\.1 or more, got nothing$/ }],
  ])('%s', (_name, { given, want }) => {
    if (want instanceof RegExp) {
      expect(() => parseOptions(given)).toThrow(UsageError);
      expect(() => parseOptions(given)).toThrow(want);
    } else expect(parseOptions(given)).toMatchObject(want);
  });
});

test('one short round per phase measures every scenario on every target at one rate, reads its CPU and evaluates the targets', {
  timeout: 180_000,
}, async () => {
  const out = join(folder, 'results.json');
  const scales = [200, 400];
  // Small client scales and short runs: the smoke test checks the harness, not the history's cost.
  // 0.2 s a run (and a warm-up) rather than 0.5: 54 rather than 64 s of CPU in alternating runs,
  // most of it at full speed, the same checks.
  const seconds = 0.2;
  const args = ['--duration', String(seconds), '--warmup', String(seconds), '--rounds', '1', '--client-scales', scales.join(','), '--out', out];
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
    expect(round.smallArray.cpuMs, `small array, phase ${round.phase}`).toBeGreaterThan(0);
    expect(round.smallArray.cpuUsPerRequest, `small array, phase ${round.phase}`).toBeGreaterThan(0);
    for (const [name, figures] of Object.entries(round.scenarios)) {
      const { reference, sameBytes, durableWrite, referenceAtComparisonRate, prism, postgres } = figures;
      // One fixed rate for the reference and every floor, another for Prism and PostgreSQL with
      // the reference again; each below every one of its targets' full-speed maximum.
      const floors = [reference, sameBytes, ...(durableWrite ? [durableWrite] : [])];
      const compared = [...(prism ? [prism] : []), ...(postgres ? [postgres] : [])];
      expect(referenceAtComparisonRate === undefined, name).toBe(compared.length === 0);
      const groups = referenceAtComparisonRate ? [floors, [referenceAtComparisonRate, ...compared]] : [floors];
      for (const group of groups)
        expect(
          group.map((run) => run.offeredRate),
          name,
        ).toEqual(group.map(() => group[0]!.offeredRate));
      for (const run of groups.flat()) {
        expect(run.offeredRate, name).toBeLessThan(run.maxReqPerSec);
        // Its requests, answered, and its CPU read from /proc in ns: some for every run, however
        // short and slow, over its answers.
        expect(run.requests, name).toBe(fixedRateRequests({ connections: 16, duration: seconds, rate: run.offeredRate }));
        expect(run.cpuMs, name).toBeGreaterThan(0);
        expect(run.cpuUsPerRequest, name).toBeCloseTo(cpuMicrosPerRequest(run.cpuMs * 1e6, run.requests), 6);
      }
      const ratios = round.ratios[name]!;
      expect(ratios.sameBytesToReference, name).toBeCloseTo(sameBytes.cpuUsPerRequest / reference.cpuUsPerRequest, 10);
      if (durableWrite) expect(ratios.durableWriteToReference, name).toBeCloseTo(durableWrite.cpuUsPerRequest / reference.cpuUsPerRequest, 10);
      if (prism) expect(ratios.prismToReference, name).toBeCloseTo(prism.cpuUsPerRequest / referenceAtComparisonRate!.cpuUsPerRequest, 10);
      if (postgres) expect(ratios.postgresToSqlite, name).toBeCloseTo(postgres.cpuUsPerRequest / referenceAtComparisonRate!.cpuUsPerRequest, 10);
    }
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
      expect(figures[target]?.cpuUsPerRequest, `${target} ${scenario.name}`).toBeGreaterThan(0);
      expect(figures[target]?.maxReqPerSec, `${target} ${scenario.name}`).toBeGreaterThan(0);
    }
    // The mock through its front and Prism alone, at full speed, where the scenario says so.
    if (scenario.withMockFront) {
      for (const run of [figures.prismFullSpeed, figures.mockFrontFullSpeed]) {
        expect(run?.reqPerSec, `full speed, ${scenario.name}`).toBeGreaterThan(0);
        expect(run?.cpuMs, `full speed, ${scenario.name}`).toBeGreaterThan(0);
        expect(run?.cpuUsPerRequest, `full speed, ${scenario.name}`).toBeCloseTo(cpuMicrosPerRequest((run?.cpuMs ?? 0) * 1e6, run?.requests ?? 1), 6);
      }
      expect(ratios.mockFrontToPrism?.median, scenario.name).toBeCloseTo(figures.mockFrontFullSpeed!.reqPerSec / figures.prismFullSpeed!.reqPerSec, 10);
    } else {
      expect(figures.mockFrontFullSpeed, scenario.name).toBeUndefined();
      expect(ratios.mockFrontToPrism, scenario.name).toBeUndefined();
    }
    if (scenario.write) {
      writes++;
      expect(Number.isFinite(ratios.durableWriteToReference?.median), `durable write / reference, ${scenario.name}`).toBe(true);
    } else {
      expect(figures.durableWrite, `durable write of a read, ${scenario.name}`).toBeUndefined();
      expect(ratios.durableWriteToReference, `durable write / reference of a read, ${scenario.name}`).toBeUndefined();
    }
  }
  expect(writes).toBe(2);

  // The PostgreSQL row: the writes on a reference server on PostgreSQL, or one line saying how to get it.
  const postgresRows = plan.filter((scenario) => results.medians.scenarios[scenario.name]?.postgres !== undefined).map((scenario) => scenario.name);
  if (databaseUrl) {
    expect(results.postgres).toHaveProperty('schema');
    expect(postgresRows).toEqual(plan.filter((scenario) => scenario.write).map((scenario) => scenario.name));
    for (const name of postgresRows) {
      expect(results.medians.scenarios[name]?.postgres?.cpuUsPerRequest, `PostgreSQL, ${name}`).toBeGreaterThan(0);
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
  expect(stdout).toContain('durable write / reference');
  expect(stdout).toContain('CPU µs/req');

  // The two memory rows, each a target of its own.
  expect(results.referencePhase1PeakRssMb).toBeGreaterThan(0);
  expect(results.referenceLargestHistoryPeakRssMb).toBeGreaterThan(0);
  const rssTargets = results.targets.filter((target) => target.name.startsWith('peak RSS'));
  expect(rssTargets.map((target) => [target.measured, target.limit])).toEqual([
    [results.referencePhase1PeakRssMb, 120],
    [results.referenceLargestHistoryPeakRssMb, 256],
  ]);
  expect(stdout).toMatch(/Peak RSS of the reference server: [0-9.]+ MB in phase 1; [0-9.]+ MB during the lists of 400 clients/);

  expect(results.startups).toHaveLength(1);
  expect(results.medians.startup.referenceMs).toBeGreaterThan(0);
  expect(results.medians.startup.prismMs).toBeGreaterThan(0);
  expect(results.qr.referenceMsPerPng).toBeGreaterThan(0);

  // Every scenario's own targets (CPU ratios, the unpaged list's p50 ceiling), then two RSS, start-up, QR.
  const scenarioTargets = plan.reduce((sum, scenario) => sum + Object.keys(scenario.targets).length, 0);
  expect(results.targets).toHaveLength(scenarioTargets + 4);
  for (const target of results.targets) {
    expect(typeof target.pass, target.name).toBe('boolean');
    expect(Number.isFinite(target.measured), target.name).toBe(true);
    if (target.unit === 'x' && !target.name.startsWith('brCodeBase64')) expect(target.spread, `spread of ${target.name}`).toBeDefined();
  }
  // The CPU rows: same bytes for the charge and the largest paged list, the durable floor for the writes.
  const cpuTargets = results.targets.filter((target) => target.name.includes('CPU per request')).map((target) => [target.name, target.limit]);
  expect(cpuTargets).toEqual(
    expect.arrayContaining([
      [`${chargeScenario} CPU per request, bare Hono (same bytes) / reference`, 0.5],
      [`${pagedClientsScenario(400)} CPU per request, bare Hono (same bytes) / reference`, 0.5],
      [`${paymentLinkScenario} CPU per request, bare Hono (same bytes written durably) / reference`, 0.5],
      [`${orderScenario} CPU per request, bare Hono (same bytes written durably) / reference`, 0.5],
    ]),
  );
  // The mock's front, in req/s against Prism alone's (POST /charge/payment-link).
  expect(plan.filter((scenario) => scenario.withMockFront).map((scenario) => scenario.name)).toEqual([paymentLinkScenario]);
  expect(results.targets.find((target) => target.name === `${paymentLinkScenario} req/s at full speed, mock through its front / Prism alone`)).toMatchObject({
    comparison: '>=',
    limit: 0.8,
    unit: 'x',
  });
  expect(stdout).toMatch(/mock through its front \/ Prism alone, req\/s: [0-9.]+ \([0-9.]+–[0-9.]+\)/);
  expect(results.targets.find((target) => target.name.startsWith(unpagedClientsScenario(400)))).toMatchObject({ comparison: '<=', limit: 350, unit: 'ms' });
  // One round is too few to judge GET /charge/{id} against its same bytes: it fails, saying why.
  const charge = results.targets.find((target) => target.name.startsWith(`${chargeScenario} CPU per request, bare Hono (same bytes)`));
  expect(charge).toMatchObject({ pass: false, reason: 'needs --rounds 3 or more' });
  expect(stdout).toContain('FAIL: needs --rounds 3 or more');
  // Each ratio target's spread in the text: median (lowest–highest).
  expect(stdout).toMatch(/[0-9.]+ \([0-9.]+–[0-9.]+\) x/);
});

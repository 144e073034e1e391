/**
 * `npm run bench`: the reference server against the limit (a bare Hono endpoint) and the Prism
 * mock, in one run. See scripts/bench/options.ts for the command line.
 *
 *   1. the brCodeBase64 PNG micro-benchmark, in this process, before anything else runs;
 *   2. start-up to the first answer, reference and Prism, once per round;
 *   3. the reference, Prism and the mock as `npm run mock` runs it (its front, Prism behind it)
 *      started side by side, the reference seeded through its API with
 *      products, a charge and one company (made with the keys CLI) holding the smallest history
 *      of clients; with --database-url, a second reference server too, on a PostgreSQL schema
 *      made for the run, with a company of its own and the same products;
 *   4. phase 1: bare Hono started with the reference's answer to every phase-1 scenario (the
 *      charge, the writes, the smallest history's lists), to send the same bytes from memory and,
 *      for the writes, once the request is written to a SQLite file of its own and fdatasynced;
 *      then every round: bare Hono's small array once, then for each scenario the reference, bare
 *      Hono with the same bytes, bare Hono writing durably (writes only), (where it applies)
 *      Prism, and the reference on PostgreSQL (writes only) back to back, in alternating order:
 *      each warmed up at full speed (its maximum req/s), then the reference and its floors driven
 *      at one fixed rate, half the slowest one's maximum, for a fixed number of requests (Prism
 *      and PostgreSQL with the reference again at a second rate, half the slowest of them), each
 *      one's own CPU time read from /proc/<pid>/task/<tid>/schedstat before and after, in ns
 *      (µs of CPU per request; cpu.ts). Where a scenario says `withMockFront`, Prism alone and
 *      the mock through its front are then driven at full speed for `--duration` seconds each
 *      (the mock warmed up first), in alternating order: their req/s. The reference's peak RSS
 *      here is that of a small company's work. The PostgreSQL server is then stopped and its
 *      schema dropped (as `cleanUpEverything` drops it if the run fails or is interrupted), and Prism
 *      and the mock are stopped;
 *   5. phase 2: one company per larger history seeded, their answers captured, bare Hono
 *      restarted with every answer, then every round of the larger histories' lists;
 *   6. tables on stdout (progress on stderr), bench/results.json, exit 0 / 1 / 2.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HarnessError } from './harness-error.js';
import { cpuMicrosPerRequest, fixedRate, readCpuNs, readTreeCpuNs } from './cpu.js';
import { runLoad, sampleAnswer, type LoadOptions, type LoadRequest } from './load.js';
import { parseOptions, usage, UsageError, type BenchOptions } from './options.js';
import { qrMicroBenchmark } from './qr.js';
import { createBenchSchema, type BenchSchema } from './postgres.js';
import {
  formatResults,
  roundRatios,
  summarise,
  type FullSpeedRun,
  type PostgresRow,
  type RoundFigures,
  type RunFigures,
  type ScenarioFigures,
  type Startup,
} from './report.js';
import { startPeakRss } from './rss.js';
import { contractExampleChargeId, scenarios, smallArrayRequest, type Scenario, type ScenarioData } from './scenarios.js';
import { seedClientCompany, seedProducts, seedReference } from './seed.js';
import { prismStartupMs, referenceStartupMs } from './startup.js';
import {
  buildReference,
  cleanUpEverything,
  makeTempDir,
  createCompany,
  spawnBareHono,
  spawnMockFront,
  spawnPrism,
  spawnReference,
  stopAllTargets,
  stopTarget,
  targetLabels,
  waitUntilAnswering,
  type CapturedAnswer,
  type ReferenceDatabase,
  type Target,
} from './targets.js';

const progress = (message: string) => process.stderr.write(`[bench] ${message}\n`);

/** One target's part in a scenario: where its figures go, the process and what it is sent. */
type RunKey = Exclude<keyof ScenarioFigures, 'prismFullSpeed' | 'mockFrontFullSpeed'>;

interface Leg {
  key: RunKey;
  target: Target;
  what: string;
  request: LoadRequest;
}

function exitedDuring(target: Target, what: string): HarnessError {
  return new HarnessError(`the ${targetLabels[target.name]} exited during ${what}`);
}

/** The full-speed warm-up: JIT and connections warmed, and the target's maximum req/s found. */
async function warmUp(leg: Leg, connections: number, seconds: number): Promise<{ maxReqPerSec: number; peakRssMb: number }> {
  const label = `${targetLabels[leg.target.name]}, ${leg.what}, warm-up at full speed`;
  progress(`  ${label}`);
  // One request first, outside the warm-up: a target's first answer to a request can take longer
  // than a short warm-up (Prism's took more than 0.3 s on a loaded machine), which then fails on no answer.
  await sampleAnswer(leg.target.baseUrl, leg.request);
  const rss = startPeakRss(leg.target.pid);
  const figures = await runLoad(label, leg.target.baseUrl, leg.request, { connections, duration: seconds });
  const peakRssMb = rss.stop();
  if (leg.target.exit) throw exitedDuring(leg.target, leg.what);
  return { maxReqPerSec: figures.reqPerSec, peakRssMb };
}

/**
 * The measured run: `rate` requests a second for `duration` seconds' worth of requests, and the
 * target's own CPU (its threads' time on the CPU, in ns; cpu.ts) before and after it.
 */
async function measureAtRate(leg: Leg, load: LoadOptions & { rate: number }, warm: { maxReqPerSec: number; peakRssMb: number }): Promise<RunFigures> {
  const label = `${targetLabels[leg.target.name]}, ${leg.what}, ${load.rate} req/s`;
  progress(`  ${label}`);
  const rss = startPeakRss(leg.target.pid);
  const nsBefore = readCpuNs(leg.target.pid);
  const figures = await runLoad(label, leg.target.baseUrl, leg.request, load);
  const cpuNs = readCpuNs(leg.target.pid) - nsBefore;
  const peakRssMb = Math.max(warm.peakRssMb, rss.stop());
  if (leg.target.exit) throw exitedDuring(leg.target, leg.what);
  const cpuUsPerRequest = cpuMicrosPerRequest(cpuNs, figures.requests);
  const cpuMs = cpuNs / 1e6;
  progress(`    ${cpuUsPerRequest.toFixed(1)} µs of CPU per request (${cpuMs.toFixed(1)} ms of CPU, ${figures.requests} requests)`);
  return {
    maxReqPerSec: warm.maxReqPerSec,
    offeredRate: load.rate,
    p50Ms: figures.p50Ms,
    p99Ms: figures.p99Ms,
    requests: figures.requests,
    cpuMs,
    cpuUsPerRequest,
    peakRssMb,
  };
}

/**
 * One scenario (or the small array) on each of its targets, in `legs`' order (which the caller
 * alternates): every target warmed up at full speed, then the reference and its floors driven at
 * one fixed rate, half the slowest one's maximum. Prism and the reference on PostgreSQL, far
 * slower, would drag that rate down for the floors too (a few dozen ms of CPU in a run, at a rate
 * where waking up per request weighs more): where they are measured, they and the reference again
 * are driven at a second rate, half the slowest of those.
 */
async function measureLegs(legs: readonly Leg[], connections: number, options: BenchOptions): Promise<Partial<ScenarioFigures>> {
  const warm = new Map<Leg, { maxReqPerSec: number; peakRssMb: number }>();
  for (const leg of legs) warm.set(leg, await warmUp(leg, connections, options.warmup));
  const warmOf = (leg: Leg) => {
    const figures = warm.get(leg);
    if (!figures) throw new HarnessError(`${leg.what} was not warmed up`);
    return figures;
  };
  const compared = (leg: Leg) => leg.key === 'prism' || leg.key === 'postgres';
  const floors = legs.filter((leg) => !compared(leg));
  const reference = legs.find((leg) => leg.key === 'reference');
  const comparisons = reference && legs.some(compared) ? legs.filter((leg) => leg === reference || compared(leg)) : [];
  const figures: Partial<ScenarioFigures> = {};
  const runGroup = async (group: readonly Leg[], keyOf: (leg: Leg) => RunKey) => {
    const rate = fixedRate(
      group.map((leg) => warmOf(leg).maxReqPerSec),
      connections,
    );
    for (const leg of group) figures[keyOf(leg)] = await measureAtRate(leg, { connections, duration: options.duration, rate }, warmOf(leg));
  };
  await runGroup(floors, (leg) => leg.key);
  if (comparisons.length > 0) await runGroup(comparisons, (leg) => (leg === reference ? 'referenceAtComparisonRate' : leg.key));
  return figures;
}

/**
 * A run at full speed for `--duration` seconds, judged on req/s, with the CPU over it of the
 * target's processes (the mock's: the script and Prism, its child, which runs the front).
 */
async function fullSpeed(leg: Leg, connections: number, options: BenchOptions): Promise<FullSpeedRun> {
  const label = `${targetLabels[leg.target.name]}, ${leg.what}, full speed`;
  progress(`  ${label}`);
  const nsBefore = readTreeCpuNs(leg.target.pid);
  const figures = await runLoad(label, leg.target.baseUrl, leg.request, { connections, duration: options.duration });
  const cpuNs = readTreeCpuNs(leg.target.pid) - nsBefore;
  if (leg.target.exit) throw exitedDuring(leg.target, leg.what);
  progress(`    ${figures.reqPerSec.toFixed(0)} req/s`);
  return { reqPerSec: figures.reqPerSec, requests: figures.requests, cpuMs: cpuNs / 1e6, cpuUsPerRequest: cpuMicrosPerRequest(cpuNs, figures.requests) };
}

/**
 * The mock through its front against Prism alone, at full speed (the front is judged on
 * throughput): each warmed up at full speed for the warm-up and then run, in the order given (the
 * caller alternates it), so that both are measured in the same state. Warming only the mock,
 * which had been idle for minutes while Prism alone had just answered the same request, measured
 * the mock's first seconds back against Prism's warm ones.
 */
async function measureMockFront(prism: Leg, mockFront: Leg, frontFirst: boolean, connections: number, options: BenchOptions) {
  const order = frontFirst ? [mockFront, prism] : [prism, mockFront];
  const runs = new Map<Leg, FullSpeedRun>();
  for (const leg of order) {
    await warmUp(leg, connections, options.warmup);
    runs.set(leg, await fullSpeed(leg, connections, options));
  }
  return { prismFullSpeed: runs.get(prism)!, mockFrontFullSpeed: runs.get(mockFront)! };
}

async function measureStartups(rounds: number): Promise<Startup[]> {
  const startups: Startup[] = [];
  for (let round = 1; round <= rounds; round++) {
    const referenceMs = await referenceStartupMs();
    const prismMs = await prismStartupMs();
    progress(`start-up, round ${round}: reference ${referenceMs.toFixed(0)} ms, Prism ${prismMs.toFixed(0)} ms`);
    startups.push({ referenceMs, prismMs });
  }
  return startups;
}

/** What the reference answered to a scenario's request, for bare Hono to send from memory. */
async function captureAnswer(baseUrl: string, scenario: Scenario, request: LoadRequest): Promise<CapturedAnswer> {
  const headers = request.freshIdempotencyKey ? { ...request.headers, 'Idempotency-Key': randomUUID() } : request.headers;
  const response = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers, ...(request.body !== undefined ? { body: request.body } : {}) });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status >= 300) throw new HarnessError(`${request.method} ${request.path} answered ${response.status}: ${body.toString('utf8', 0, 1_500)}`);
  return {
    method: request.method,
    write: scenario.write,
    status: response.status,
    contentType: response.headers.get('content-type') ?? 'application/octet-stream',
    bodyBase64: body.toString('base64'),
  };
}

/**
 * The PostgreSQL row's server: a second reference server on a schema made for this run, its
 * company made with the keys CLI and its products seeded through its API; `data` is the
 * reference's with that company's key and products.
 */
async function startPostgresReference(dir: string, schema: BenchSchema, referenceData: ScenarioData) {
  progress(`PostgreSQL: starting a reference server on the schema ${schema.name}, made for this run`);
  const database: ReferenceDatabase = { kind: 'postgres', url: schema.databaseUrl };
  const apiKey = createCompany(database, 'Bench company');
  const target = await spawnReference(dir, database);
  await waitUntilAnswering(target);
  progress('seeding the reference server on PostgreSQL: 3 products');
  const productIds = await seedProducts(target.baseUrl, apiKey);
  const data: ScenarioData = { ...referenceData, apiKey, productIds };
  return { schema, target, data };
}

async function bench(options: BenchOptions): Promise<boolean> {
  // First, so that a PostgreSQL server that cannot be used fails the run before minutes of work.
  const schema = options.databaseUrl === undefined ? undefined : createBenchSchema(options.databaseUrl);
  progress('brCodeBase64 PNG micro-benchmark');
  const qr = await qrMicroBenchmark();
  progress(`  reference ${qr.referenceMsPerPng.toFixed(3)} ms/PNG, qrcode ${qr.qrcodeMsPerPng.toFixed(3)} ms/PNG`);

  progress('building the reference server (scripts/build-server.mjs)');
  buildReference();
  const startups = await measureStartups(options.rounds);

  const plan = scenarios(options.clientScales);
  progress('starting the reference server, Prism and the mock through its front');
  const dir = makeTempDir('bench-');
  const database: ReferenceDatabase = { kind: 'sqlite', path: join(dir, 'bench.db') };
  // Production makes no company of its own: the key is made first, as an operator makes one.
  const apiKey = createCompany(database, 'Bench company');
  const [reference, prism, mockFront] = await Promise.all([
    spawnReference(dir, database),
    spawnPrism(dir),
    plan.some((scenario) => scenario.withMockFront) ? spawnMockFront(dir) : undefined,
  ]);
  await Promise.all([reference, prism, ...(mockFront ? [mockFront] : [])].map(waitUntilAnswering));
  progress('seeding the reference server: 3 products, 1 charge');
  const seeded = await seedReference(reference.baseUrl, apiKey);
  const clientCompanies = new Map<number, { apiKey: string; lastPagePath: string }>();
  const seedClients = async (clients: number) => {
    progress(`seeding a company with ${clients.toLocaleString('en-US')} clients`);
    clientCompanies.set(clients, await seedClientCompany(reference.baseUrl, database, clients));
  };
  const referenceData: ScenarioData = { apiKey, ...seeded, clientCompanies };
  // Prism keeps nothing: the same requests, but the charge id of the contract's example.
  const prismData: ScenarioData = { ...referenceData, chargeId: contractExampleChargeId() };
  const postgres = schema && (await startPostgresReference(dir, schema, referenceData));

  // What the reference answered to each scenario, in the file bare Hono reads; bare Hono serves
  // answer n at /same/<n> (and /durable/<n> for a write).
  const answers: CapturedAnswer[] = [];
  const answerIndex = new Map<string, number>();
  const answersPath = join(dir, 'answers.json');
  const captureAnswers = async (phase: Scenario['phase'], phaseScenarios: readonly Scenario[]) => {
    progress(`capturing the reference answer of every scenario of phase ${phase} for bare Hono`);
    for (const scenario of phaseScenarios) {
      answerIndex.set(scenario.name, answers.length);
      answers.push(await captureAnswer(reference.baseUrl, scenario, scenario.request(referenceData)));
    }
    writeFileSync(answersPath, JSON.stringify(answers));
    const bare = await spawnBareHono(dir, answersPath);
    await waitUntilAnswering(bare);
    return bare;
  };

  const runRound = async (phase: Scenario['phase'], round: number, phaseScenarios: readonly Scenario[], bare: Target): Promise<RoundFigures> => {
    progress(`phase ${phase}, round ${round} of ${options.rounds}`);
    const small = await measureLegs(
      [{ key: 'reference', target: bare, what: 'GET / (small array)', request: smallArrayRequest }],
      options.connections,
      options,
    );
    if (!small.reference) throw new HarnessError('the small array was not measured');
    const smallArray = small.reference;
    const figures: Record<string, ScenarioFigures> = {};
    for (const [i, scenario] of phaseScenarios.entries()) {
      const request = scenario.request(referenceData);
      const index = answerIndex.get(scenario.name);
      if (index === undefined) throw new HarnessError(`no captured answer for ${scenario.name}`);
      const bareRequest = (route: string) => ({ ...request, path: `/${route}/${index}`, freshIdempotencyKey: false });
      const legs: Leg[] = [
        { key: 'reference', target: reference, what: scenario.name, request },
        { key: 'sameBytes', target: bare, what: `${scenario.name} (same bytes)`, request: bareRequest('same') },
        // A write's reachable limit: its answer cannot leave before the request is on disk.
        ...(scenario.write ? [{ key: 'durableWrite' as const, target: bare, what: `${scenario.name} (durable write)`, request: bareRequest('durable') }] : []),
        ...(scenario.withPrism ? [{ key: 'prism' as const, target: prism, what: scenario.name, request: scenario.request(prismData) }] : []),
        ...(scenario.write && postgres
          ? [{ key: 'postgres' as const, target: postgres.target, what: scenario.name, request: scenario.request(postgres.data) }]
          : []),
      ];
      // Alternating order: the reference first in one scenario of a round, last in the next, and
      // the other way round in the next round.
      if ((round + i) % 2 === 0) legs.reverse();
      const connections = scenario.connections ?? options.connections;
      const measured = await measureLegs(legs, connections, options);
      const { reference: referenceRun, sameBytes } = measured;
      if (!referenceRun || !sameBytes) throw new HarnessError(`${scenario.name} was not measured on the reference and its same bytes`);
      let front: Pick<ScenarioFigures, 'prismFullSpeed' | 'mockFrontFullSpeed'> = {};
      if (scenario.withMockFront) {
        if (!mockFront || prism.exit) throw new HarnessError(`${scenario.name}: the mock through its front is measured only in phase 1, with Prism`);
        const request = scenario.request(prismData);
        front = await measureMockFront(
          { key: 'prism', target: prism, what: scenario.name, request },
          { key: 'prism', target: mockFront, what: scenario.name, request },
          (round + i) % 2 === 0,
          connections,
          options,
        );
      }
      figures[scenario.name] = { ...measured, ...front, reference: referenceRun, sameBytes };
    }
    return { phase, round, smallArray, scenarios: figures, ratios: roundRatios(smallArray, figures) };
  };

  const rounds: RoundFigures[] = [];
  // Phase 1: the smallest history only, every round, so that the server's memory is that of a
  // small company's work and not of a 100,000-client history it has been asked for.
  await seedClients(options.clientScales[0]!);
  const phase1 = plan.filter((scenario) => scenario.phase === 1);
  let bare = await captureAnswers(1, phase1);
  for (let round = 1; round <= options.rounds; round++) rounds.push(await runRound(1, round, phase1, bare));
  await stopTarget(prism);
  if (mockFront) await stopTarget(mockFront);
  if (postgres) {
    await stopTarget(postgres.target);
    postgres.schema.drop();
    progress(`PostgreSQL: schema ${postgres.schema.name} dropped`);
  }

  // Phase 2: the larger histories, seeded now; bare Hono restarted with every answer.
  for (const clients of options.clientScales.slice(1)) await seedClients(clients);
  const phase2 = plan.filter((scenario) => scenario.phase === 2);
  await stopTarget(bare);
  bare = await captureAnswers(2, phase2);
  for (let round = 1; round <= options.rounds; round++) rounds.push(await runRound(2, round, phase2, bare));
  await stopAllTargets();
  cleanUpEverything();

  const postgresRow: PostgresRow = postgres
    ? { schema: postgres.schema.name }
    : {
        skipped:
          'no PostgreSQL server given. To measure the two writes on PostgreSQL too, pass --database-url postgres://user@host:5432/database ' +
          '(or set BENCH_DATABASE_URL); the user must be allowed to CREATE SCHEMA there.',
      };
  const results = summarise(options, plan, qr, postgresRow, startups, rounds);
  process.stdout.write(formatResults(results));
  mkdirSync(dirname(options.out), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
  progress(`results written to ${options.out}`);
  return results.pass;
}

function fail(error: unknown): never {
  cleanUpEverything();
  const message = error instanceof HarnessError ? error.message : ((error as Error).stack ?? String(error));
  process.stderr.write(`[bench] harness error: ${message}\n`);
  process.exit(2);
}

process.on('exit', cleanUpEverything);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`[bench] ${signal}: stopping every target\n`);
    cleanUpEverything();
    process.exit(130);
  });
}
process.on('uncaughtException', fail);
process.on('unhandledRejection', fail);

let options: BenchOptions | 'help';
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`${error.message}\n\n${usage}\n`);
  process.exit(2);
}
if (options === 'help') {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
bench(options).then((pass) => process.exit(pass ? 0 : 1), fail);

/**
 * `npm run bench`: the reference server against the limit (a bare Hono endpoint) and the Prism
 * mock, in one run. See scripts/bench/options.ts for the command line.
 *
 *   1. the brCodeBase64 PNG micro-benchmark, in this process, before anything else runs;
 *   2. start-up to the first answer, reference and Prism, once per round;
 *   3. the reference and Prism started side by side, the reference seeded through its API with
 *      products, a charge and one company (made with the keys CLI) holding the smallest history
 *      of clients; with --database-url, a second reference server too, on a PostgreSQL schema
 *      made for the run, with a company of its own and the same products;
 *   4. phase 1: bare Hono started with the reference's answer to every phase-1 scenario (the
 *      charge, the writes, the smallest history's lists), to send the same bytes from memory and,
 *      for the writes, once the request is written to a SQLite file of its own and fdatasynced;
 *      then every round: bare Hono's small array once, then for each scenario the reference, bare
 *      Hono with the same bytes, bare Hono writing durably (writes only), (where it applies)
 *      Prism, and the reference on PostgreSQL (writes only) back to back. The reference's peak
 *      RSS here is that of a small company's work. The PostgreSQL server is then stopped and its
 *      schema dropped (as `cleanUpEverything` drops it if the run fails or is interrupted);
 *   5. phase 2: one company per larger history seeded, their answers captured, bare Hono
 *      restarted with every answer, then every round of the larger histories' lists;
 *   6. tables on stdout (progress on stderr), bench/results.json, exit 0 / 1 / 2.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { HarnessError } from './harness-error.js';
import { runLoad, type LoadOptions, type LoadRequest } from './load.js';
import { parseOptions, usage, UsageError, type BenchOptions } from './options.js';
import { qrMicroBenchmark } from './qr.js';
import { createBenchSchema, type BenchSchema } from './postgres.js';
import { formatResults, roundRatios, summarise, type PostgresRow, type RoundFigures, type RunFigures, type ScenarioFigures, type Startup } from './report.js';
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

async function measure(target: Target, what: string, request: LoadRequest, load: LoadOptions): Promise<RunFigures> {
  const label = `${targetLabels[target.name]}, ${what}`;
  progress(`  ${label}`);
  const rss = startPeakRss(target.pid);
  const figures = await runLoad(label, target.baseUrl, request, load);
  const peakRssMb = rss.stop();
  if (target.exit) throw new HarnessError(`the ${targetLabels[target.name]} exited during ${what}`);
  return { ...figures, peakRssMb };
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

  progress('starting the reference server and Prism');
  const dir = makeTempDir('bench-');
  const database: ReferenceDatabase = { kind: 'sqlite', path: join(dir, 'bench.db') };
  // Production makes no company of its own: the key is made first, as an operator makes one.
  const apiKey = createCompany(database, 'Bench company');
  const [reference, prism] = await Promise.all([spawnReference(dir, database), spawnPrism(dir)]);
  await Promise.all([reference, prism].map(waitUntilAnswering));
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

  const plan = scenarios(options.clientScales);
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

  const baseLoad: LoadOptions = { connections: options.connections, duration: options.duration, warmup: options.warmup };
  const runRound = async (phase: Scenario['phase'], round: number, phaseScenarios: readonly Scenario[], bare: Target): Promise<RoundFigures> => {
    progress(`phase ${phase}, round ${round} of ${options.rounds}`);
    const smallArray = await measure(bare, 'GET / (small array)', smallArrayRequest, baseLoad);
    const figures: Record<string, ScenarioFigures> = {};
    for (const scenario of phaseScenarios) {
      const load = { ...baseLoad, connections: scenario.connections ?? options.connections };
      const request = scenario.request(referenceData);
      const index = answerIndex.get(scenario.name);
      if (index === undefined) throw new HarnessError(`no captured answer for ${scenario.name}`);
      const bareRequest = (route: string) => ({ ...request, path: `/${route}/${index}`, freshIdempotencyKey: false });
      figures[scenario.name] = {
        reference: await measure(reference, scenario.name, request, load),
        sameBytes: await measure(bare, `${scenario.name} (same bytes)`, bareRequest('same'), load),
        // A write's reachable limit: its answer cannot leave before the request is on disk.
        ...(scenario.write ? { durableWrite: await measure(bare, `${scenario.name} (durable write)`, bareRequest('durable'), load) } : {}),
        ...(scenario.withPrism ? { prism: await measure(prism, scenario.name, scenario.request(prismData), load) } : {}),
        ...(scenario.write && postgres ? { postgres: await measure(postgres.target, scenario.name, scenario.request(postgres.data), load) } : {}),
      };
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

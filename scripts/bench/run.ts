/**
 * `npm run bench`: the reference server against the limit (a bare Hono endpoint) and the Prism
 * mock, in one run. See scripts/bench/options.ts for the command line.
 *
 *   1. the brCodeBase64 PNG micro-benchmark, in this process, before anything else runs;
 *   2. start-up to the first answer, reference and Prism, once per round;
 *   3. the three targets started side by side, the reference seeded through its API;
 *   4. per round: bare Hono once, then for each scenario the reference and Prism back to back;
 *   5. tables on stdout (progress on stderr), bench/results.json, exit 0 / 1 / 2.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { HarnessError } from './harness-error.js';
import { runLoad, type LoadOptions, type LoadRequest } from './load.js';
import { parseOptions, usage, UsageError, type BenchOptions } from './options.js';
import { qrMicroBenchmark } from './qr.js';
import { formatResults, roundRatios, summarise, type RoundFigures, type RunFigures, type ScenarioFigures, type Startup } from './report.js';
import { startPeakRss } from './rss.js';
import { bareRequest, contractExampleChargeId, loadScenarios, scenarioRequest, type LoadScenario } from './scenarios.js';
import { CLIENT_COUNT, seedReference } from './seed.js';
import { prismStartupMs, referenceStartupMs } from './startup.js';
import {
  buildReference,
  cleanUpEverything,
  makeTempDir,
  readApiKey,
  spawnBareHono,
  spawnPrism,
  spawnReference,
  stopAllTargets,
  targetLabels,
  waitUntilAnswering,
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

async function bench(options: BenchOptions): Promise<boolean> {
  progress('brCodeBase64 PNG micro-benchmark');
  const qr = await qrMicroBenchmark();
  progress(`  reference ${qr.referenceMsPerPng.toFixed(3)} ms/PNG, qrcode ${qr.qrcodeMsPerPng.toFixed(3)} ms/PNG`);

  progress('building the reference server (scripts/build-server.mjs)');
  buildReference();
  const startups = await measureStartups(options.rounds);

  progress('starting the reference server, bare Hono and Prism');
  const dir = makeTempDir('bench-');
  const [reference, bare, prism] = await Promise.all([spawnReference(dir), spawnBareHono(dir), spawnPrism(dir)]);
  const apiKey = await readApiKey(reference, 20);
  await Promise.all([reference, bare, prism].map(waitUntilAnswering));
  progress(`seeding the reference server: ${CLIENT_COUNT} clients, 3 products, 1 charge`);
  const seeded = await seedReference(reference.baseUrl, apiKey);
  const referenceData = { apiKey, ...seeded };
  // Prism keeps nothing: the same requests, but the charge id of the contract's example.
  const prismData = { ...referenceData, chargeId: contractExampleChargeId() };

  const load: LoadOptions = { connections: options.connections, duration: options.duration };
  const rounds: RoundFigures[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    progress(`round ${round} of ${options.rounds}`);
    const bareFigures = await measure(bare, 'GET /', bareRequest, load);
    const scenarios = {} as Record<LoadScenario, ScenarioFigures>;
    for (const scenario of loadScenarios) {
      scenarios[scenario] = {
        reference: await measure(reference, scenario, scenarioRequest(scenario, referenceData), load),
        prism: await measure(prism, scenario, scenarioRequest(scenario, prismData), load),
      };
    }
    const startup = startups[round - 1]!;
    rounds.push({ round, startup, bare: bareFigures, scenarios, ratios: roundRatios(bareFigures, scenarios, startup) });
  }
  await stopAllTargets();
  cleanUpEverything();

  const results = summarise(options, qr, rounds);
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

/**
 * What the run measured, summarised: medians over rounds, the ratios the issue's targets are
 * stated in (µs of CPU per request of a floor over the reference's, issue 38: medians of per-round
 * ratios, so that a round where the whole machine was slow cancels out, with their spread over
 * the rounds), the targets with pass/fail, the tables on stdout and the results JSON.
 */
import { cpus, release, totalmem, type as osType } from 'node:os';
import { cpuRatio } from './cpu.js';
import type { BenchOptions } from './options.js';
import type { QrFigures } from './qr.js';
import { pagedClientsScenario, type RatioTarget, type Scenario } from './scenarios.js';

/**
 * One target in one scenario of one round: its full-speed warm-up, then its run at the scenario's
 * fixed rate, with the CPU the target's process spent on that run.
 */
export interface RunFigures {
  /** Requests per second at full speed, in the warm-up (information: the load generator shares the cores). */
  maxReqPerSec: number;
  /** Requests per second offered in the measured run, the same for every target of the scenario. */
  offeredRate: number;
  /** Latency in the measured run, at the fixed rate. */
  p50Ms: number;
  p99Ms: number;
  /** Answers in the measured run. */
  requests: number;
  /** The target's CPU over the measured run, in ms: its threads' time on the CPU (cpu.ts, read in ns). */
  cpuMs: number;
  /** µs of the target's CPU per answer in the measured run. */
  cpuUsPerRequest: number;
  /** Over the warm-up and the measured run. */
  peakRssMb: number;
}

/**
 * A run at full speed (a fixed number of connections for `--duration` seconds), judged on its
 * throughput, with the CPU the target's processes spent on it (the mock's: the script and Prism,
 * which runs the front).
 */
export interface FullSpeedRun {
  reqPerSec: number;
  /** Answers in the run. */
  requests: number;
  /** The target process's CPU over the run, in ms (cpu.ts). */
  cpuMs: number;
  cpuUsPerRequest: number;
}

export interface ScenarioFigures {
  reference: RunFigures;
  /** Bare Hono answering the bytes the reference answered to this scenario, from memory. */
  sameBytes: RunFigures;
  /**
   * Scenarios that write: bare Hono answering the same bytes once the request body is committed
   * to SQLite and fdatasynced, the least a create that is on disk before its answer can do.
   */
  durableWrite?: RunFigures;
  prism?: RunFigures;
  /** Scenarios that write, when the bench is given a PostgreSQL server: the reference on it (informative). */
  postgres?: RunFigures;
  /**
   * Where Prism or PostgreSQL is measured: the reference again, at their fixed rate (half the
   * slowest of them and the reference), which their ratios are taken against.
   */
  referenceAtComparisonRate?: RunFigures;
  /** Scenarios `withMockFront`: Prism alone at full speed, after its warm-up. */
  prismFullSpeed?: FullSpeedRun;
  /** Scenarios `withMockFront`: the mock through its front (`npm run mock`) at full speed, after its warm-up. */
  mockFrontFullSpeed?: FullSpeedRun;
}

/** Ratios of CPU per request, each the other target's µs over the reference's (higher: the reference is nearer). */
export interface ScenarioRatios {
  /** Bare Hono sending the same bytes over the reference: the floor of this scenario. */
  sameBytesToReference: number;
  /** Bare Hono's durable write over the reference, for scenarios that write. */
  durableWriteToReference?: number;
  /** Bare Hono's small JSON array of the same round over the reference (informative: the cost of HTTP alone). */
  smallArrayToReference: number;
  /** Prism over the reference, where Prism is measured. */
  prismToReference?: number;
  /** The reference on PostgreSQL over the reference on SQLite, where it is measured (informative; the PostgreSQL server's own CPU is not in it). */
  postgresToSqlite?: number;
  /** Not CPU: req/s at full speed of the mock through its front over Prism alone's, where measured (higher: the front costs less). */
  mockFrontToPrism?: number;
}

/** A figure over the rounds: the median the targets judge, and the lowest and highest round. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** Each ratio of a scenario over the rounds. */
export type RatioSpreads = { [Name in keyof ScenarioRatios]: Spread };

export interface Startup {
  referenceMs: number;
  prismMs: number;
}

/** One round of one phase: bare Hono's small array, then each scenario of the phase, its targets back to back. */
export interface RoundFigures {
  phase: Scenario['phase'];
  round: number;
  smallArray: RunFigures;
  scenarios: Record<string, ScenarioFigures>;
  ratios: Record<string, ScenarioRatios>;
}

export interface TargetCheck {
  name: string;
  /** The median over rounds, or the one figure (a peak, the QR encoder). */
  measured: number;
  /** The lowest and highest per-round value, where `measured` is their median. */
  spread?: { min: number; max: number };
  comparison: '>=' | '<=' | '<';
  limit: number;
  unit: string;
  pass: boolean;
  /** Why it fails whatever was measured (a run too short to judge it). */
  reason?: string;
}

/** The PostgreSQL row: the schema it was measured in (dropped since), or why it was skipped. */
export type PostgresRow = { schema: string } | { skipped: string };

export interface Results {
  date: string;
  machine: { cpu: string; cpuCount: number; totalMemoryMb: number; os: string; node: string };
  options: { connections: number; duration: number; warmup: number; rounds: number; clientScales: number[] };
  qr: QrFigures;
  postgres: PostgresRow;
  /** Start-up to the first answer, once per round, before the phases. */
  startups: Startup[];
  /** Every round of phase 1, then every round of phase 2. */
  rounds: RoundFigures[];
  /** Medians over rounds; `peakRssMb` is the highest of the rounds instead (it is a peak). */
  medians: { startup: Startup; smallArray: { phase1: RunFigures; phase2: RunFigures }; scenarios: Record<string, ScenarioFigures> };
  ratios: {
    scenarios: Record<string, RatioSpreads>;
    /**
     * Paged GET /client: the reference's CPU per request at the smallest history over at the
     * largest, round n of phase 1 with round n of phase 2 (information; 1: a page costs the same
     * whatever the history).
     */
    pagedSmallestToLargest: Spread;
    /** The reference's p50 at the fixed rate, per scenario, over the rounds (the ceilings of the unpaged lists). */
    referenceP50Ms: Record<string, Spread>;
  };
  /** The reference's peak RSS over every load run of phase 1: the smallest history, before any larger one exists. */
  referencePhase1PeakRssMb: number;
  /** The reference's peak RSS over the load runs of the largest history (phase 2). */
  referenceLargestHistoryPeakRssMb: number;
  targets: TargetCheck[];
  pass: boolean;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function spread(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error('a spread of no values');
  return { median: median(values), min: Math.min(...values), max: Math.max(...values) };
}

export function scenarioRatios(figures: ScenarioFigures, smallArray: RunFigures): ScenarioRatios {
  const { reference, sameBytes, durableWrite, prism, postgres, referenceAtComparisonRate, prismFullSpeed, mockFrontFullSpeed } = figures;
  const over = (other: RunFigures, base = reference) => cpuRatio(other.cpuUsPerRequest, base.cpuUsPerRequest);
  // Prism and PostgreSQL against the reference at their own rate, where it was measured.
  const compared = referenceAtComparisonRate ?? reference;
  return {
    sameBytesToReference: over(sameBytes),
    ...(durableWrite ? { durableWriteToReference: over(durableWrite) } : {}),
    smallArrayToReference: over(smallArray),
    ...(prism ? { prismToReference: over(prism, compared) } : {}),
    ...(postgres ? { postgresToSqlite: over(postgres, compared) } : {}),
    ...(prismFullSpeed && mockFrontFullSpeed ? { mockFrontToPrism: mockFrontFullSpeed.reqPerSec / prismFullSpeed.reqPerSec } : {}),
  };
}

/** The ratios of one round of one phase, each reference run over its limits of the same round. */
export function roundRatios(smallArray: RunFigures, scenarios: Record<string, ScenarioFigures>): Record<string, ScenarioRatios> {
  return Object.fromEntries(Object.entries(scenarios).map(([name, figures]) => [name, scenarioRatios(figures, smallArray)]));
}

function medianRun(runs: readonly RunFigures[]): RunFigures {
  const of = (pick: (run: RunFigures) => number) => median(runs.map(pick));
  return {
    maxReqPerSec: of((run) => run.maxReqPerSec),
    offeredRate: of((run) => run.offeredRate),
    p50Ms: of((run) => run.p50Ms),
    p99Ms: of((run) => run.p99Ms),
    requests: of((run) => run.requests),
    cpuMs: of((run) => run.cpuMs),
    cpuUsPerRequest: of((run) => run.cpuUsPerRequest),
    peakRssMb: Math.max(...runs.map((run) => run.peakRssMb)),
  };
}

function medianFullSpeed(runs: readonly FullSpeedRun[]): FullSpeedRun {
  const of = (pick: (run: FullSpeedRun) => number) => median(runs.map(pick));
  return {
    reqPerSec: of((run) => run.reqPerSec),
    requests: of((run) => run.requests),
    cpuMs: of((run) => run.cpuMs),
    cpuUsPerRequest: of((run) => run.cpuUsPerRequest),
  };
}

function ratioSpreads(perRound: readonly ScenarioRatios[]): RatioSpreads {
  const over = (pick: (ratios: ScenarioRatios) => number | undefined) => {
    const values = perRound.flatMap((ratios) => {
      const value = pick(ratios);
      return value === undefined ? [] : [value];
    });
    return values.length > 0 ? spread(values) : undefined;
  };
  const durableWrite = over((r) => r.durableWriteToReference);
  const prism = over((r) => r.prismToReference);
  const postgresToSqlite = over((r) => r.postgresToSqlite);
  const mockFrontToPrism = over((r) => r.mockFrontToPrism);
  return {
    sameBytesToReference: spread(perRound.map((r) => r.sameBytesToReference)),
    ...(durableWrite ? { durableWriteToReference: durableWrite } : {}),
    smallArrayToReference: spread(perRound.map((r) => r.smallArrayToReference)),
    ...(prism ? { prismToReference: prism } : {}),
    ...(postgresToSqlite ? { postgresToSqlite } : {}),
    ...(mockFrontToPrism ? { mockFrontToPrism } : {}),
  };
}

function check(name: string, measured: number | Spread, comparison: TargetCheck['comparison'], limit: number, unit: string, reason?: string): TargetCheck {
  const value = typeof measured === 'number' ? measured : measured.median;
  const holds = comparison === '>=' ? value >= limit : comparison === '<=' ? value <= limit : value < limit;
  return {
    name,
    measured: value,
    ...(typeof measured === 'number' ? {} : { spread: { min: measured.min, max: measured.max } }),
    comparison,
    limit,
    unit,
    pass: holds && reason === undefined,
    ...(reason === undefined ? {} : { reason }),
  };
}

const clientsText = (clients: number) => `${clients.toLocaleString('en-US')} clients`;

/** What the targets of issue 38 are judged on, from one run. */
export interface TargetInputs {
  plan: readonly Scenario[];
  rounds: number;
  clientScales: readonly number[];
  ratios: Results['ratios'];
  qr: QrFigures;
  startupMs: Spread;
  phase1PeakRssMb: number;
  largestHistoryPeakRssMb: number;
}

/**
 * The targets of issue 38: each scenario's own CPU ratio targets and latency ceiling
 * (scenarios.ts), then the memory of each phase, start-up and the QR encoder.
 */
export function targetChecks(inputs: TargetInputs): TargetCheck[] {
  const { plan, rounds, clientScales, ratios, qr } = inputs;
  const limits: { key: 'sameBytes' | 'durableWrite' | 'prism' | 'mockFront'; ratio: keyof ScenarioRatios; what: string }[] = [
    { key: 'sameBytes', ratio: 'sameBytesToReference', what: 'CPU per request, bare Hono (same bytes) / reference' },
    { key: 'durableWrite', ratio: 'durableWriteToReference', what: 'CPU per request, bare Hono (same bytes written durably) / reference' },
    { key: 'prism', ratio: 'prismToReference', what: 'CPU per request, Prism / reference' },
    { key: 'mockFront', ratio: 'mockFrontToPrism', what: 'req/s at full speed, mock through its front / Prism alone' },
  ];
  const ratioTarget = (scenario: Scenario, target: RatioTarget, ratio: keyof ScenarioRatios, what: string) => {
    const measured = ratios.scenarios[scenario.name]?.[ratio] ?? Number.NaN;
    const tooFew = target.minRounds !== undefined && rounds < target.minRounds ? `needs --rounds ${target.minRounds} or more` : undefined;
    return check(`${scenario.name} ${what}`, measured, '>=', target.atLeast, 'x', tooFew);
  };
  const fewest = clientScales[0]!;
  const most = clientScales.at(-1)!;
  return [
    ...plan.flatMap((scenario) => [
      ...limits.flatMap(({ key, ratio, what }) => {
        const target = scenario.targets[key];
        return target ? [ratioTarget(scenario, target, ratio, what)] : [];
      }),
      ...(scenario.targets.p50CeilingMs === undefined
        ? []
        : [
            check(
              `${scenario.name} p50 of the reference at the fixed rate`,
              ratios.referenceP50Ms[scenario.name] ?? Number.NaN,
              '<=',
              scenario.targets.p50CeilingMs,
              'ms',
            ),
          ]),
    ]),
    check(`peak RSS of the reference, phase 1 (${clientsText(fewest)}, no larger history yet)`, inputs.phase1PeakRssMb, '<', 120, 'MB'),
    check(`peak RSS of the reference, client lists of ${clientsText(most)}`, inputs.largestHistoryPeakRssMb, '<', 256, 'MB'),
    check('start-up to first answer, reference (empty database)', inputs.startupMs, '<', 200, 'ms'),
    check('brCodeBase64 PNG time, reference / qrcode toDataURL', qr.ratio, '<=', 0.25, 'x'),
  ];
}

export function summarise(
  options: BenchOptions,
  plan: readonly Scenario[],
  qr: QrFigures,
  postgres: PostgresRow,
  startups: readonly Startup[],
  rounds: readonly RoundFigures[],
): Results {
  const ofPhase = (phase: Scenario['phase']) => rounds.filter((round) => round.phase === phase);
  const perRound = (scenario: Scenario) =>
    ofPhase(scenario.phase).map((round) => {
      const figures = round.scenarios[scenario.name];
      const ratios = round.ratios[scenario.name];
      if (!figures || !ratios) throw new Error(`round ${round.round} of phase ${round.phase} has no figures for ${scenario.name}`);
      return { figures, ratios };
    });
  const scenarios = Object.fromEntries(
    plan.map((scenario) => {
      const runs = perRound(scenario).map(({ figures }) => figures);
      const durableRuns = runs.flatMap((run) => (run.durableWrite ? [run.durableWrite] : []));
      const prismRuns = runs.flatMap((run) => (run.prism ? [run.prism] : []));
      const postgresRuns = runs.flatMap((run) => (run.postgres ? [run.postgres] : []));
      const comparisonRateRuns = runs.flatMap((run) => (run.referenceAtComparisonRate ? [run.referenceAtComparisonRate] : []));
      const prismFullSpeedRuns = runs.flatMap((run) => (run.prismFullSpeed ? [run.prismFullSpeed] : []));
      const mockFrontRuns = runs.flatMap((run) => (run.mockFrontFullSpeed ? [run.mockFrontFullSpeed] : []));
      const medians: ScenarioFigures = {
        reference: medianRun(runs.map((run) => run.reference)),
        sameBytes: medianRun(runs.map((run) => run.sameBytes)),
        ...(durableRuns.length > 0 ? { durableWrite: medianRun(durableRuns) } : {}),
        ...(prismRuns.length > 0 ? { prism: medianRun(prismRuns) } : {}),
        ...(postgresRuns.length > 0 ? { postgres: medianRun(postgresRuns) } : {}),
        ...(comparisonRateRuns.length > 0 ? { referenceAtComparisonRate: medianRun(comparisonRateRuns) } : {}),
        ...(prismFullSpeedRuns.length > 0 ? { prismFullSpeed: medianFullSpeed(prismFullSpeedRuns) } : {}),
        ...(mockFrontRuns.length > 0 ? { mockFrontFullSpeed: medianFullSpeed(mockFrontRuns) } : {}),
      };
      return [scenario.name, medians];
    }),
  );
  const fewest = options.clientScales[0]!;
  const most = options.clientScales.at(-1)!;
  // Round n of phase 2 over round n of phase 1: the same server, minutes apart.
  const pagedAt = (phase: Scenario['phase'], clients: number) =>
    ofPhase(phase).map((round) => round.scenarios[pagedClientsScenario(clients)]?.reference.cpuUsPerRequest ?? Number.NaN);
  const pagedMost = pagedAt(2, most);
  const ratios: Results['ratios'] = {
    scenarios: Object.fromEntries(plan.map((scenario) => [scenario.name, ratioSpreads(perRound(scenario).map(({ ratios }) => ratios))])),
    pagedSmallestToLargest: spread(pagedAt(1, fewest).map((micros, i) => cpuRatio(micros, pagedMost[i] ?? Number.NaN))),
    referenceP50Ms: Object.fromEntries(plan.map((scenario) => [scenario.name, spread(perRound(scenario).map(({ figures }) => figures.reference.p50Ms))])),
  };
  const startup = { referenceMs: median(startups.map((s) => s.referenceMs)), prismMs: median(startups.map((s) => s.prismMs)) };
  const peakRss = (phase: Scenario['phase'], counts: (scenario: Scenario) => boolean) =>
    Math.max(
      ...plan
        .filter((scenario) => scenario.phase === phase && counts(scenario))
        .flatMap((scenario) => perRound(scenario).map(({ figures }) => figures.reference.peakRssMb)),
    );
  const referencePhase1PeakRssMb = peakRss(1, () => true);
  const referenceLargestHistoryPeakRssMb = peakRss(2, (scenario) => scenario.clients === most);
  const targets = targetChecks({
    plan,
    rounds: options.rounds,
    clientScales: options.clientScales,
    ratios,
    qr,
    startupMs: spread(startups.map((s) => s.referenceMs)),
    phase1PeakRssMb: referencePhase1PeakRssMb,
    largestHistoryPeakRssMb: referenceLargestHistoryPeakRssMb,
  });
  const cpu = cpus();
  return {
    date: new Date().toISOString(),
    machine: {
      cpu: cpu[0]?.model ?? 'unknown',
      cpuCount: cpu.length,
      totalMemoryMb: Math.round(totalmem() / 1024 / 1024),
      os: `${osType()} ${release()}`,
      node: process.version,
    },
    options: {
      connections: options.connections,
      duration: options.duration,
      warmup: options.warmup,
      rounds: options.rounds,
      clientScales: options.clientScales,
    },
    qr,
    postgres,
    startups: [...startups],
    rounds: [...rounds],
    medians: {
      startup,
      smallArray: { phase1: medianRun(ofPhase(1).map((r) => r.smallArray)), phase2: medianRun(ofPhase(2).map((r) => r.smallArray)) },
      scenarios,
    },
    ratios,
    referencePhase1PeakRssMb,
    referenceLargestHistoryPeakRssMb,
    targets,
    pass: targets.every((target) => target.pass),
  };
}

// --- text -------------------------------------------------------------------

function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)));
  // Text left-aligned, figures right-aligned.
  const numeric = header.map((_, i) => i > 0 && rows.every((row) => /^[0-9.,x -]*$/.test(row[i] ?? '')));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (numeric[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : String(value));

function runRow(label: string, run: RunFigures): string[] {
  return [
    label,
    fixed(run.cpuUsPerRequest, 1),
    fixed(run.cpuMs, 1),
    fixed(run.offeredRate, 0),
    fixed(run.maxReqPerSec, 0),
    fixed(run.p50Ms, 1),
    fixed(run.p99Ms, 1),
    fixed(run.peakRssMb, 1),
  ];
}

const spreadText = (figure: Spread, digits: number) => `${fixed(figure.median, digits)} (${fixed(figure.min, digits)}–${fixed(figure.max, digits)})`;

function measuredText(target: TargetCheck): string {
  const digits = target.unit === 'x' ? 2 : target.unit === 'ms' && target.measured >= 100 ? 0 : 1;
  const range = target.spread ? ` (${fixed(target.spread.min, digits)}–${fixed(target.spread.max, digits)})` : '';
  return `${fixed(target.measured, digits)}${range} ${target.unit}`;
}

export function formatResults(results: Results): string {
  const { medians, ratios, qr } = results;
  const sections: string[] = [];
  const { connections, duration, warmup, rounds, clientScales } = results.options;
  const [fewest, ...larger] = clientScales.map((clients) => clients.toLocaleString('en-US'));
  sections.push(
    [
      `Benchmark: ${connections} connections (1 for the unpaged client lists: the time one caller waits for its list), ${rounds} round(s) per phase; medians over rounds (peak RSS: highest).`,
      `Each target of a scenario is warmed up for ${warmup} s at full speed (its maximum req/s), then driven at one fixed rate, half the slowest one's maximum, for ${duration} s worth of requests (the reference and its floors at one rate; Prism and PostgreSQL, with the reference again, at a second); µs of CPU per request is the target process's CPU over that run (CPU ms: its threads' time on a CPU, /proc/<pid>/task/<tid>/schedstat, read in ns) over the run's answers. Targets run in alternating order.`,
      `Phase 1: a history of ${fewest} clients only; phase 2: histories of ${larger.join(' and ')} clients seeded after it.`,
      'schema' in results.postgres
        ? `The writes are measured on a second reference server on PostgreSQL too (schema ${results.postgres.schema}, dropped after its row).`
        : `PostgreSQL row skipped: ${results.postgres.skipped}`,
    ].join('\n'),
  );
  for (const [scenario, figures] of Object.entries(medians.scenarios)) {
    sections.push(
      `${scenario}\n${table(
        ['target', 'CPU µs/req', 'CPU ms', 'rate req/s', 'max req/s', 'p50 ms', 'p99 ms', 'peak RSS MB'],
        [
          runRow('reference server', figures.reference),
          runRow('bare Hono, same bytes (limit)', figures.sameBytes),
          ...(figures.durableWrite ? [runRow('bare Hono, same bytes written durably (limit)', figures.durableWrite)] : []),
          ...(figures.referenceAtComparisonRate ? [runRow("reference server, at Prism's / PostgreSQL's rate", figures.referenceAtComparisonRate)] : []),
          ...(figures.postgres ? [runRow('reference server on PostgreSQL (informative)', figures.postgres)] : []),
          ...(figures.prism ? [runRow('Prism mock', figures.prism)] : []),
        ],
      )}`,
    );
  }
  for (const [scenario, figures] of Object.entries(medians.scenarios)) {
    const { prismFullSpeed, mockFrontFullSpeed } = figures;
    if (!prismFullSpeed || !mockFrontFullSpeed) continue;
    const row = (label: string, run: FullSpeedRun) => [label, fixed(run.reqPerSec, 0), fixed(run.requests, 0), fixed(run.cpuUsPerRequest, 1)];
    sections.push(
      `${scenario} at full speed (${connections} connections, ${duration} s each after a warm-up): the mock through its front (npm run mock) and Prism alone\n${table(
        ['target', 'req/s', 'answers', "CPU µs/req of the target's processes"],
        [row('Prism alone', prismFullSpeed), row('mock through its front (the script and Prism, the front inside it)', mockFrontFullSpeed)],
      )}\nmock through its front / Prism alone, req/s: ${spreadText(ratios.scenarios[scenario]?.mockFrontToPrism ?? spread([Number.NaN]), 2)}`,
    );
  }
  sections.push(
    `Bare Hono, a small JSON array (GET /): ${fixed(medians.smallArray.phase1.cpuUsPerRequest, 1)} µs of CPU per request and ${fixed(medians.smallArray.phase1.maxReqPerSec, 0)} req/s at full speed in phase 1, ${fixed(medians.smallArray.phase2.cpuUsPerRequest, 1)} µs and ${fixed(medians.smallArray.phase2.maxReqPerSec, 0)} req/s in phase 2`,
  );
  sections.push(
    `Peak RSS of the reference server: ${fixed(results.referencePhase1PeakRssMb, 1)} MB in phase 1; ${fixed(results.referenceLargestHistoryPeakRssMb, 1)} MB during the lists of ${larger.at(-1) ?? fewest} clients`,
  );
  const startupSpread = (pick: (startup: Startup) => number) => spreadText(spread(results.startups.map(pick)), 0);
  sections.push(
    `Start-up to first answered request, median (lowest–highest) of ${results.startups.length} round(s)\n${table(
      ['target', 'ms'],
      [
        ['reference server (empty database)', startupSpread((s) => s.referenceMs)],
        ['Prism mock (informative)', startupSpread((s) => s.prismMs)],
      ],
    )}`,
  );
  sections.push(
    `brCodeBase64 PNG (${qr.payloads} BR Codes x ${qr.passes} passes)\n${table(
      ['encoder', 'ms per PNG'],
      [
        ['reference qrPngDataUri', fixed(qr.referenceMsPerPng, 3)],
        ['qrcode toDataURL', fixed(qr.qrcodeMsPerPng, 3)],
      ],
    )}\nreference / qrcode: ${fixed(qr.ratio, 3)}`,
  );
  const ratioCell = (figure: Spread | undefined, digits: number) => (figure === undefined ? '-' : fixed(figure.median, digits));
  sections.push(
    `CPU per request ratios, floor µs / reference µs, and the mock's front in req/s (median of per-round ratios; the targets below give their spread)\n${table(
      [
        'scenario',
        'same bytes / reference',
        'durable write / reference',
        'small array / reference',
        'Prism / reference',
        'PostgreSQL / SQLite',
        'mock front / Prism (req/s)',
      ],
      Object.entries(ratios.scenarios).map(([scenario, ratio]) => [
        scenario,
        ratioCell(ratio.sameBytesToReference, 2),
        ratioCell(ratio.durableWriteToReference, 2),
        ratioCell(ratio.smallArrayToReference, 3),
        ratioCell(ratio.prismToReference, 2),
        ratioCell(ratio.postgresToSqlite, 2),
        ratioCell(ratio.mockFrontToPrism, 2),
      ]),
    )}\nPaged GET /client, the reference's CPU per request at ${fewest} clients / at ${larger.at(-1) ?? fewest} (information): ${spreadText(ratios.pagedSmallestToLargest, 2)}`,
  );
  sections.push(
    `Targets (median of the rounds, lowest–highest round in brackets)\n${table(
      ['target', 'measured', 'limit', 'result'],
      results.targets.map((target) => [
        target.name,
        measuredText(target),
        `${target.comparison} ${target.limit} ${target.unit}`,
        target.pass ? 'pass' : target.reason ? `FAIL: ${target.reason}` : 'FAIL',
      ]),
    )}`,
  );
  sections.push(results.pass ? 'Every target holds.' : `${results.targets.filter((t) => !t.pass).length} target(s) fail.`);
  return `${sections.join('\n\n')}\n`;
}

/**
 * What the run measured, summarised: medians over rounds, the ratios the issue's targets are
 * stated in (medians of per-round ratios, so that a round where the whole machine was slow
 * cancels out, with their spread over the rounds), the targets with pass/fail, the tables on
 * stdout and the results JSON.
 */
import { cpus, release, totalmem, type as osType } from 'node:os';
import type { LoadFigures } from './load.js';
import type { BenchOptions } from './options.js';
import type { QrFigures } from './qr.js';
import { pagedClientsScenario, type RatioTarget, type Scenario } from './scenarios.js';

/** One load run of one target, with the target's peak RSS during it. */
export interface RunFigures extends LoadFigures {
  peakRssMb: number;
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
}

export interface ScenarioRatios {
  /** Reference req/s over bare Hono's req/s sending the same bytes: the limit of this scenario. */
  referenceToSameBytes: number;
  /** Reference req/s over bare Hono's durable write, for scenarios that write. */
  referenceToDurableWrite?: number;
  /** Reference req/s over bare Hono's small JSON array of the same round (informative: the cost of HTTP alone). */
  referenceToSmallArray: number;
  /** Reference req/s over Prism req/s, where Prism is measured. */
  referenceToPrism?: number;
  /** The reference on PostgreSQL over the reference on SQLite, req/s, where it is measured (informative). */
  postgresToSqlite?: number;
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
    /** Paged GET /client req/s of the reference at the largest history over the smallest, per round. */
    pagedLargestToSmallest: Spread;
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

function scenarioRatios(figures: ScenarioFigures, smallArray: RunFigures): ScenarioRatios {
  const { reference, sameBytes, durableWrite, prism, postgres } = figures;
  return {
    referenceToSameBytes: reference.reqPerSec / sameBytes.reqPerSec,
    ...(durableWrite ? { referenceToDurableWrite: reference.reqPerSec / durableWrite.reqPerSec } : {}),
    referenceToSmallArray: reference.reqPerSec / smallArray.reqPerSec,
    ...(prism ? { referenceToPrism: reference.reqPerSec / prism.reqPerSec } : {}),
    ...(postgres ? { postgresToSqlite: postgres.reqPerSec / reference.reqPerSec } : {}),
  };
}

/** The ratios of one round of one phase, each reference run over its limits of the same round. */
export function roundRatios(smallArray: RunFigures, scenarios: Record<string, ScenarioFigures>): Record<string, ScenarioRatios> {
  return Object.fromEntries(Object.entries(scenarios).map(([name, figures]) => [name, scenarioRatios(figures, smallArray)]));
}

function medianRun(runs: readonly RunFigures[]): RunFigures {
  return {
    reqPerSec: median(runs.map((run) => run.reqPerSec)),
    p50Ms: median(runs.map((run) => run.p50Ms)),
    p99Ms: median(runs.map((run) => run.p99Ms)),
    requests: median(runs.map((run) => run.requests)),
    peakRssMb: Math.max(...runs.map((run) => run.peakRssMb)),
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
  const toDurableWrite = over((r) => r.referenceToDurableWrite);
  const toPrism = over((r) => r.referenceToPrism);
  const postgresToSqlite = over((r) => r.postgresToSqlite);
  return {
    referenceToSameBytes: spread(perRound.map((r) => r.referenceToSameBytes)),
    ...(toDurableWrite ? { referenceToDurableWrite: toDurableWrite } : {}),
    referenceToSmallArray: spread(perRound.map((r) => r.referenceToSmallArray)),
    ...(toPrism ? { referenceToPrism: toPrism } : {}),
    ...(postgresToSqlite ? { postgresToSqlite } : {}),
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

/** What the targets of issue 28 are judged on, from one run. */
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
 * The targets of issue 28: each scenario's own ratio targets (scenarios.ts), then the paged lists
 * across histories, the memory of each phase, start-up and the QR encoder.
 */
export function targetChecks(inputs: TargetInputs): TargetCheck[] {
  const { plan, rounds, clientScales, ratios, qr } = inputs;
  const limits: { key: keyof Scenario['targets']; ratio: keyof ScenarioRatios; over: string }[] = [
    { key: 'sameBytes', ratio: 'referenceToSameBytes', over: 'bare Hono (same bytes)' },
    { key: 'durableWrite', ratio: 'referenceToDurableWrite', over: 'bare Hono (same bytes written durably)' },
    { key: 'prism', ratio: 'referenceToPrism', over: 'Prism' },
  ];
  const ratioTarget = (scenario: Scenario, target: RatioTarget, ratio: keyof ScenarioRatios, over: string) => {
    const measured = ratios.scenarios[scenario.name]?.[ratio] ?? Number.NaN;
    const tooFew = target.minRounds !== undefined && rounds < target.minRounds ? `needs --rounds ${target.minRounds} or more` : undefined;
    return check(`${scenario.name} req/s, reference / ${over}`, measured, '>=', target.atLeast, 'x', tooFew);
  };
  const fewest = clientScales[0]!;
  const most = clientScales.at(-1)!;
  return [
    ...plan.flatMap((scenario) =>
      limits.flatMap(({ key, ratio, over }) => {
        const target = scenario.targets[key];
        return target ? [ratioTarget(scenario, target, ratio, over)] : [];
      }),
    ),
    check(`paged GET /client req/s, reference, ${clientsText(most)} / ${clientsText(fewest)}`, ratios.pagedLargestToSmallest, '>=', 0.8, 'x'),
    check(`peak RSS of the reference, phase 1 (${clientsText(fewest)}, no larger history yet)`, inputs.phase1PeakRssMb, '<', 128, 'MB'),
    check(`peak RSS of the reference, client lists of ${clientsText(most)}`, inputs.largestHistoryPeakRssMb, '<', 256, 'MB'),
    check('start-up to first answer, reference (empty database)', inputs.startupMs, '<', 300, 'ms'),
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
      const medians: ScenarioFigures = {
        reference: medianRun(runs.map((run) => run.reference)),
        sameBytes: medianRun(runs.map((run) => run.sameBytes)),
        ...(durableRuns.length > 0 ? { durableWrite: medianRun(durableRuns) } : {}),
        ...(prismRuns.length > 0 ? { prism: medianRun(prismRuns) } : {}),
        ...(postgresRuns.length > 0 ? { postgres: medianRun(postgresRuns) } : {}),
      };
      return [scenario.name, medians];
    }),
  );
  const fewest = options.clientScales[0]!;
  const most = options.clientScales.at(-1)!;
  // Round n of phase 2 over round n of phase 1: the same server, minutes apart.
  const pagedAt = (phase: Scenario['phase'], clients: number) =>
    ofPhase(phase).map((round) => round.scenarios[pagedClientsScenario(clients)]?.reference.reqPerSec ?? Number.NaN);
  const pagedFewest = pagedAt(1, fewest);
  const ratios: Results['ratios'] = {
    scenarios: Object.fromEntries(plan.map((scenario) => [scenario.name, ratioSpreads(perRound(scenario).map(({ ratios }) => ratios))])),
    pagedLargestToSmallest: spread(pagedAt(2, most).map((reqPerSec, i) => reqPerSec / (pagedFewest[i] ?? Number.NaN))),
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
  return [label, fixed(run.reqPerSec, 0), fixed(run.p50Ms, 1), fixed(run.p99Ms, 1), fixed(run.peakRssMb, 1)];
}

const spreadText = (figure: Spread, digits: number) => `${fixed(figure.median, digits)} (${fixed(figure.min, digits)}–${fixed(figure.max, digits)})`;

function measuredText(target: TargetCheck): string {
  const digits = target.unit === 'x' ? 2 : target.unit === 'ms' ? 0 : 1;
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
      `Benchmark: ${connections} connections (1 for the unpaged client lists: the time one caller waits for its list), ${duration} s per run after ${warmup} s of warm-up, ${rounds} round(s) per phase; medians over rounds (peak RSS: highest).`,
      `Phase 1: a history of ${fewest} clients only; phase 2: histories of ${larger.join(' and ')} clients seeded after it.`,
      'schema' in results.postgres
        ? `The writes are measured on a second reference server on PostgreSQL too (schema ${results.postgres.schema}, dropped after its row).`
        : `PostgreSQL row skipped: ${results.postgres.skipped}`,
    ].join('\n'),
  );
  for (const [scenario, figures] of Object.entries(medians.scenarios)) {
    sections.push(
      `${scenario}\n${table(
        ['target', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB'],
        [
          runRow('reference server', figures.reference),
          ...(figures.postgres ? [runRow('reference server on PostgreSQL (informative)', figures.postgres)] : []),
          ...(figures.prism ? [runRow('Prism mock', figures.prism)] : []),
          runRow('bare Hono, same bytes (limit)', figures.sameBytes),
          ...(figures.durableWrite ? [runRow('bare Hono, same bytes written durably (limit)', figures.durableWrite)] : []),
        ],
      )}`,
    );
  }
  sections.push(
    `Bare Hono, a small JSON array (GET /): ${fixed(medians.smallArray.phase1.reqPerSec, 0)} req/s in phase 1, ${fixed(medians.smallArray.phase2.reqPerSec, 0)} req/s in phase 2`,
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
    `Ratios (median of per-round ratios; the targets below give their spread)\n${table(
      ['scenario', 'reference / same bytes', 'reference / durable write', 'reference / small array', 'reference / Prism', 'PostgreSQL / SQLite'],
      Object.entries(ratios.scenarios).map(([scenario, ratio]) => [
        scenario,
        ratioCell(ratio.referenceToSameBytes, 2),
        ratioCell(ratio.referenceToDurableWrite, 2),
        ratioCell(ratio.referenceToSmallArray, 3),
        ratioCell(ratio.referenceToPrism, 2),
        ratioCell(ratio.postgresToSqlite, 2),
      ]),
    )}`,
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

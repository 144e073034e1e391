/**
 * What the run measured, summarised: medians over rounds, the ratios the issue's targets are
 * stated in (medians of per-round ratios, so that a round where the whole machine was slow
 * cancels out), the targets with pass/fail, the tables on stdout and the results JSON.
 */
import { cpus, release, totalmem, type as osType } from 'node:os';
import type { LoadFigures } from './load.js';
import type { BenchOptions } from './options.js';
import type { QrFigures } from './qr.js';
import { loadScenarios, type LoadScenario } from './scenarios.js';

/** One load run of one target, with the target's peak RSS during it. */
export interface RunFigures extends LoadFigures {
  peakRssMb: number;
}

export interface ScenarioFigures {
  reference: RunFigures;
  prism: RunFigures;
}

export interface ScenarioRatios {
  /** Reference req/s over bare Hono req/s. */
  referenceToBare: number;
  /** Reference req/s over Prism req/s. */
  referenceToPrism: number;
}

export interface Ratios {
  scenarios: Record<LoadScenario, ScenarioRatios>;
  /** Reference start-up time over Prism's (below 1 is faster). */
  startupReferenceToPrism: number;
}

export interface Startup {
  referenceMs: number;
  prismMs: number;
}

export interface RoundFigures {
  round: number;
  startup: Startup;
  bare: RunFigures;
  scenarios: Record<LoadScenario, ScenarioFigures>;
  ratios: Ratios;
}

export interface TargetCheck {
  name: string;
  measured: number;
  comparison: '>=' | '<=' | '<';
  limit: number;
  unit: string;
  pass: boolean;
}

export interface Results {
  date: string;
  machine: { cpu: string; cpuCount: number; totalMemoryMb: number; os: string; node: string };
  options: { connections: number; duration: number; rounds: number };
  qr: QrFigures;
  rounds: RoundFigures[];
  /** Medians over rounds; `peakRssMb` is the highest of the rounds instead (it is a peak). */
  medians: { startup: Startup; bare: RunFigures; scenarios: Record<LoadScenario, ScenarioFigures> };
  ratios: Ratios;
  /** The reference server's peak RSS over every load scenario of every round. */
  referencePeakRssMb: number;
  targets: TargetCheck[];
  pass: boolean;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function roundRatios(bare: RunFigures, scenarios: Record<LoadScenario, ScenarioFigures>, startup: Startup): Ratios {
  const perScenario = Object.fromEntries(
    loadScenarios.map((scenario) => {
      const { reference, prism } = scenarios[scenario];
      return [scenario, { referenceToBare: reference.reqPerSec / bare.reqPerSec, referenceToPrism: reference.reqPerSec / prism.reqPerSec }];
    }),
  ) as Record<LoadScenario, ScenarioRatios>;
  return { scenarios: perScenario, startupReferenceToPrism: startup.referenceMs / startup.prismMs };
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

function check(name: string, measured: number, comparison: TargetCheck['comparison'], limit: number, unit: string): TargetCheck {
  const pass = comparison === '>=' ? measured >= limit : comparison === '<=' ? measured <= limit : measured < limit;
  return { name, measured, comparison, limit, unit, pass };
}

export function summarise(options: BenchOptions, qr: QrFigures, rounds: RoundFigures[]): Results {
  const scenarios = Object.fromEntries(
    loadScenarios.map((scenario) => [
      scenario,
      { reference: medianRun(rounds.map((r) => r.scenarios[scenario].reference)), prism: medianRun(rounds.map((r) => r.scenarios[scenario].prism)) },
    ]),
  ) as Record<LoadScenario, ScenarioFigures>;
  const ratios: Ratios = {
    scenarios: Object.fromEntries(
      loadScenarios.map((scenario) => [
        scenario,
        {
          referenceToBare: median(rounds.map((r) => r.ratios.scenarios[scenario].referenceToBare)),
          referenceToPrism: median(rounds.map((r) => r.ratios.scenarios[scenario].referenceToPrism)),
        },
      ]),
    ) as Record<LoadScenario, ScenarioRatios>,
    startupReferenceToPrism: median(rounds.map((r) => r.ratios.startupReferenceToPrism)),
  };
  const startup = { referenceMs: median(rounds.map((r) => r.startup.referenceMs)), prismMs: median(rounds.map((r) => r.startup.prismMs)) };
  const referencePeakRssMb = Math.max(...rounds.flatMap((r) => loadScenarios.map((scenario) => r.scenarios[scenario].reference.peakRssMb)));
  const targets = [
    check('GET /charge/{id} req/s, reference / bare Hono', ratios.scenarios['GET /charge/{id}'].referenceToBare, '>=', 0.5, 'x'),
    check('GET /charge/{id} req/s, reference / Prism', ratios.scenarios['GET /charge/{id}'].referenceToPrism, '>=', 8, 'x'),
    check('POST /charge/payment-link req/s, reference / bare Hono', ratios.scenarios['POST /charge/payment-link'].referenceToBare, '>=', 0.25, 'x'),
    check('brCodeBase64 PNG time, reference / qrcode toDataURL', qr.ratio, '<=', 0.25, 'x'),
    check('start-up to first answer, reference (empty database)', startup.referenceMs, '<', 500, 'ms'),
    check('start-up to first answer, reference / Prism', ratios.startupReferenceToPrism, '<=', 0.2, 'x'),
    check('peak RSS under load, reference', referencePeakRssMb, '<', 200, 'MB'),
  ];
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
    options: { connections: options.connections, duration: options.duration, rounds: options.rounds },
    qr,
    rounds,
    medians: { startup, bare: medianRun(rounds.map((r) => r.bare)), scenarios },
    ratios,
    referencePeakRssMb,
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

export function formatResults(results: Results): string {
  const { medians, ratios, qr } = results;
  const sections: string[] = [];
  const { connections, duration, rounds } = results.options;
  sections.push(`Benchmark: ${connections} connections, ${duration} s per run, ${rounds} round(s); medians over rounds (peak RSS: highest).`);
  for (const scenario of loadScenarios) {
    const figures = medians.scenarios[scenario];
    sections.push(
      `${scenario}\n${table(
        ['target', 'req/s', 'p50 ms', 'p99 ms', 'peak RSS MB'],
        [runRow('reference server', figures.reference), runRow('Prism mock', figures.prism), runRow('bare Hono (limit, GET /)', medians.bare)],
      )}`,
    );
  }
  sections.push(
    `Start-up to first answered request\n${table(
      ['target', 'ms'],
      [
        ['reference server (empty database)', fixed(medians.startup.referenceMs, 0)],
        ['Prism mock', fixed(medians.startup.prismMs, 0)],
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
  sections.push(
    `Ratios (median of per-round ratios)\n${table(
      ['scenario', 'reference / bare Hono', 'reference / Prism'],
      [
        ...loadScenarios.map((scenario) => [
          scenario,
          fixed(ratios.scenarios[scenario].referenceToBare, 2),
          fixed(ratios.scenarios[scenario].referenceToPrism, 2),
        ]),
        ['start-up time (lower is faster)', '-', fixed(ratios.startupReferenceToPrism, 3)],
      ],
    )}`,
  );
  sections.push(
    `Targets\n${table(
      ['target', 'measured', 'limit', 'result'],
      results.targets.map((target) => [
        target.name,
        `${fixed(target.measured, target.unit === 'x' ? 3 : 1)} ${target.unit}`,
        `${target.comparison} ${target.limit} ${target.unit}`,
        target.pass ? 'pass' : 'FAIL',
      ]),
    )}`,
  );
  sections.push(results.pass ? 'Every target holds.' : `${results.targets.filter((t) => !t.pass).length} target(s) fail.`);
  return `${sections.join('\n\n')}\n`;
}

/**
 * The checks a flag asks for (`--webhook-receiver`, `--production`, `--flood`): when the flag was
 * given and none of its checks could run (every result a skip), the run did not do what it was
 * asked, and an exit code 0 would let a CI job believe it had (a webhook receiver a production
 * deployment refuses, D40, was a silent skip). The CLI prints one line per such flag, with the
 * reason, and exits 2 unless a check failed.
 */
import type { CheckName, ConformanceOptions, RunReport } from '../engine/types.js';

export const optInChecks: ReadonlyArray<{ flag: string; given: (options: ConformanceOptions) => boolean; checks: readonly CheckName[] }> = [
  { flag: '--webhook-receiver', given: (o) => o.webhookReceiver !== undefined, checks: ['webhook_signature', 'webhook_schema', 'webhook_delivery'] },
  { flag: '--production', given: (o) => o.production === true, checks: ['webhook_url_policy'] },
  { flag: '--flood', given: (o) => o.flood === true, checks: ['auth_flood_limited'] },
];

/** One line per flag given whose checks all were skipped: the flag, its checks, and why. */
export function flagsNotHonoured(report: Pick<RunReport, 'results'>, options: ConformanceOptions): string[] {
  const lines: string[] = [];
  for (const { flag, given, checks } of optInChecks) {
    if (!given(options)) continue;
    const results = report.results.filter((r) => checks.includes(r.check));
    // No result: --only left out the operations they are reported on.
    if (results.length === 0 || results.some((r) => r.outcome !== 'skip')) continue;
    const reasons = [...new Set(results.map((r) => r.skipReason ?? 'no reason given'))];
    lines.push(`${flag} was given, but ${checks.join(', ')} did not run: ${reasons.join('; ')}`);
  }
  return lines;
}

/**
 * The checks skipped because a flag was not given, by flag: read off their skip reasons
 * (`no --second-api-key`, `no --webhook-receiver: …`), so a new check skipping for a missing
 * flag is counted with no change here.
 */
export function notRunForMissingFlags(report: Pick<RunReport, 'results'>): Map<string, number> {
  const byFlag = new Map<string, number>();
  for (const r of report.results) {
    if (r.outcome !== 'skip') continue;
    const flag = /\bno (--[a-z][a-z-]*)/.exec(r.skipReason ?? '')?.[1];
    if (flag) byFlag.set(flag, (byFlag.get(flag) ?? 0) + 1);
  }
  return byFlag;
}

/**
 * The run's last lines, so that a run that proved less than it could says so where it is seen:
 * how many checks did not run for a missing flag and which flag runs them (failing the run under
 * `--strict`), and, under the `seed` profile, how many departures from the contract's decisions
 * it reported as info only.
 */
export function closingLines(
  report: Pick<RunReport, 'results' | 'profile'>,
  options: Pick<ConformanceOptions, 'strict'>,
): { lines: string[]; failsRun: boolean } {
  const lines: string[] = [];
  const info = report.results.filter((r) => r.outcome === 'info').length;
  if (report.profile === 'seed' && info > 0)
    lines.push(
      `${info} check${info === 1 ? '' : 's'} found departures from the contract's decisions, reported as info under profile seed; testing your own implementation? run --profile own`,
    );
  const missing = notRunForMissingFlags(report);
  const total = [...missing.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return { lines, failsRun: false };
  const which = [...missing].map(([flag, n]) => `${flag} runs ${n}`).join(', ');
  lines.push(
    `${total} check${total === 1 ? '' : 's'} did not run: ${which}${options.strict ? ' (--strict: the run fails)' : ' (--strict or --profile own makes this fail the run)'}`,
  );
  return { lines, failsRun: options.strict === true };
}

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

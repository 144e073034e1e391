/**
 * The conformance run as a vitest suite. `npm run conformance` (conformance/cli.ts) starts it
 * through vitest's Node API with the options in CONFORMANCE_SUITE_INPUT; without that variable
 * (a vitest configuration of one's own that includes this file) it reads the CONFORMANCE_*
 * variables.
 *
 * The engine runs once, at collection (top-level await); the RunReport goes to the report
 * file the CLI reads, and each CheckResult becomes one test named `<operationId> › <check>`:
 * pass passes, fail fails with each failed finding and its exchange, skip is skipped with its
 * reason, info passes with one annotation per info finding. An unreachable target is written
 * to the report file as such (the CLI exits 2) and fails the collection.
 */
import { writeFileSync } from 'node:fs';
import { test } from 'vitest';
import { KeyRefusedError, runConformance, TargetUnreachableError } from '../engine/run.js';
import type { CheckResult, RunReport } from '../engine/types.js';
import { suiteInputFrom, type SuiteOutcome } from '../options.js';
import { decisionNote, formatFailedResult, redactReport, resultTitle } from '../report/failures.js';
import { ProgressPrinter } from '../report/progress.js';

const input = suiteInputFrom(process.env);
const { options } = input;

function save(outcome: SuiteOutcome): void {
  if (input.reportPath) writeFileSync(input.reportPath, JSON.stringify(outcome));
}

const progress = new ProgressPrinter((text) => process.stderr.write(text), input.progress);
let report: RunReport;
try {
  report = redactReport(await runConformance(options, { onProgress: progress.onProgress }), [options.apiKey, options.secondApiKey]);
} catch (error) {
  progress.abort();
  const message = redactReport((error as Error).message ?? String(error), [options.apiKey, options.secondApiKey]);
  save(
    error instanceof TargetUnreachableError
      ? { kind: 'unreachable', message }
      : error instanceof KeyRefusedError
        ? { kind: 'refused', message }
        : { kind: 'error', message: redactReport((error as Error).stack ?? message, [options.apiKey, options.secondApiKey]) },
  );
  throw error;
}
save({ kind: 'report', report });

/** A failure without a stack trace: the findings are the whole story. */
function failure(result: CheckResult): Error {
  const error = new Error(formatFailedResult(result));
  error.name = 'ConformanceFailure';
  error.stack = `${error.name}: ${error.message}`;
  return error;
}

for (const result of report.results) {
  test(resultTitle(result), async (ctx) => {
    switch (result.outcome) {
      case 'pass':
        return;
      case 'skip':
        ctx.skip(result.skipReason ?? 'skipped');
        return;
      case 'info':
        for (const finding of result.findings.filter((f) => f.outcome === 'info')) await ctx.annotate(`${finding.message}${decisionNote(finding)}`, 'info');
        return;
      case 'fail':
        throw failure(result);
    }
  });
}

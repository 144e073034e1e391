/**
 * `npm run conformance`: tests a deployment against the bundled contract.
 *
 * 1. Parses the options (conformance/options.ts); bad ones → message and usage on stderr, exit 2.
 * 2. Runs conformance/suite/conformance.suite.ts through vitest's Node API (`startVitest`,
 *    no config file, no watch), the options passed as JSON in CONFORMANCE_SUITE_INPUT. The
 *    suite runs the engine, writes its outcome (the RunReport, or "unreachable") to a temporary
 *    file and turns every check result into a vitest test; a small reporter here counts them.
 *    Before that, one authenticated read with each key: a 401 ends the run at once (exit 2,
 *    one line), as the suite would do too, only seconds later.
 * 3. Reads the outcome: an unreachable target or a refused key → one line on stderr, exit 2. Otherwise prints
 *    the matrix and every failure (request and response, keys masked, bodies cut at 2 KB),
 *    writes --junit / --html, and exits 1 if a check failed, else 0.
 *
 * Why the suite reports "unreachable" instead of this CLI probing first: the engine's own
 * probe (run.ts) stays the one definition of "the target answers", and a target that goes
 * away between a CLI probe and the run would still have to be handled there.
 */
import { accessSync, constants, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reporter, SerializedError, TestCase, TestModule } from 'vitest/node';
import { loadBundledContract } from '../lib/contract/bundled.js';
import { checkKeysAccepted, KeyRefusedError } from './engine/key-check.js';
import type { ConformanceOptions, RunReport } from './engine/types.js';
import { HelpRequested, parseOptions, SUITE_INPUT_ENV, UsageError, usage, type SuiteInput, type SuiteOutcome } from './options.js';
import { formatFindings, redactReport } from './report/failures.js';
import { renderHtml } from './report/html.js';
import { renderJunit } from './report/junit.js';
import { renderMatrix } from './report/matrix.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const suiteFile = 'conformance/suite/conformance.suite.ts';

/** Counts what vitest made of the suite's tests, and keeps the errors of a suite that broke. */
class CountingReporter implements Reporter {
  readonly counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
  readonly errors: string[] = [];

  onTestCaseResult(testCase: TestCase): void {
    this.counts[testCase.result().state] += 1;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    for (const module of testModules) for (const error of module.errors()) this.errors.push(error.stack ?? error.message);
    for (const error of unhandledErrors) this.errors.push(error.stack ?? error.message);
  }
}

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let options: ConformanceOptions;
  try {
    options = parseOptions(argv, env);
  } catch (error) {
    if (error instanceof HelpRequested) {
      process.stdout.write(`${usage}\n`);
      return 0;
    }
    if (error instanceof UsageError) {
      process.stderr.write(`conformance: ${error.message}\n\n${usage}\n`);
      return 2;
    }
    throw error;
  }

  // A report that cannot be written is a bad argument, found before the run rather than after it.
  for (const [flag, file] of [
    ['--junit', options.junit],
    ['--html', options.html],
  ] as const) {
    if (!file) continue;
    const dir = dirname(outputPath(file, env));
    try {
      mkdirSync(dir, { recursive: true });
      accessSync(dir, constants.W_OK);
    } catch (error) {
      process.stderr.write(`conformance: cannot write ${flag} ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}\n`);
      return 2;
    }
  }

  // Before vitest starts (seconds): a refused key is told at once, in one line, not as a matrix of 401s.
  try {
    await checkKeysAccepted(options, loadBundledContract());
  } catch (error) {
    if (!(error instanceof KeyRefusedError)) throw error;
    process.stderr.write(`conformance: ${error.message}\n`);
    return 2;
  }

  const folder = mkdtempSync(join(tmpdir(), 'conformance-'));
  try {
    const reportPath = join(folder, 'outcome.json');
    const input: SuiteInput = { options, reportPath, progress: process.stderr.isTTY ? 'tty' : 'plain' };
    process.env[SUITE_INPUT_ENV] = JSON.stringify(input);
    const reporter = new CountingReporter();
    // Loaded only now: a usage error answers without the cost of loading vitest.
    const { startVitest } = await import('vitest/node');
    try {
      await startVitest('test', [], { config: false, root: repoRoot, include: [suiteFile], watch: false, reporters: [reporter], passWithNoTests: true });
    } finally {
      delete process.env[SUITE_INPUT_ENV];
    }

    let outcome: SuiteOutcome | undefined;
    try {
      outcome = JSON.parse(readFileSync(reportPath, 'utf8')) as SuiteOutcome;
    } catch {
      outcome = undefined;
    }
    const secrets = [options.apiKey, options.secondApiKey];
    if (outcome?.kind === 'unreachable') {
      process.stderr.write(`conformance: target unreachable: ${outcome.message}\n`);
      return 2;
    }
    if (outcome?.kind === 'refused') {
      process.stderr.write(`conformance: ${outcome.message}\n`);
      return 2;
    }
    if (outcome?.kind !== 'report') {
      const why = outcome?.message ?? (reporter.errors.join('\n') || 'the suite wrote no report');
      process.stderr.write(`conformance: the run itself broke (not a finding about the target):\n${redactReport(why, secrets)}\n`);
      return 1;
    }
    return finish(redactReport(outcome.report, secrets), options, reporter, env);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Relative paths are the caller's: npm runs scripts from the package root, INIT_CWD is where it was called. */
function outputPath(file: string, env: NodeJS.ProcessEnv): string {
  return resolve(env.INIT_CWD ?? process.cwd(), file);
}

function finish(report: RunReport, options: ConformanceOptions, reporter: CountingReporter, env: NodeJS.ProcessEnv): number {
  const color = Boolean(process.stdout.isTTY) && env.NO_COLOR === undefined;
  const c = reporter.counts;
  process.stdout.write(`\n${renderMatrix(report, { color })}\n`);
  const findings = formatFindings(report);
  if (findings) process.stdout.write(`\n${findings}\n`);

  for (const [file, render, what] of [
    [options.junit, renderJunit, 'JUnit'],
    [options.html, renderHtml, 'HTML'],
  ] as const) {
    if (!file) continue;
    const path = outputPath(file, env);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, render(report));
    process.stdout.write(`${what} report: ${path}\n`);
  }

  // vitest's tests are the report's checks (info passes): its count is not a second total,
  // only a guard that the suite turned every check into exactly one test.
  const failedResults = report.results.filter((r) => r.outcome === 'fail').length;
  const vitestTests = c.passed + c.failed + c.skipped;
  if (c.failed !== failedResults || vitestTests !== report.results.length) {
    process.stderr.write(
      `conformance: vitest counted ${vitestTests} test(s), ${c.failed} failed, but the report has ${report.results.length} check(s), ${failedResults} failed\n`,
    );
    return 1;
  }
  return failedResults > 0 ? 1 : 0;
}

main(process.argv.slice(2), process.env).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`conformance: ${(error as Error).stack ?? String(error)}\n`);
    process.exitCode = 1;
  },
);

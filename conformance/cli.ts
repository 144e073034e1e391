/**
 * `npm run conformance` / `pix-conformance`: tests a deployment against the bundled contract.
 *
 * 1. Parses the options (conformance/options.ts); bad ones → message and usage on stderr, exit 2.
 * 2. Preflight, before any check (conformance/engine/preflight.ts), each failure one line on
 *    stderr and exit 2, within seconds:
 *    - the host answers: a GET to each base URL within 5 s, else the cause in words (connection
 *      refused, no such host, timed out, a TLS failure …);
 *    - the keys work: a 401 to the run's key or the second key names the flag (and its variable) to check;
 *    - the target is serving: `the target is not serving: GET /client with the key answered 500 …`
 *      when that read and the first create on {base_url_alt} answer server errors (a database down);
 *    - the base URLs serve this interface: `nothing answers like this API at BASE: is the base
 *      path right?` when the seed's own secured read, or every seed create on {base_url_alt} sent
 *      `{}`, is answered "no such operation" (404/405 the contract never gives it) or a web page;
 *    - the target keeps state (unless --stateless or --read-only): two creates answered the same
 *      id, or a record just created not found, stop the run suggesting --stateless.
 * 3. Runs the engine (conformance/engine/run.ts) in this process, progress on stderr. A target
 *    that stops answering in the middle → one line on stderr (with what the run could not
 *    delete, as the requests that would), the --junit / --html / --har files written with what
 *    it had found and why it stopped, exit 2.
 * 4. Prints the matrix and every failure (request and response, keys masked, bodies cut at 2 KB,
 *    a curl line), writes --junit / --html / --har. A check that could not run, or ran only in
 *    part, is a skip with its reason, never ✓. Exits 1 if a check failed; else 2 if a flag's
 *    checks could not run at all (--webhook-receiver, --production, --flood: the last stderr line
 *    says why and what to do, report/not-run.ts); else 0.
 *
 * No test runner is involved: the engine's RunReport is the outcome, and the JUnit report is
 * what CI systems read. So the installed package needs nothing but this file's bundle
 * (scripts/build-conformance.mjs), and a run starts in well under a second.
 *
 * Ctrl-C (SIGINT) or SIGTERM during a run: the run stops at its next request, deletes what it
 * created (as at a normal end), writes the reports asked for as a run that stopped, and exits
 * 130 / 143; a second signal exits at once.
 */
import { accessSync, constants, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import {
  KeepsNoStateError,
  KeyRefusedError,
  NotServingError,
  RunInterruptedError,
  runConformance,
  TargetUnreachableError,
  WrongBaseUrlError,
} from './engine/run.js';
import type { ConformanceOptions, RunReport } from './engine/types.js';
import { HelpRequested, ListChecksRequested, parseOptions, UsageError, usage } from './options.js';
import { formatFindings, redactReport } from './report/failures.js';
import { formatTimings } from './report/timings.js';
import { formatCheckList } from './report/check-list.js';
import { renderHar } from './report/har.js';
import { renderHtml } from './report/html.js';
import { renderJunit } from './report/junit.js';
import { renderMatrix } from './report/matrix.js';
import { closingLines, flagsNotHonoured } from './report/not-run.js';
import { ProgressPrinter } from './report/progress.js';

async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  let options: ConformanceOptions;
  try {
    options = parseOptions(argv, env);
  } catch (error) {
    if (error instanceof HelpRequested) {
      process.stdout.write(`${usage}\n`);
      return 0;
    }
    if (error instanceof ListChecksRequested) {
      process.stdout.write(`${formatCheckList()}\n`);
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
    ['--har', options.har],
  ] as const) {
    const why = file ? unwritable(file, env) : undefined;
    if (why) {
      process.stderr.write(`conformance: cannot write ${flag} ${file}: ${why}\n`);
      return 2;
    }
  }

  const secrets = [options.apiKey, options.secondApiKey];
  const progress = new ProgressPrinter((text) => process.stderr.write(text), process.stderr.isTTY ? 'tty' : 'plain');
  const interrupt = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) process.exit(signal === 'SIGINT' ? 130 : 143);
    signalled = signal;
    process.stderr.write(`\nconformance: ${signal}: stopping, deleting what the run created (again to exit at once)\n`);
    interrupt.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const report = await runConformance(options, { onProgress: progress.onProgress, signal: interrupt.signal });
    return finish(redactReport(report, secrets), options, env);
  } catch (error) {
    progress.abort();
    const message = redactReport((error as Error).message ?? String(error), secrets);
    if (error instanceof RunInterruptedError || error instanceof TargetUnreachableError) {
      const interrupted = error instanceof RunInterruptedError;
      process.stderr.write(`conformance: ${interrupted ? '' : 'target unreachable: '}${message}\n`);
      // Stopped in the middle: the reports asked for hold what it had found, and say why it stopped.
      if (error.report) writeReports(redactReport(error.report, secrets), options, env);
      return interrupted ? (signalled === 'SIGTERM' ? 143 : 130) : 2;
    }
    if (error instanceof KeyRefusedError || error instanceof WrongBaseUrlError || error instanceof NotServingError || error instanceof KeepsNoStateError) {
      process.stderr.write(`conformance: ${message}\n`);
      return 2;
    }
    const stack = redactReport((error as Error).stack ?? message, secrets);
    process.stderr.write(`conformance: the run itself broke (not a finding about the target):\n${stack}\n`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** What is at a path: a directory, a file (anything else), or nothing. */
function kindOf(path: string): 'directory' | 'file' | undefined {
  try {
    return statSync(path).isDirectory() ? 'directory' : 'file';
  } catch {
    return undefined;
  }
}

/**
 * Why a report cannot be written at `file`, in words, or undefined when it can: its directory
 * exists and can be written in, or only that directory is missing and its parent can be written
 * in (writeReports makes it, and says so). Nothing more is made: a path whose directory's parent
 * is missing too is refused, so a mistyped path does not grow a tree of directories (as root, at
 * `/`). Paths in messages are the ones the user gave.
 */
function unwritable(file: string, env: NodeJS.ProcessEnv): string | undefined {
  const path = outputPath(file, env);
  const [dir, parent] = [dirname(path), dirname(dirname(path))];
  const [givenDir, givenParent] = [dirname(file), dirname(dirname(file))];
  const writable = (where: string) => {
    try {
      accessSync(where, constants.W_OK);
      return true;
    } catch {
      return false;
    }
  };
  if (kindOf(path) === 'directory') return `${file} is a directory; give a file name in it`;
  switch (kindOf(dir)) {
    case 'directory':
      return writable(dir) ? undefined : `no permission to write in ${givenDir}`;
    case 'file':
      return `${givenDir} is a file, not a directory`;
    default:
      if (kindOf(parent) === 'file') return `${givenParent} is a file, not a directory`;
      if (kindOf(parent) === undefined)
        return `the directory ${givenDir} does not exist, nor does ${givenParent} (only the report's own directory is made; create the others first)`;
      return writable(parent) ? undefined : `the directory ${givenDir} does not exist, and there is no permission to make it in ${givenParent}`;
  }
}

/** Relative paths are the caller's: npm runs scripts from the package root, INIT_CWD is where it was called. */
function outputPath(file: string, env: NodeJS.ProcessEnv): string {
  return resolve(env.INIT_CWD ?? process.cwd(), file);
}

function finish(report: RunReport, options: ConformanceOptions, env: NodeJS.ProcessEnv): number {
  const color = Boolean(process.stdout.isTTY) && env.NO_COLOR === undefined;
  process.stdout.write(`\n${renderMatrix(report, { color })}\n`);
  const findings = formatFindings(report);
  if (findings) process.stdout.write(`\n${findings}\n`);
  const timings = formatTimings(report);
  if (timings) process.stdout.write(`\n${timings}\n`);

  writeReports(report, options, env);
  // What the run made and could not delete is never left behind without a word.
  if (report.leftBehind) process.stderr.write(`conformance: the run could not delete what it made: ${report.leftBehind.join(', ')}\n`);

  // A flag whose checks could not run at all: said last, where it is seen, and not exit 0.
  // Last: what the run did not prove, and the flag that proves it; after it only a flag given
  // whose checks could not run at all (the target refused it), which is what to fix first.
  const closing = closingLines(report, options);
  for (const line of closing.lines) process.stderr.write(`conformance: ${line}\n`);
  const notHonoured = flagsNotHonoured(report, options);
  for (const line of notHonoured) process.stderr.write(`conformance: ${line}\n`);
  const failedResults = report.results.filter((r) => r.outcome === 'fail').length;
  return failedResults > 0 || closing.failsRun ? 1 : notHonoured.length > 0 ? 2 : 0;
}

/** Writes the --junit, --html and --har files asked for, each path on stdout. */
function writeReports(report: RunReport, options: ConformanceOptions, env: NodeJS.ProcessEnv): void {
  for (const [file, render, what] of [
    [options.junit, renderJunit, 'JUnit'],
    [options.html, renderHtml, 'HTML'],
    [options.har, renderHar, 'HAR'],
  ] as const) {
    if (!file) continue;
    const path = outputPath(file, env);
    // Its own directory, when only that was missing (checked before the run: unwritable).
    const made = kindOf(dirname(path)) === undefined ? dirname(path) : undefined;
    if (made) mkdirSync(made);
    writeFileSync(path, render(report));
    process.stdout.write(`${what} report: ${path}${made ? ` (made the directory ${made})` : ''}\n`);
  }
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

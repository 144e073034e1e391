import { authCheck } from '../checks/auth.js';
import { availabilityCheck } from '../checks/availability.js';
import { domainCheck } from '../checks/domain.js';
import { generatedCheck } from '../checks/generated.js';
import { hardeningCheck } from '../checks/hardening.js';
import { idempotencyCheck } from '../checks/idempotency.js';
import { inactiveReferencesCheck } from '../checks/inactive.js';
import { negativeCheck } from '../checks/negative.js';
import { pagingCheck } from '../checks/paging.js';
import { positiveCheck } from '../checks/positive.js';
import { reuseByTaxIdCheck } from '../checks/reuse.js';
import { responseChecks } from '../checks/responses.js';
import { responseTimeCheck } from '../checks/response-time.js';
import { operationTimings } from '../report/timings.js';
import { tenantCheck } from '../checks/tenants.js';
import { webhookCheck } from '../checks/webhooks.js';
import { unsupportedMethodCheck } from '../checks/unsupported-method.js';
import { useAfterFreeCheck } from '../checks/use-after-free.js';
import { createFixtures } from '../data/fixtures.js';
import { RunContext, RunInterruptedError, RunStoppedError, type RunDeps } from './context.js';
import type { CheckModule } from './check-module.js';
import { detectNoState, preflight } from './preflight.js';
import type { CheckName, ConformanceOptions, RunReport } from './types.js';

export { RunInterruptedError, RunStoppedError, TargetUnreachableError } from './context.js';
export { KeyRefusedError } from './key-check.js';
export { KeepsNoStateError, NotServingError, WrongBaseUrlError } from './preflight.js';

/**
 * The checks that send their own requests run first, in this order (later ones use what
 * earlier ones created); the response checks then judge every exchange of the run.
 */
const activeChecks: CheckModule[] = [
  authCheck,
  positiveCheck,
  negativeCheck,
  inactiveReferencesCheck,
  reuseByTaxIdCheck,
  availabilityCheck,
  generatedCheck,
  idempotencyCheck,
  tenantCheck,
  domainCheck,
  useAfterFreeCheck,
  pagingCheck,
  unsupportedMethodCheck,
  webhookCheck,
  // Last: its flood spends the run's anonymous quota.
  hardeningCheck,
];

export async function runConformance(options: ConformanceOptions, deps: RunDeps = {}): Promise<RunReport> {
  const started = Date.now();
  const ctx = new RunContext(options, deps);
  deps.onProgress?.({ kind: 'start', operations: ctx.reported.length });
  // A wrong target (no answer, a refused key, a wrong base path) ends the run here (preflight.ts).
  await preflight(ctx, deps.fetch);
  // The check module running (its index in activeChecks): where a run that stops leaves off.
  let current = 0;
  try {
    if (!options.readOnly && !options.stateless) {
      for (const module of activeChecks) await module.before?.(ctx);
      await createFixtures(ctx);
      // A target that keeps nothing (a mock run without --stateless) ends it here.
      await detectNoState(ctx);
    }
    for (; current < activeChecks.length; current++) await activeChecks[current]!.run(ctx);
  } catch (error) {
    await ctx.cleanUp().catch(() => undefined);
    if (!(error instanceof RunStoppedError)) throw error;
    // The target stopped answering, or the user stopped the run: what it found so far is a report
    // too (the CLI writes its files, so CI has something to show), and what it could not delete is said.
    const stopped = new (error.constructor as new (message: string) => RunStoppedError)(`${error.message}; ${leftBehindNote(ctx)}`);
    const why = error instanceof RunInterruptedError ? 'it was interrupted' : 'the target stopped answering';
    // The reports count only the checks that ran (issue 35: a run stopped early must not report
    // more checks than a whole run): a check of the module it stopped in that had recorded
    // something is "not run in full"; the modules after it recorded nothing and add nothing.
    const recorded = (operationId: string, check: CheckName) => ctx.recorder.results([operationId]).some((r) => r.check === check);
    const module = activeChecks[current];
    if (module)
      for (const op of ctx.operations)
        for (const check of module.checks)
          if (recorded(op.operationId, check)) ctx.recorder.partial(op.operationId, check, `the run stopped in the middle of this check: ${why}`);
    // The response checks judge the exchanges it had: not every request of a whole run.
    const judgedPartly = () => {
      for (const op of ctx.operations)
        for (const check of responseChecks.checks)
          if (recorded(op.operationId, check))
            ctx.recorder.partial(op.operationId, check, `the run stopped before its end (${why}): only the answers it had were judged`);
    };
    stopped.report = await finalReport(ctx, started, `${error instanceof RunInterruptedError ? '' : 'target unreachable: '}${stopped.message}`, judgedPartly);
    throw stopped;
  }
  // What the run created and may delete goes (as it does above when a check threw or the run stopped).
  await ctx.cleanUp().catch(() => undefined);
  const report = await finalReport(ctx, started);
  deps.onProgress?.({ kind: 'done', report });
  return report;
}

/** The report of a run: its response checks run on every exchange it recorded, with `stopped` when it stopped before its end. */
async function finalReport(ctx: RunContext, started: number, stopped?: string, afterResponses?: () => void): Promise<RunReport> {
  await responseChecks.run(ctx);
  afterResponses?.();
  await responseTimeCheck.run(ctx);
  for (const op of ctx.withheld) ctx.recorder.skip(op.operationId, 'positive_data_acceptance', withheldReason);
  const reported = ctx.reported.map((op) => op.operationId);
  const leftBehind = ctx.leftBehindRequests;
  return {
    runId: ctx.runId,
    profile: ctx.options.profile,
    target: { baseUrl: ctx.options.baseUrl, baseUrlAlt: ctx.options.baseUrlAlt },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    operations: reported,
    results: ctx.recorder.results(reported),
    exchanges: ctx.exchanges,
    timings: operationTimings(ctx.exchanges, reported),
    ...(stopped ? { stopped } : {}),
    ...(leftBehind.length > 0 ? { leftBehind } : {}),
  };
}

/** Why an operation marked `x-resets-company` is never sent. */
export const withheldReason =
  "never sent: it deletes every record of the API key's company (x-resets-company), the run's fixtures and whatever else the company holds";

/**
 * What clean-up did, in words: how many records it deleted, and the request that deletes each
 * one it could not, so that nothing the run made is left behind without a word.
 */
function leftBehindNote(ctx: Pick<RunContext, 'cleanedUp' | 'leftBehindRequests'>): string {
  const left = ctx.leftBehindRequests;
  const deleted = ctx.cleanedUp;
  const done =
    deleted === 0
      ? undefined
      : `its clean-up deleted ${deleted === 1 ? 'the record' : `the ${deleted} records`} the run had left that the contract lets it delete`;
  if (left.length === 0) return done ?? 'it had left nothing the contract lets it delete';
  const these = `${left.length === 1 ? 'a record it made could' : `${left.length} records it made could`} not be deleted; to delete ${left.length === 1 ? 'it' : 'them'}, send (with the run's API key unless marked): ${left.join(', ')}`;
  return done ? `${done}, but ${these}` : these;
}

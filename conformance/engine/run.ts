import { authCheck } from '../checks/auth.js';
import { availabilityCheck } from '../checks/availability.js';
import { domainCheck } from '../checks/domain.js';
import { hardeningCheck } from '../checks/hardening.js';
import { idempotencyCheck } from '../checks/idempotency.js';
import { negativeCheck } from '../checks/negative.js';
import { positiveCheck } from '../checks/positive.js';
import { responseChecks } from '../checks/responses.js';
import { tenantCheck } from '../checks/tenants.js';
import { webhookCheck } from '../checks/webhooks.js';
import { unsupportedMethodCheck } from '../checks/unsupported-method.js';
import { useAfterFreeCheck } from '../checks/use-after-free.js';
import { createFixtures } from '../data/fixtures.js';
import { RunContext, RunInterruptedError, type RunDeps } from './context.js';
import { detectNoState, preflight } from './preflight.js';
import type { CheckName, ConformanceOptions, RunReport } from './types.js';

/** One group of checks. `run` records findings (or skips) for the checks it names. */
export interface CheckModule {
  checks: readonly CheckName[];
  /** Runs before the run creates anything (its fixtures included), in a run that creates records: to note what was there before. */
  before?(ctx: RunContext): Promise<void>;
  run(ctx: RunContext): Promise<void>;
}

export { RunInterruptedError, TargetUnreachableError } from './context.js';
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
  availabilityCheck,
  idempotencyCheck,
  tenantCheck,
  domainCheck,
  useAfterFreeCheck,
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
  try {
    if (!options.readOnly && !options.stateless) {
      for (const module of activeChecks) await module.before?.(ctx);
      await createFixtures(ctx);
      // A target that keeps nothing (a mock run without --stateless) ends it here.
      await detectNoState(ctx);
    }
    for (const module of activeChecks) await module.run(ctx);
  } catch (error) {
    await ctx.cleanUp().catch(() => undefined);
    if (error instanceof RunInterruptedError) throw new RunInterruptedError(`${error.message}; ${leftBehindNote(ctx)}`);
    throw error;
  }
  // What the run created and may delete goes, also when a check threw or the target stopped answering.
  await ctx.cleanUp().catch(() => undefined);
  await responseChecks.run(ctx);
  for (const op of ctx.withheld) ctx.recorder.skip(op.operationId, 'positive_data_acceptance', withheldReason);
  const reported = ctx.reported.map((op) => op.operationId);
  const report: RunReport = {
    runId: ctx.runId,
    profile: options.profile,
    target: { baseUrl: options.baseUrl, baseUrlAlt: options.baseUrlAlt },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    operations: reported,
    results: ctx.recorder.results(reported),
    exchanges: ctx.exchanges,
  };
  deps.onProgress?.({ kind: 'done', report });
  return report;
}

/** Why an operation marked `x-resets-company` is never sent. */
export const withheldReason =
  "never sent: it deletes every record of the API key's company (x-resets-company), the run's fixtures and whatever else the company holds";

/** What clean-up left, in words: nothing, or the delete URLs of what is still there. */
function leftBehindNote(ctx: RunContext): string {
  const left = ctx.notCleanedUp;
  return left.length === 0 ? 'it deleted what it had created that the contract lets it delete' : `these could not be deleted: ${left.join(', ')}`;
}

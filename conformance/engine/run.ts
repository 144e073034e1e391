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
import { RunContext, RunInterruptedError, TargetUnreachableError, type RunDeps } from './context.js';
import { send } from './http.js';
import type { CheckModule } from './check-module.js';
import { checkKeysAccepted } from './key-check.js';
import type { ConformanceOptions, RunReport } from './types.js';

export { RunInterruptedError, TargetUnreachableError } from './context.js';
export { KeyRefusedError } from './key-check.js';

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
  deps.onProgress?.({ kind: 'start', operations: ctx.operations.length });
  await probe(ctx, deps);
  await checkKeysAccepted(options, ctx.contract, deps.fetch);
  try {
    if (!options.readOnly && !options.stateless) await createFixtures(ctx);
    for (const module of activeChecks) await module.run(ctx);
  } catch (error) {
    await ctx.cleanUp().catch(() => undefined);
    if (error instanceof RunInterruptedError) throw new RunInterruptedError(`${error.message}; ${leftBehindNote(ctx)}`);
    throw error;
  }
  // What the run created and may delete goes, also when a check threw or the target stopped answering.
  await ctx.cleanUp().catch(() => undefined);
  await responseChecks.run(ctx);
  const report: RunReport = {
    runId: ctx.runId,
    profile: options.profile,
    target: { baseUrl: options.baseUrl, baseUrlAlt: options.baseUrlAlt },
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    operations: ctx.operations.map((op) => op.operationId),
    results: ctx.recorder.results(ctx.operations.map((op) => op.operationId)),
    exchanges: ctx.exchanges,
  };
  deps.onProgress?.({ kind: 'done', report });
  return report;
}

/** One unauthenticated GET to each base URL: any HTTP answer means the target is there. */
async function probe(ctx: RunContext, deps: RunDeps): Promise<void> {
  for (const base of new Set([ctx.options.baseUrl, ctx.options.baseUrlAlt])) {
    const exchange = await send(deps.fetch ?? fetch, { operationId: 'probe', method: 'GET', url: base }, ctx.options.timeoutMs);
    if (exchange.error) throw new TargetUnreachableError(`${base} does not answer: ${exchange.error}`);
  }
}

/** What clean-up left, in words: nothing, or the delete URLs of what is still there. */
function leftBehindNote(ctx: RunContext): string {
  const left = ctx.notCleanedUp;
  return left.length === 0 ? 'it deleted what it had created that the contract lets it delete' : `these could not be deleted: ${left.join(', ')}`;
}

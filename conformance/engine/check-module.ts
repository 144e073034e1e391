import type { RunContext } from './context.js';
import type { CheckName } from './types.js';

/**
 * One group of checks (conformance/checks/*). `run` records findings (or skips) for the checks
 * it names. It lives below both the engine, which lists the groups, and the checks.
 */
export interface CheckModule {
  checks: readonly CheckName[];
  /** Runs before the run creates anything (its fixtures included), in a run that creates records: to note what was there before. */
  before?(ctx: RunContext): Promise<void>;
  run(ctx: RunContext): Promise<void>;
}

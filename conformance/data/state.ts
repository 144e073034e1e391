import type { RunContext } from '../engine/context.js';

/**
 * What the data generators learn during a run beyond `ctx.fixtures` (whose shape the
 * engine fixes): the prices of the records the run created (order amounts must add up, D29)
 * and the caller's company id (a `companyId` sent in a body must be the caller's, D26). Kept
 * per run context, so runs never share it.
 */
export interface RunData {
  /** The `price` (currency units) of each record the run created with one (its products), by id. */
  prices: Map<string, number>;
  /** The company of the run's key, as the target reported it on a created record. */
  companyId?: string;
  /** Why fixtures are missing, by fixture key (the positive check's skip reasons). */
  missing: Map<string, string>;
  /** How many identifier tags (`externalId`, `sku` …) the run has handed out: each is unique. */
  tagged: number;
}

const data = new WeakMap<RunContext, RunData>();

export function runData(ctx: RunContext): RunData {
  let found = data.get(ctx);
  if (!found) {
    found = { prices: new Map(), missing: new Map(), tagged: 0 };
    data.set(ctx, found);
  }
  return found;
}

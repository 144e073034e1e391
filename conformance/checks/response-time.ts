/**
 * response_time (`--max-response-time MS`, or `--profile own`'s default budget): every answer of the run came within the budget.
 * One finding per operation however many of its answers were slow (one cause, one finding): how
 * many, of how many, and the slowest, with its exchange (and so its curl line). Without a budget
 * it records nothing: the times are still reported (report/timings.ts).
 */
import type { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';

const check = 'response_time' as const;

export const responseTimeCheck: CheckModule = {
  checks: [check],
  async run(ctx: RunContext): Promise<void> {
    const budget = ctx.options.maxResponseTimeMs;
    if (budget === undefined) return;
    const source = ctx.options.maxResponseTimeDefault ? "--profile own's default; --max-response-time MS sets another" : '--max-response-time';
    for (const op of ctx.operations) {
      const exchanges = ctx.exchanges.filter((e) => e.operationId === op.operationId);
      if (exchanges.length === 0) continue;
      const slow = exchanges.filter((e) => e.ms > budget);
      const slowest = exchanges.reduce((a, b) => (b.ms > a.ms ? b : a));
      const where = `${op.method.toUpperCase()} ${op.path}`;
      if (slow.length === 0) {
        ctx.recorder.pass(op.operationId, check, `${where}: all ${exchanges.length} answers within ${budget} ms (slowest ${Math.round(slowest.ms)} ms)`);
        continue;
      }
      ctx.recorder.fail(
        op.operationId,
        check,
        `${where}: ${slow.length} of ${exchanges.length} answers slower than the ${budget} ms budget (${source}), the slowest ${Math.round(slowest.ms)} ms`,
        slowest,
      );
    }
  },
};

/**
 * use_after_free (Schemathesis' check of the same name): after a `DELETE` of a record
 * answered 2xx, every `GET` of that record (its path, and the paths below it, e.g. a
 * registration's deliveries) answers `404`, as for an id that never existed (D27).
 *
 * The deleting operations are the contract's; the record deleted is a new one the run
 * creates through the operation the contract's links name as creating it. A delete the
 * contract marks as a decision (`x-decision`, e.g. `deleteWebhook`, D40) makes every finding
 * information in the `seed` profile: the seed has no delete.
 */
import { existingPathParams } from '../data/fixtures.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import { answered, isSuccess, skipAll, statefulSkipReason } from './stateful.js';

const check = 'use_after_free' as const;

/** RFC 9110 §15.5.5; the contract answers an unknown id with it (D27). */
const notFound = 404;

export const useAfterFreeCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    const deletes = ctx.operations.filter((op) => op.method === 'delete');
    const reason = statefulSkipReason(ctx);
    if (reason) {
      skipAll(
        ctx,
        deletes.map((op) => op.operationId),
        check,
        reason,
      );
      return;
    }
    for (const op of deletes) {
      const opId = op.operationId;
      const reads = ctx.operations.filter((read) => read.method === 'get' && (read.path === op.path || read.path.startsWith(`${op.path}/`)));
      if (reads.length === 0) {
        ctx.recorder.skip(opId, check, `no GET of the run reads what ${op.path} deletes`);
        continue;
      }
      const existing = await existingPathParams(ctx, op);
      if ('reason' in existing) {
        ctx.recorder.skip(opId, check, existing.reason);
        continue;
      }
      const deleted = await ctx.request(op, { pathParams: existing.params });
      if (!isSuccess(deleted)) {
        ctx.recorder.skip(opId, check, `the delete ${answered(deleted)}, so nothing was freed (positive_data_acceptance reports the delete)`);
        continue;
      }
      const decision = RunContext.decisionOf(op.operation);
      for (const read of reads) {
        const after = await ctx.request(read, { pathParams: existing.params });
        const where = `GET ${ctx.url(read, existing.params).replace(/^https?:\/\/[^/]+/, '')}`;
        const ok = after.response?.status === notFound;
        ctx.judge(
          opId,
          check,
          ok,
          ok
            ? `${where} answers ${notFound} after the delete`
            : `${where} ${answered(after)} after the delete answered ${deleted.response!.status}, not ${notFound}`,
          { decision, exchange: after },
        );
      }
    }
  },
};

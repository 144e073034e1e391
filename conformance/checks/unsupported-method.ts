/**
 * unsupported_method (Schemathesis' check of the same name): a method the contract does not
 * define on one of its paths is answered `405` with an `Allow` header naming the methods it
 * does define (RFC 9110 §15.5.6). That is D37: the seed says nothing of other methods (§4.10
 * "not shown"), so in the `seed` profile a departure is information. The contract cannot mark
 * it, an absent operation carries no marking (D37's own row says so), so the decision is
 * named here.
 *
 * Each request carries the run's key and no body; a path parameter is an id no record has.
 * A `DELETE` is not sent to a path without parameters: on a service that does define it, it
 * could delete a whole collection. The findings go to the first operation of the path the run
 * covers; the exchanges are kept out of the response checks, which judge the contract's own
 * operations only.
 */
import type { ContractOperation, HttpMethod } from '../../lib/contract/bundled.js';
import type { CheckModule } from '../engine/check-module.js';
import { answered, getOnlyReason } from './stateful.js';

const check = 'unsupported_method' as const;

/** Where the seed is silent on other methods, the contract's D37 decides `405` with `Allow`. */
const decision = 'D37';
const methodNotAllowed = 405;
const probed: HttpMethod[] = ['get', 'put', 'post', 'patch', 'delete'];

export const unsupportedMethodCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    const byPath = new Map<string, ContractOperation[]>();
    for (const op of ctx.operations) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
    for (const [path, covered] of byPath) {
      const owner = covered[0]!;
      if (ctx.options.readOnly) {
        ctx.recorder.skip(owner.operationId, check, getOnlyReason);
        continue;
      }
      const defined = new Set(listedMethods(ctx.contractView.operations, path));
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      const params = Object.fromEntries(names.map((name) => [name, `${ctx.runId}-absent`]));
      const concrete = path.replace(/\{([^}]+)\}/g, (_m, name: string) => params[name]!);
      // `GET /charge/payment-link` is `GET /charge/{id}` of a charge named `payment-link`: defined.
      const missing = probed.filter(
        (m) => !defined.has(m) && (m !== 'delete' || names.length > 0) && !definedElsewhere(ctx.contractView.operations, m, concrete),
      );
      if (missing.length === 0) {
        ctx.recorder.skip(owner.operationId, check, `${path} defines every method the check sends`);
        continue;
      }
      for (const method of missing) {
        const probe: ContractOperation = { ...owner, method, operationId: `${owner.operationId} (${method.toUpperCase()} ${path})` };
        const exchange = await ctx.request(probe, { pathParams: params });
        const status = exchange.response?.status;
        const allow = (exchange.response?.headers.allow ?? '')
          .split(',')
          .map((m) => m.trim().toLowerCase())
          .filter(Boolean);
        const absent = [...defined].filter((m) => !allow.includes(m));
        const where = `${method.toUpperCase()} ${path}`;
        if (status !== methodNotAllowed)
          ctx.judge(owner.operationId, check, false, `${where} ${answered(exchange)}, not ${methodNotAllowed}`, { decision, exchange });
        else if (absent.length > 0)
          ctx.judge(
            owner.operationId,
            check,
            false,
            `${where} answered ${methodNotAllowed} with \`Allow: ${exchange.response?.headers.allow ?? ''}\`, which lacks ${absent.map((m) => m.toUpperCase()).join(', ')}`,
            { decision, exchange },
          );
        else
          ctx.judge(owner.operationId, check, true, `${where} answered ${methodNotAllowed} with \`Allow: ${exchange.response?.headers.allow}\``, { exchange });
      }
    }
  },
};

/** Every method the contract defines on a path, whether or not the run covers its operation. */
function listedMethods(operations: readonly ContractOperation[], path: string): HttpMethod[] {
  return operations.filter((op) => op.path === path).map((op) => op.method);
}

/** Whether another path template of the contract defines `method` on this concrete path. */
function definedElsewhere(operations: readonly ContractOperation[], method: HttpMethod, concrete: string): boolean {
  return operations.some(
    (op) => op.method === method && new RegExp(`^${op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`).test(concrete),
  );
}

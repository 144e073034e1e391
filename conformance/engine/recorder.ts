import { checkNames, type CheckName, type CheckResult, type Finding, type Outcome } from './types.js';

/** Collects the findings of every check, per operation, and folds them into results. */
export class Recorder {
  private readonly findings = new Map<string, Finding[]>();
  private readonly skips = new Map<string, string>();
  private readonly partials = new Map<string, string[]>();

  constructor(
    private readonly onCheck?: (operationId: string, check: CheckName, outcome: Outcome) => void,
    /**
     * The decision a finding rests on however it was judged, or undefined: given under the `seed`
     * profile, a would-be failure it names a decision for is recorded as information naming it
     * (RunContext: findings about an operation the seed does not list).
     */
    private readonly restsOn?: (operationId: string, check: CheckName, exchange?: Finding['exchange']) => string | undefined,
  ) {}

  pass(operationId: string, check: CheckName, message: string, exchange?: Finding['exchange']): void {
    this.add(operationId, check, { outcome: 'pass', message, ...(exchange ? { exchange } : {}) });
  }

  fail(operationId: string, check: CheckName, message: string, exchange?: Finding['exchange']): void {
    this.add(operationId, check, { outcome: 'fail', message, ...(exchange ? { exchange } : {}) });
  }

  /** A departure from decision `decision` of the contract, reported but not failed (profile `seed`). */
  info(operationId: string, check: CheckName, message: string, decision: string | undefined, exchange?: Finding['exchange']): void {
    this.add(operationId, check, { outcome: 'info', message, ...(decision ? { decision } : {}), ...(exchange ? { exchange } : {}) });
  }

  /**
   * Records a finding. A failure the `restsOn` function names a decision for becomes information,
   * unless `always` says it fails whatever the operation rests on (a value read back that is not
   * the one written: data lost, through whichever operation it is seen).
   */
  add(operationId: string, check: CheckName, given: Finding, always = false): void {
    const decision = given.outcome === 'fail' && !always ? this.restsOn?.(operationId, check, given.exchange) : undefined;
    const finding: Finding = decision ? { ...given, outcome: 'info', decision } : given;
    const key = `${operationId}\u0000${check}`;
    const list = this.findings.get(key) ?? [];
    list.push(finding);
    this.findings.set(key, list);
    this.onCheck?.(operationId, check, finding.outcome);
  }

  /** The check could not run for this operation; the first reason given is kept. */
  skip(operationId: string, check: CheckName, reason: string): void {
    const key = `${operationId}\u0000${check}`;
    if (!this.skips.has(key)) this.skips.set(key, reason);
  }

  /**
   * Part of what the check asserts could not be tried here (unknown keys against a stateless
   * target, the later events without a sandbox control …): unless a finding failed or departs
   * from a decision, the result is a skip, "not run in full", with every such reason (which says
   * what did run). A pass resting on part of the check is never shown as ✓.
   */
  partial(operationId: string, check: CheckName, reason: string): void {
    const key = `${operationId}\u0000${check}`;
    const list = this.partials.get(key) ?? [];
    if (!list.includes(reason)) list.push(reason);
    this.partials.set(key, list);
  }

  /** One result per operation and check that found something or was skipped, in a stable order. */
  results(operationIds: readonly string[]): CheckResult[] {
    const results: CheckResult[] = [];
    for (const operationId of operationIds) {
      for (const check of checkNames) {
        const key = `${operationId}\u0000${check}`;
        const findings = this.findings.get(key);
        const partial = this.partials.get(key);
        if (findings && findings.length > 0) {
          const outcome: Outcome = findings.some((f) => f.outcome === 'fail') ? 'fail' : findings.some((f) => f.outcome === 'info') ? 'info' : 'pass';
          if (outcome === 'pass' && partial)
            results.push({ operationId, check, outcome: 'skip', findings: [], skipReason: `not run in full: ${partial.join('; ')}` });
          else results.push({ operationId, check, outcome, findings });
        } else if (partial) {
          results.push({ operationId, check, outcome: 'skip', findings: [], skipReason: this.skips.get(key) ?? `not run in full: ${partial.join('; ')}` });
        } else if (this.skips.has(key)) {
          results.push({ operationId, check, outcome: 'skip', findings: [], skipReason: this.skips.get(key)! });
        }
      }
    }
    return results;
  }
}

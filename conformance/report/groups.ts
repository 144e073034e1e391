/**
 * Identical findings, grouped: a deployment that departs from one rule departs from it on every
 * operation, often many times on each (a 400 of every invalid request sent), and a report that
 * lists each of them buries the few that differ. A group is one line with a count and the
 * operations it touched, in the terminal, the HTML page and the JUnit file alike.
 *
 * Findings that name one cause (`Finding.cause`: no webhook delivery arrived, so neither its
 * signature, its schema nor its delivery could be judged) are one group across their checks, with
 * the checks in its title.
 *
 * Two findings are the same when they have the same check, the same outcome and the same
 * message (with its decision) once what belongs to one request is taken out: the request line of
 * the finding's exchange or any other (`POST /order` → `{request}`), its URL, the operation's id, the run id
 * and the ids of records (UUIDs, ULIDs, `char_…`) become placeholders. Numbers stay: `→ 400` and
 * `→ 422` differ.
 */
import type { CheckName, CheckResult, Finding } from '../engine/types.js';

export interface GroupMember {
  result: CheckResult;
  finding: Finding;
}

export interface FindingGroup {
  /** What the findings have in common (check, outcome, normalised message and decision). */
  key: string;
  check: CheckName;
  /** The checks its findings are of, in the report's order: more than one only for findings of one cause. */
  checks: CheckName[];
  outcome: 'fail' | 'info';
  /**
   * What the group says: its first finding's message, word for word (the first example, whose
   * exchange is printed in full); the placeholders of the grouping key are never shown.
   */
  message: string;
  /** True when every finding of the group has the same message word for word. */
  sameMessage: boolean;
  decision?: string;
  /** Its findings, in the report's order. */
  members: GroupMember[];
  /** The operations it touched, in the report's order, with the number of findings on each. */
  operations: Array<{ operationId: string; count: number }>;
}

/**
 * Ids of records as deployments write them: UUIDs; upper-case base-32 strings (ULIDs and the
 * like: 16 characters or more, letters and digits both); the reference server's `char_…` (with a
 * digit: not a word).
 */
const recordIds: RegExp[] = [
  /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
  /\b(?=[0-9A-Z]*[0-9])(?=[0-9A-Z]*[A-Z])[0-9A-Z]{16,}\b/g,
  /\b[a-z]{4}_(?=[a-z0-9]*[0-9])[a-z0-9]{2,32}\b/g,
];

/** A request line in a message: a method, a space, a path. */
const requestLine = /\b(?:GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|TRACE) \/[^\s]*/g;

function replaceWord(text: string, word: string, by: string): string {
  if (word === '') return text;
  return text.replace(new RegExp(`(?<![\\w-])${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`, 'g'), by);
}

/** The message of a finding with what belongs to one request replaced by placeholders. */
export function normalisedMessage(finding: Finding, operationId: string, runId: string): string {
  let text = finding.message;
  const exchange = finding.exchange;
  if (exchange) {
    const { method, url } = exchange.request;
    text = text.split(url).join('{url}');
    let path: string | undefined;
    try {
      path = new URL(url).pathname;
    } catch {
      path = undefined;
    }
    if (path) text = text.split(`${method} ${path}`).join('{request}');
    text = replaceWord(text, exchange.operationId, '{operation}');
  }
  // Any other request line (`PUT /charge/{id}`: unsupported_method names the path's template).
  text = text.replace(requestLine, '{request}');
  text = replaceWord(text, operationId, '{operation}');
  // A run id of a few characters would be found in ordinary words.
  if (runId.length >= 6) text = text.split(runId).join('{run}');
  for (const pattern of recordIds) text = text.replace(pattern, '{id}');
  return text;
}

/** The grouping key of a finding of a result. */
export function findingKey(result: Pick<CheckResult, 'check' | 'operationId'>, finding: Finding, runId: string): string {
  const what = finding.cause ? `cause ${finding.cause} of ${result.operationId}` : result.check;
  return [what, finding.outcome, normalisedMessage(finding, result.operationId, runId), finding.decision ?? ''].join('\u0000');
}

/** The findings of `outcome` in `results`, grouped, in the order their first finding comes. */
export function groupFindings(results: readonly CheckResult[], outcome: 'fail' | 'info', runId: string): FindingGroup[] {
  const groups = new Map<string, FindingGroup>();
  for (const result of results) {
    for (const finding of result.findings) {
      if (finding.outcome !== outcome) continue;
      const key = findingKey(result, finding, runId);
      let group = groups.get(key);
      if (!group) {
        group = {
          key,
          check: result.check,
          checks: [],
          outcome,
          message: finding.message,
          sameMessage: true,
          ...(finding.decision ? { decision: finding.decision } : {}),
          members: [],
          operations: [],
        };
        groups.set(key, group);
      }
      if (finding.message !== group.message && group.sameMessage) {
        group.sameMessage = false;
      }
      group.members.push({ result, finding });
      if (!group.checks.includes(result.check)) group.checks.push(result.check);
      const last = group.operations.find((o) => o.operationId === result.operationId);
      if (last) last.count += 1;
      else group.operations.push({ operationId: result.operationId, count: 1 });
    }
  }
  return [...groups.values()];
}

/**
 * Who a group is about: `listClients › tenant_isolation` on one operation, else
 * `content_type_conformance on 8 operations (createPaymentLink ×63, createOrder ×58, …)`; with
 * ` × n` after the check when it holds more than one finding. A group of one cause names its
 * checks: `createWebhook › webhook_signature, webhook_schema, webhook_delivery × 3`.
 */
export function groupTitle(group: FindingGroup): string {
  const n = group.members.length;
  const times = n > 1 ? ` × ${n}` : '';
  const checks = (group.checks ?? []).length > 1 ? group.checks.join(', ') : group.check;
  const [only, ...others] = group.operations;
  if (only && others.length === 0) return `${only.operationId} › ${checks}${times}`;
  const listed = group.operations.map((o) => (o.count > 1 ? `${o.operationId} ×${o.count}` : o.operationId)).join(', ');
  return `${checks}${times} on ${group.operations.length} operations (${listed})`;
}

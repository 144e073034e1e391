/**
 * The terminal matrix of a run: operations (rows) × checks (columns, three-letter headers
 * explained in a legend), one glyph per cell, then the totals, profile, run id and duration.
 */
import { checkNames, type CheckName, type CheckResult, type Outcome, type RunReport } from '../engine/types.js';

/** Column headers: three characters at most, explained in the legend. */
export const shortNames: Record<CheckName, string> = {
  not_a_server_error: '5xx',
  status_code_conformance: 'sta',
  content_type_conformance: 'cty',
  response_schema_conformance: 'sch',
  response_headers_conformance: 'hdr',
  ignored_auth: 'aut',
  negative_data_rejection: 'neg',
  positive_data_acceptance: 'pos',
  ensure_resource_availability: 'ava',
  idempotency_replay: 'idm',
  tenant_isolation: 'ten',
  brcode_well_formed: 'brc',
  qr_matches_brcode: 'qr',
  total_in_cents: 'tot',
  use_after_free: 'uaf',
  generated_values_kept: 'gen',
  paging_walked: 'pag',
  unsupported_method: '405',
  bounded_input: 'big',
  webhook_url_policy: 'url',
  auth_flood_limited: 'flo',
  webhook_signature: 'wsg',
  webhook_schema: 'wsc',
  webhook_delivery: 'wdl',
  response_time: 'ms',
};

export const glyphs: Record<Outcome | 'none', string> = { pass: '✓', fail: '✗', skip: '–', info: 'i', none: '·' };

/**
 * What each mark means, for the legends of the terminal and the HTML page (each under 80
 * characters with its mark). `·` is a cell without a result: the check recorded nothing for the
 * operation, neither a finding nor a reason to skip. That is a check that does not apply to it
 * (brcode_well_formed on listClients; unsupported_method is shown on the first operation of its
 * path), and also a response check that had no answer of the operation to judge (none was sent
 * under --read-only; a header check after an undocumented status).
 */
export const markMeanings: Record<Outcome | 'none', string> = {
  pass: 'passed: the whole check ran, and the deployment held to it',
  fail: 'failed: listed under Failures',
  info: 'info: departs only from a decision of the contract, which profile seed allows',
  skip: 'skipped: not run, or not in full, for the reason listed under Skipped',
  none: 'no result: the check does not apply to this operation, or had nothing to judge',
};

const colours: Record<Outcome | 'none', string> = { pass: '32', fail: '31;1', skip: '2', info: '36', none: '2' };

export interface MatrixOptions {
  /** ANSI colours (the CLI turns them on when stdout is a TTY). */
  color?: boolean;
}

export type Totals = Record<Outcome, number> & { checks: number };

export function totals(results: readonly CheckResult[]): Totals {
  const t: Totals = { pass: 0, fail: 0, info: 0, skip: 0, checks: results.length };
  for (const r of results) t[r.outcome] += 1;
  return t;
}

/**
 * The run's one total, which the terminal, the HTML page and (as its attributes) the JUnit file
 * all give: its unit is the check on one operation, a cell of the matrix with a result. Findings
 * (several per check) and vitest's tests (info counted as passed) are not totals of their own.
 */
export function totalLine(report: Pick<RunReport, 'results' | 'operations'>): string {
  const t = totals(report.results);
  return `${t.pass} passed, ${t.fail} failed, ${t.info} info, ${t.skip} skipped (${counted(t.checks, 'check')} on ${counted(operationsOf(report).length, 'operation')})`;
}

/** `1 check`, `15 checks`. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/** The result of one operation and check, if the run produced one. */
export function resultIndex(report: RunReport): (operationId: string, check: CheckName) => CheckResult | undefined {
  const byKey = new Map(report.results.map((r) => [`${r.operationId}\u0000${r.check}`, r]));
  return (operationId, check) => byKey.get(`${operationId}\u0000${check}`);
}

/** Operations of the report in its order, plus any that only appear in results. */
export function operationsOf(report: Pick<RunReport, 'results' | 'operations'>): string[] {
  return [...new Set([...report.operations, ...report.results.map((r) => r.operationId)])];
}

export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** Pads by visible width (the glyphs are one column each). */
function pad(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - [...text].length));
}

/** The width of a terminal the matrix must fit. */
const MAX_WIDTH = 80;

/** `items` in as few blocks of at most `size` as needed, of (nearly) equal length. */
function blocks<T>(items: readonly T[], size: number): T[][] {
  const count = Math.ceil(items.length / Math.max(1, size));
  const each = Math.ceil(items.length / count);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += each) out.push(items.slice(i, i + each));
  return out;
}

export function renderMatrix(report: RunReport, options: MatrixOptions = {}): string {
  const paint = (kind: Outcome | 'none', text: string) => (options.color ? `\x1b[${colours[kind]}m${text}\x1b[0m` : text);
  const bold = (text: string) => (options.color ? `\x1b[1m${text}\x1b[0m` : text);
  const find = resultIndex(report);
  const operations = operationsOf(report);
  const labelWidth = Math.max('operation'.length, ...operations.map((op) => op.length));
  const shortWidth = Math.max(...checkNames.map((c) => shortNames[c].length));
  const cell = shortWidth + 1;

  const lines: string[] = [];
  // More columns than fit beside the operation names: the matrix goes on below, a block of columns at a time.
  for (const columns of blocks(checkNames, Math.floor((MAX_WIDTH - labelWidth - 1 + cell - shortWidth) / cell))) {
    lines.push(
      bold(
        pad('operation', labelWidth) +
          ' ' +
          columns
            .map((c) => pad(shortNames[c], cell))
            .join('')
            .trimEnd(),
      ),
    );
    for (const op of operations) {
      let row = `${pad(op, labelWidth)} `;
      for (const check of columns) {
        const kind = find(op, check)?.outcome ?? 'none';
        row += paint(kind, glyphs[kind]) + ' '.repeat(cell - 1);
      }
      lines.push(row.trimEnd());
    }
    lines.push('');
  }
  const legend = checkNames.map((c) => `${pad(shortNames[c], cell - 1)} ${c}`);
  const half = Math.ceil(legend.length / 2);
  const legendWidth = Math.max(...legend.slice(0, half).map((l) => l.length)) + 3;
  for (let i = 0; i < half; i++) lines.push(`${pad(legend[i]!, legendWidth)}${legend[i + half] ?? ''}`.trimEnd());
  for (const kind of ['pass', 'fail', 'info', 'skip', 'none'] as const) lines.push(`${paint(kind, glyphs[kind])} ${markMeanings[kind]}`);
  lines.push('');
  const t = totals(report.results);
  lines.push(`${bold('Checks')}: ${paint(t.fail > 0 ? 'fail' : 'pass', totalLine(report))}`);
  lines.push(`Profile ${report.profile} · run id ${report.runId} · ${formatDuration(report.durationMs)}`);
  lines.push(`Target ${report.target.baseUrl}${report.target.baseUrlAlt !== report.target.baseUrl ? ` + ${report.target.baseUrlAlt}` : ''}`);
  return lines.join('\n');
}

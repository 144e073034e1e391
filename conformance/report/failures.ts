/**
 * The text form of findings: a finding's HTTP exchange (request and response, key masked,
 * bodies cut to about 2 KB, then a `curl` line that sends the request again, report/curl.ts) and
 * the sections the CLI prints after the matrix, identical findings grouped (report/groups.ts). Also the
 * last line of defence for the keys: `redactReport` replaces any full key left anywhere in a
 * report (a response echoing it, say) before anything is printed or written.
 */
import { maskKey } from '../engine/http.js';
import type { CheckResult, Exchange, Finding, RunReport } from '../engine/types.js';
import { curlCommand } from './curl.js';
import { type FindingGroup, groupFindings, groupTitle } from './groups.js';

/** Largest body printed, in characters. */
export const BODY_LIMIT = 2048;
/** A string inside a JSON body longer than this (a QR image's data URI) is shortened. */
const LONG_STRING = 300;

export interface ExchangeTextOptions {
  /** Characters of each body kept; default `BODY_LIMIT`. */
  bodyLimit?: number;
  /** Prefix of every line. */
  indent?: string;
  /** End with the `curl` line that sends the request again; default true. */
  curl?: boolean;
}

/**
 * Text a target sent, safe on a terminal: control characters other than newline and tab (an
 * escape sequence, a bell, a carriage return that would overwrite the line) are shown as
 * `\uXXXX` instead of acting.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A body as printed: JSON pretty-printed when that fits the limit, else compact (more of it
 * fits), long strings inside shortened either way; then cut at the limit.
 */
export function formatBody(body: string, limit = BODY_LIMIT): string {
  let text = body;
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === 'object') {
      const shorten = (_key: string, value: unknown) =>
        typeof value === 'string' && value.length > LONG_STRING ? `${value.slice(0, LONG_STRING)}…(${value.length - LONG_STRING} more characters)` : value;
      const pretty = JSON.stringify(parsed, shorten, 2);
      text = pretty.length <= limit ? pretty : JSON.stringify(parsed, shorten);
    }
  } catch {
    // Not JSON: printed as it came.
  }
  text = printable(text);
  return text.length > limit ? `${text.slice(0, limit)}\n… (${text.length - limit} more characters)` : text;
}

/** The request and the response (or why none came) of one exchange, as lines of text. */
export function formatExchange(exchange: Exchange, options: ExchangeTextOptions = {}): string {
  const limit = options.bodyLimit ?? BODY_LIMIT;
  const lines: string[] = [];
  const { request, response } = exchange;
  lines.push(`→ ${request.method} ${printable(request.url)}`);
  for (const [name, value] of Object.entries(request.headers)) lines.push(`  ${printable(name)}: ${printable(value)}`);
  if (request.body !== undefined) lines.push(...indentLines(formatBody(request.body, limit), '  '));
  if (response) {
    lines.push(`← ${response.status} (${Math.round(exchange.ms)} ms)`);
    for (const [name, value] of Object.entries(response.headers)) lines.push(`  ${printable(name)}: ${printable(value)}`);
    if (response.body !== '') lines.push(...indentLines(formatBody(response.body, limit), '  '));
  } else {
    lines.push(`← no answer: ${printable(exchange.error ?? 'unknown error')} (${Math.round(exchange.ms)} ms)`);
  }
  if (options.curl ?? true) lines.push(curlCommand(request));
  return indentLines(lines.join('\n'), options.indent ?? '').join('\n');
}

function indentLines(text: string, indent: string): string[] {
  return text.split('\n').map((line) => `${indent}${line}`);
}

/** ` (departs from Dnn)` after a finding's message, unless the message names its decision already. */
export function decisionNote(finding: Pick<Finding, 'message' | 'decision'>): string {
  return finding.decision && !finding.message.includes(finding.decision) ? ` (departs from ${finding.decision})` : '';
}

/**
 * The exchanges a finding rests on, as text: its detail (which items of a list), then each
 * earlier exchange it rests on (`related`: the request that wrote the value, under
 * `written by <operation>:`), then its own (under `read by <operation>:` when there were earlier
 * ones). An exchange already in `printed` (shown in full earlier in the same block of the
 * report) is one line saying so, with its curl line; every exchange printed is added to it.
 */
export function formatEvidence(finding: Finding, indent = '', printed: Set<Exchange> = new Set()): string {
  const lines: string[] = [];
  if (finding.detail) lines.push(`${indent}where: ${printable(finding.detail)}`);
  const related = finding.related ?? [];
  for (const exchange of related) lines.push(`${indent}written by ${oneLine(exchange.operationId)}:`, exchangeOnce(exchange, indent, printed));
  if (finding.exchange) {
    if (related.length > 0) lines.push(`${indent}read by ${oneLine(finding.exchange.operationId)}:`);
    lines.push(exchangeOnce(finding.exchange, indent, printed));
  }
  return lines.join('\n');
}

/** An exchange in full, or, when `printed` holds it already, one line pointing back to it and its curl line. */
function exchangeOnce(exchange: Exchange, indent: string, printed: Set<Exchange>): string {
  if (!printed.has(exchange)) {
    printed.add(exchange);
    return formatExchange(exchange, { indent });
  }
  const answer = exchange.response ? `← ${exchange.response.status}` : '← no answer';
  return [
    `${indent}→ ${exchange.request.method} ${printable(exchange.request.url)} ${answer}: the exchange printed in full above`,
    `${indent}${curlCommand(exchange.request)}`,
  ].join('\n');
}

/** One finding as text: its message (and decision), then the exchanges it rests on. */
export function formatFinding(finding: Finding, indent = ''): string {
  const head = `${indent}${printable(finding.message)}${decisionNote(finding)}`;
  const evidence = formatEvidence(finding, `${indent}  `);
  return evidence ? `${head}\n${evidence}` : head;
}

/** The title of a result: `<operationId> › <check>`, as vitest names its test. */
export function resultTitle(result: Pick<CheckResult, 'operationId' | 'check'>): string {
  return `${result.operationId} › ${result.check}`;
}

/** Text on one line, for a title or a shell comment: a newline in it would end the comment. */
export function oneLine(text: string): string {
  return printable(text).replace(/\r?\n/g, ' ↵ ').replace(/\t/g, ' ');
}

/** The requests a group shows (its first finding's, then the others' curl lines): the rest are counted, and in the HAR. */
export const maxRequestsPerGroup = 6;

/** The longest line the terminal shows of a finding; a longer one is cut, saying where it is whole. */
export const maxTerminalLine = 800;

/** A line cut at `maxTerminalLine` characters, saying how much was cut and where it is whole. */
export function capLine(line: string): string {
  if (line.length <= maxTerminalLine) return line;
  return `${line.slice(0, maxTerminalLine)}… [${line.length - maxTerminalLine} more characters: whole in the HTML report and the HAR file]`;
}

/**
 * What a group rests on: the exchanges of its first finding that has one (formatEvidence: the
 * requests that wrote a value, then the one that read it, each with its curl line), then for
 * each other finding of the group the curl lines of its requests, under a `# operation` comment
 * (with the finding's own message when the group's differ, and its detail): pasted into a shell,
 * they send each again. `printed`: the exchanges already printed in full in the same block (the
 * Failures section, one JUnit failure), which are not printed again.
 */
export function formatGroupExchanges(group: FindingGroup, indent = '', printed: Set<Exchange> = new Set()): string {
  const withExchange = group.members.filter((m) => m.finding.exchange);
  const [shown, ...others] = withExchange;
  if (!shown) return `${indent}(no exchange recorded)`;
  const lines = [formatEvidence(shown.finding, indent, printed)];
  const requests = (finding: Finding) => [...(finding.related ?? []), finding.exchange!].map((e) => curlCommand(e.request));
  // A request sent twice alike (a read by the positive check and by a domain check) is written once.
  const written = new Set<string>(requests(shown.finding));
  let more = 0;
  for (const { result, finding } of others) {
    const curls = requests(finding).filter((curl) => !written.has(curl));
    if (curls.length === 0) continue;
    // One cause, one finding: a systemic fault repeats on every request; a few show it, the HAR holds every one.
    if (written.size >= maxRequestsPerGroup) {
      more += 1;
      continue;
    }
    for (const curl of curls) written.add(curl);
    const what = group.sameMessage ? '' : `: ${oneLine(finding.message)}`;
    const where = finding.detail ? ` (${oneLine(finding.detail)})` : '';
    lines.push(`${indent}# ${oneLine(result.operationId)}${what}${where}`, ...curls.map((curl) => `${indent}${curl}`));
  }
  if (more > 0)
    lines.push(`${indent}# and ${more} more finding${more === 1 ? '' : 's'} like ${more === 1 ? 'it' : 'them'}: every request is in the HAR file (--har)`);
  const without = group.members.length - withExchange.length;
  if (without > 0) lines.push(`${indent}# and ${without} finding${without === 1 ? '' : 's'} with no exchange recorded`);
  return lines.join('\n');
}

/** A group of failed findings: who, what, then its exchanges (those not in `printed` already). */
export function formatFailedGroup(group: FindingGroup, printed: Set<Exchange> = new Set()): string {
  return [`✗ ${groupTitle(group)}`, `  ${printable(group.message)}${decisionNote(group)}`, formatGroupExchanges(group, '    ', printed)].join('\n');
}

/** `(N findings, M distinct)`, or `(1 finding)`. */
function counted(groups: readonly FindingGroup[]): string {
  const findings = groups.reduce((sum, g) => sum + g.members.length, 0);
  return findings === groups.length ? `${findings} finding${findings === 1 ? '' : 's'}` : `${findings} findings, ${groups.length} distinct`;
}

/**
 * How many groups of info findings the terminal shows before it leaves the rest to the HTML and
 * JUnit reports: three per operation the run reports on (a foreign-shaped deployment departs from
 * about two decisions per operation, grouped), and never fewer than 40. Set from the contract's
 * size, so a new operation does not push a deployment's departures off the screen.
 */
export function infoLineCap(operations: number): number {
  return Math.max(40, 3 * operations);
}

/**
 * What the CLI prints after the matrix: the failures, identical ones grouped, each with its
 * exchange and a curl line per request; the info findings grouped, one line each (their
 * exchanges are in the HTML and JUnit reports); the skip reasons, counted.
 */
export function formatFindings(report: RunReport, options: { maxInfoLines?: number } = {}): string {
  const sections: string[] = [];
  const failedChecks = report.results.filter((r) => r.outcome === 'fail').length;
  const failures = groupFindings(report.results, 'fail', report.runId);
  // Two findings on one exchange (two fields of one read) print it in full once.
  const printed = new Set<Exchange>();
  if (failures.length > 0)
    sections.push(
      [
        `Failures (${failedChecks} check${failedChecks === 1 ? '' : 's'}; ${counted(failures)})`,
        '',
        ...failures.map((g) => `${formatFailedGroup(g, printed)}\n`),
      ]
        .join('\n')
        .split('\n')
        .map(capLine)
        .join('\n')
        .trimEnd(),
    );

  const infos = groupFindings(report.results, 'info', report.runId);
  if (infos.length > 0) {
    const max = options.maxInfoLines ?? infoLineCap(report.operations.length);
    const lines = infos.slice(0, max).map((g) => `i ${groupTitle(g)}: ${printable(g.message)}${decisionNote(g)}`);
    if (infos.length > max) lines.push(`… ${infos.length - max} more in the HTML or JUnit report`);
    sections.push([`Departures from the contract's decisions, not failures under profile ${report.profile} (${counted(infos)})`, ...lines].join('\n'));
  }

  const reasons = new Map<string, number>();
  for (const r of report.results)
    if (r.outcome === 'skip') reasons.set(r.skipReason ?? 'no reason given', (reasons.get(r.skipReason ?? 'no reason given') ?? 0) + 1);
  if (reasons.size > 0) sections.push(['Skipped', ...[...reasons].map(([reason, n]) => `– ${n} × ${printable(reason)}`)].join('\n'));
  return sections.join('\n\n');
}

/** Matches the key, or any start of it at least 12 characters long (all of a shorter key). */
function keyStart(key: string): string {
  const escapeChar = (c: string) => c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const head = Math.min(12, key.length);
  let tail = '';
  for (const c of [...key.slice(head)].reverse()) tail = `(?:${escapeChar(c)}${tail})?`;
  return [...key.slice(0, head)].map(escapeChar).join('') + tail;
}

/**
 * The report with every occurrence of the given keys replaced by their masked form, in every
 * string it holds. The engine already masks the X-API-KEY header; this also catches a key a
 * target echoes in a body or a header. Keys shorter than 8 characters (`any` for the mock)
 * are left alone: they guard nothing, and replacing them would maul ordinary words.
 */
export function redactReport<T>(value: T, secrets: ReadonlyArray<string | undefined>): T {
  const keys = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 8).sort((a, b) => b.length - a.length);
  if (keys.length === 0) return value;
  // A whole key, or its start from 12 characters on (an answer quoted cut short, an echo cut at a limit).
  const patterns = keys.map((key) => ({ key, pattern: new RegExp(keyStart(key), 'g') }));
  const scrub = (text: string) => patterns.reduce((acc, { key, pattern }) => acc.replace(pattern, maskKey(key)), text);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [scrub(k), walk(x)]));
    return v;
  };
  return walk(value) as T;
}

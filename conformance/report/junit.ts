/**
 * JUnit XML of a run, for CI dashboards: one <testsuite> per operation, one <testcase> per check
 * that produced a result (the run's total in checks, as on the terminal and the HTML page). A run
 * that stopped before its end (the target stopped answering, Ctrl-C) has one testcase more, first,
 * in a suite `run`: an <error> saying why, counted in `tests` and `errors`.
 * fail → <failure> (each failed finding with its exchange and curl line), skip → <skipped
 * message>, info → <system-out> with the info findings; a pass is an empty testcase. Identical
 * findings (report/groups.ts) are written once per testcase with their count, and a finding that
 * other operations share says so, naming them: a CI page listing 30 failed testcases then shows
 * at a glance that they are one fault.
 */
import type { CheckResult, Exchange, RunReport } from '../engine/types.js';
import { decisionNote, formatGroupExchanges, printable } from './failures.js';
import { type FindingGroup, groupFindings } from './groups.js';
import { operationsOf, totals } from './matrix.js';

/**
 * Text fit for XML 1.0: characters XML cannot carry at all (control characters, lone
 * surrogates, U+FFFE/U+FFFF) become U+FFFD, then the markup characters are escaped.
 */
export function xmlEscape(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Attribute values keep their line breaks as character references (a parser would fold raw ones). */
function attr(text: string): string {
  return xmlEscape(text).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3);
}

/** Time of a result: the time of the distinct exchanges its findings rest on. */
function resultMs(result: CheckResult): number {
  const seen = new Set<Exchange>();
  for (const f of result.findings) if (f.exchange) seen.add(f.exchange);
  return [...seen].reduce((sum, e) => sum + e.ms, 0);
}

export function renderJunit(report: RunReport): string {
  const all = totals(report.results);
  const groups = new Map(
    [...groupFindings(report.results, 'fail', report.runId), ...groupFindings(report.results, 'info', report.runId)].map((g) => [g.key, g]),
  );
  const testcase = (result: CheckResult) => testcaseOf(result, report.runId, groups);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  // A run that stopped before its end is one error more, in a suite of its own: CI shows it red with the reason.
  const stopped = report.stopped ? 1 : 0;
  out.push(
    `<testsuites name="conformance" tests="${all.checks + stopped}" failures="${all.fail}" errors="${stopped}" skipped="${all.skip}" time="${seconds(report.durationMs)}" timestamp="${attr(report.startedAt)}">`,
  );
  if (report.stopped) {
    const left = report.leftBehind?.length ? `\nRecords it made and could not delete:\n${report.leftBehind.join('\n')}` : '';
    out.push(
      `  <testsuite name="run" tests="1" failures="0" errors="1" skipped="0" time="${seconds(report.durationMs)}" timestamp="${attr(report.startedAt)}">`,
      `    <testcase name="the run ran to its end" classname="conformance.run" time="${seconds(report.durationMs)}">`,
      `      <error message="${attr(`the run stopped before its end: ${report.stopped}`)}" type="stopped">${xmlEscape(`The run stopped before its end: ${report.stopped}. The other testcases are what it had found by then; the checks it had not finished are skipped.${left}`)}</error>`,
      '    </testcase>',
      '  </testsuite>',
    );
  }
  for (const operationId of operationsOf(report)) {
    const results = report.results.filter((r) => r.operationId === operationId);
    const t = totals(results);
    out.push(
      `  <testsuite name="${attr(operationId)}" tests="${t.checks}" failures="${t.fail}" errors="0" skipped="${t.skip}" time="${seconds(results.reduce((s, r) => s + resultMs(r), 0))}" timestamp="${attr(report.startedAt)}">`,
    );
    out.push('    <properties>');
    for (const [name, value] of [
      ['profile', report.profile],
      ['runId', report.runId],
      ['baseUrl', report.target.baseUrl],
      ['baseUrlAlt', report.target.baseUrlAlt],
      ...timingProperties(report, operationId),
    ] as const) {
      out.push(`      <property name="${name}" value="${attr(value)}"/>`);
    }
    out.push('    </properties>');
    for (const result of results) out.push(...testcase(result));
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return `${out.join('\n')}\n`;
}

/** The operation's response times as properties (`responseTime.p50Ms` …), when it had answers. */
function timingProperties(report: RunReport, operationId: string): Array<readonly [string, string]> {
  const t = report.timings?.find((x) => x.operationId === operationId);
  if (!t) return [];
  return [
    ['responseTime.count', String(t.count)],
    ['responseTime.p50Ms', String(Math.round(t.p50))],
    ['responseTime.p95Ms', String(Math.round(t.p95))],
    ['responseTime.maxMs', String(Math.round(t.max))],
  ];
}

/** The other operations with the same finding, as a sentence; empty when there are none. */
function elsewhere(group: FindingGroup, operationId: string): string {
  const others = group.operations.filter((o) => o.operationId !== operationId).map((o) => o.operationId);
  return others.length === 0 ? '' : `the same finding on ${others.length} more operation${others.length === 1 ? '' : 's'}: ${others.join(', ')}`;
}

/** One finding of a testcase (with the count of its like on this operation), its exchanges, and where else it was found. */
function groupText(local: FindingGroup, all: ReadonlyMap<string, FindingGroup>, operationId: string, prefix: string, printed: Set<Exchange>): string {
  const n = local.members.length;
  const also = elsewhere(all.get(local.key) ?? local, operationId);
  return [
    `${prefix}${printable(local.message)}${decisionNote(local)}${n > 1 ? ` (× ${n})` : ''}`,
    formatGroupExchanges(local, '  ', printed),
    ...(also ? [`And ${also}.`] : []),
  ].join('\n');
}

function testcaseOf(result: CheckResult, runId: string, all: ReadonlyMap<string, FindingGroup>): string[] {
  const open = `    <testcase name="${attr(result.check)}" classname="conformance.${attr(result.operationId)}" time="${seconds(resultMs(result))}"`;
  switch (result.outcome) {
    case 'pass':
      return [`${open}/>`];
    case 'skip':
      return [`${open}>`, `      <skipped message="${attr(result.skipReason ?? 'skipped')}"/>`, '    </testcase>'];
    case 'info': {
      // An exchange two findings of the testcase rest on is printed in full once.
      const printed = new Set<Exchange>();
      const text = groupFindings([result], 'info', runId).map((g) => groupText(g, all, result.operationId, 'info: ', printed));
      return [`${open}>`, `      <system-out>${xmlEscape(text.join('\n\n'))}</system-out>`, '    </testcase>'];
    }
    case 'fail': {
      const local = groupFindings([result], 'fail', runId);
      const failed = local.reduce((sum, g) => sum + g.members.length, 0);
      const first = local[0];
      const also = first ? elsewhere(all.get(first.key) ?? first, result.operationId) : '';
      const printed = new Set<Exchange>();
      const message = `${failed === 1 ? '' : `${failed} findings failed: `}${first?.message ?? ''}${also ? ` (${also})` : ''}`;
      return [
        `${open}>`,
        `      <failure message="${attr(message)}" type="${attr(result.check)}">${xmlEscape(local.map((g) => groupText(g, all, result.operationId, '', printed)).join('\n\n'))}</failure>`,
        '    </testcase>',
      ];
    }
  }
}

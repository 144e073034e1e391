/**
 * One self-contained HTML file of a run: inline CSS, no script, nothing loaded from anywhere
 * (its Content-Security-Policy forbids it). The matrix with its legend, the totals, then one
 * collapsible <details> per group of identical failed or info findings (report/groups.ts): the
 * first exchange with its curl line, then each other finding of the group, then the skip reasons.
 */
import { checkNames, type CheckResult, type Finding, type Outcome, type RunReport } from '../engine/types.js';
import { decisionNote, formatEvidence, maxRequestsPerGroup, oneLine, printable, resultTitle } from './failures.js';
import { type FindingGroup, groupFindings, groupTitle } from './groups.js';
import { counted, formatDuration, glyphs, markMeanings, operationsOf, resultIndex, shortNames, totalLine, totals } from './matrix.js';

export function htmlEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

const css = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2rem; color: #1d2330; }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; }
h2 { font-size: 1.1rem; margin: 2rem 0 .6rem; }
.meta { color: #5b6475; margin: 0 0 1rem; }
table.matrix { border-collapse: collapse; }
.matrix th, .matrix td { border: 1px solid #d8dce4; padding: .25rem .45rem; text-align: center; }
.matrix th.op, .matrix td.op { text-align: left; font-family: ui-monospace, monospace; }
.matrix thead th { font-weight: 600; background: #f3f5f9; font-family: ui-monospace, monospace; }
.matrix a { color: inherit; text-decoration: none; display: block; }
.pass { color: #1c7c3c; } .fail { color: #fff; background: #c62828; font-weight: 700; }
.info { color: #0b5c8a; background: #e3f1fa; } .skip, .none { color: #9aa2b1; }
.totals { display: inline-block; padding: .2rem .5rem; }
.stopped { border-left: 4px solid #c62828; padding: .3rem .6rem; background: #fdecea; }
details { border: 1px solid #d8dce4; border-radius: 4px; margin: .4rem 0; padding: .3rem .6rem; }
details.fail { border-left: 4px solid #c62828; background: none; color: inherit; font-weight: normal; }
details.info { border-left: 4px solid #0b5c8a; background: none; color: inherit; }
summary { cursor: pointer; }
summary code { font-weight: 600; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; font-size: 12px; }
dl.legend { display: grid; grid-template-columns: max-content 1fr; gap: 0 .8rem; font-size: 12px; }
dl.legend dt { font-family: ui-monospace, monospace; font-weight: 600; }
dl.legend dd { margin: 0; }
dl.marks { margin-top: .6rem; font-size: 13px; }
details.more, details.more details { border: none; padding: .1rem 0; }
`;

function cell(result: CheckResult | undefined, anchors: ReadonlyMap<CheckResult, string>): string {
  const kind: Outcome | 'none' = result?.outcome ?? 'none';
  const title = result
    ? result.outcome === 'skip'
      ? `skipped: ${result.skipReason ?? ''}`
      : `${result.outcome}: ${result.findings.length} finding(s)`
    : markMeanings.none;
  // A cell with failed or info findings leads to the first group holding one of them, below the matrix.
  const anchor = result && (kind === 'fail' || kind === 'info') ? anchors.get(result) : undefined;
  const glyph = anchor ? `<a href="#${anchor}">${glyphs[kind]}</a>` : glyphs[kind];
  return `<td class="${kind}" title="${htmlEscape(title)}">${glyph}</td>`;
}

/** What a finding rests on: its detail, the requests that wrote what it read, its own exchange, each with its curl line. */
function evidence(finding: Finding): string {
  const text = formatEvidence(finding);
  return text ? `<pre>${htmlEscape(text)}</pre>` : '<p>No exchange recorded.</p>';
}

/** One finding of a group past its first: who, what (when the group's messages differ), its curl line and exchange. */
function memberDetails(group: FindingGroup, member: FindingGroup['members'][number]): string {
  const exchange = member.finding.exchange;
  const what = group.sameMessage ? '' : ` — ${htmlEscape(oneLine(member.finding.message))}`;
  const request = exchange ? ` · ${htmlEscape(`${exchange.request.method} ${printable(exchange.request.url)}`)}` : '';
  const body = evidence(member.finding);
  return `<details><summary><code>${htmlEscape(member.result.operationId)}</code>${request}${what}</summary>${body}</details>`;
}

function groupDetails(group: FindingGroup, id: string): string {
  const note = decisionNote(group);
  const decision = note ? ` <em>${htmlEscape(note.trim())}</em>` : '';
  const [first, ...others] = group.members;
  const exchange = first ? evidence(first.finding) : '<p>No exchange recorded.</p>';
  // One cause, one finding: a few members in full, then one line each for some more, the rest
  // counted (every request is in the HAR), so a fault on every request is not a megabyte page.
  const full = others.slice(0, maxRequestsPerGroup - 1);
  const listed = others.slice(full.length, full.length + 50);
  const unlisted = others.length - full.length - listed.length;
  const line = (m: FindingGroup['members'][number]) => {
    const e = m.finding.exchange;
    return `<li><code>${htmlEscape(m.result.operationId)}</code>${e ? ` · ${htmlEscape(`${e.request.method} ${printable(e.request.url)}`)}` : ''}</li>`;
  };
  const rest =
    (listed.length ? `<ul>${listed.map(line).join('')}</ul>` : '') +
    (unlisted > 0 ? `<p>and ${unlisted} more like them: every request is in the HAR file (<code>--har</code>).</p>` : '');
  const more = others.length
    ? `<details class="more"><summary>the ${others.length} other finding${others.length === 1 ? '' : 's'} of this group</summary>${full.map((m) => memberDetails(group, m)).join('')}${rest}</details>`
    : '';
  return `<details class="${group.outcome}" id="${id}"><summary>${glyphs[group.outcome]} <code>${htmlEscape(groupTitle(group))}</code> — ${htmlEscape(printable(group.message))}${decision}</summary>${exchange}${more}</details>`;
}

/** Why the run stopped before its end, and what it could not delete, above everything else; empty for a run that ended. */
function stoppedNote(report: RunReport): string {
  const stopped = report.stopped
    ? `<p class="stopped"><strong>The run stopped before its end</strong>: ${htmlEscape(printable(report.stopped))}. What follows is what it had found by then; the checks it had not finished are skipped (not run, or not in full).</p>\n`
    : '';
  const left = report.leftBehind?.length
    ? `<p class="stopped"><strong>Records the run made and could not delete</strong> (send each with the run's key but where it says otherwise):</p>\n<pre>${htmlEscape(report.leftBehind.join('\n'))}</pre>\n`
    : '';
  return stopped + left;
}

/** Per operation: how many answers, p50, p95 and the slowest (report/timings.ts). */
function timingsTable(report: RunReport): string {
  const timings = report.timings ?? [];
  if (timings.length === 0) return '';
  const ms = (n: number) => `${Math.round(n)} ms`;
  const rows = timings
    .map((t) => `<tr><th>${htmlEscape(t.operationId)}</th><td>${t.count}</td><td>${ms(t.p50)}</td><td>${ms(t.p95)}</td><td>${ms(t.max)}</td></tr>`)
    .join('');
  return `<h2>Response times</h2>\n<table class="timings"><thead><tr><th>operation</th><th>answers</th><th>p50</th><th>p95</th><th>max</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function renderHtml(report: RunReport): string {
  const find = resultIndex(report);
  const operations = operationsOf(report);
  const t = totals(report.results);
  const title = `Conformance run ${report.runId}`;

  const groups = { fail: groupFindings(report.results, 'fail', report.runId), info: groupFindings(report.results, 'info', report.runId) };
  const anchors = new Map<CheckResult, string>();
  for (const outcome of ['fail', 'info'] as const)
    groups[outcome].forEach((group, i) => {
      for (const { result } of group.members) if (result.outcome === outcome && !anchors.has(result)) anchors.set(result, `${outcome}-${i + 1}`);
    });

  const head = `<tr><th class="op">operation</th>${checkNames.map((c) => `<th title="${c}">${htmlEscape(shortNames[c])}</th>`).join('')}</tr>`;
  const rows = operations.map((op) => `<tr><td class="op">${htmlEscape(op)}</td>${checkNames.map((c) => cell(find(op, c), anchors)).join('')}</tr>`).join('\n');

  const section = (heading: string, outcome: 'fail' | 'info') => {
    const items = groups[outcome];
    const findings = items.reduce((sum, g) => sum + g.members.length, 0);
    const distinct = findings === items.length ? '' : `, ${items.length} distinct`;
    return items.length
      ? `<h2>${heading} (${findings} finding${findings === 1 ? '' : 's'}${distinct})</h2>\n${items.map((g, i) => groupDetails(g, `${outcome}-${i + 1}`)).join('\n')}`
      : '';
  };
  const reasons = new Map<string, string[]>();
  for (const r of report.results)
    if (r.outcome === 'skip') reasons.set(r.skipReason ?? 'no reason given', [...(reasons.get(r.skipReason ?? 'no reason given') ?? []), resultTitle(r)]);
  const skipped = reasons.size
    ? `<h2>Skipped (${t.skip})</h2>\n<ul>${[...reasons].map(([reason, titles]) => `<li>${htmlEscape(reason)} — ${counted(titles.length, 'check')}<details><summary>which</summary><pre>${htmlEscape(titles.join('\n'))}</pre></details></li>`).join('')}</ul>`
    : '';

  const target = report.target.baseUrlAlt !== report.target.baseUrl ? `${report.target.baseUrl} + ${report.target.baseUrlAlt}` : report.target.baseUrl;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${htmlEscape(title)}</title>
<style>${css}</style>
</head>
<body>
<h1>${htmlEscape(title)}</h1>
<p class="meta">Target <code>${htmlEscape(target)}</code> · profile <strong>${htmlEscape(report.profile)}</strong> · started ${htmlEscape(report.startedAt)} · ${htmlEscape(formatDuration(report.durationMs))}</p>
${stoppedNote(report)}<p class="totals ${t.fail > 0 ? 'fail' : 'pass'}">Checks: ${htmlEscape(totalLine(report))}</p>
<table class="matrix">
<thead>${head}</thead>
<tbody>
${rows}
</tbody>
</table>
<dl class="legend">${checkNames.map((c) => `<dt>${htmlEscape(shortNames[c])}</dt><dd>${c}</dd>`).join('')}</dl>
<dl class="legend marks">${(['pass', 'fail', 'info', 'skip', 'none'] as const).map((k) => `<dt>${glyphs[k]}</dt><dd>${htmlEscape(markMeanings[k])}</dd>`).join('')}</dl>
${timingsTable(report)}
${section('Failures', 'fail')}
${section('Info: departures from the contract’s decisions', 'info')}
${skipped}
</body>
</html>
`;
}

/**
 * One self-contained HTML file of a run: inline CSS, no script, nothing loaded from anywhere
 * (its Content-Security-Policy forbids it). The matrix, the totals, then one collapsible
 * <details> per failed or info finding with its exchange, then the skip reasons.
 */
import { checkNames, type CheckResult, type Finding, type Outcome, type RunReport } from '../engine/types.js';
import { decisionNote, formatExchange, printable, resultTitle } from './failures.js';
import { formatDuration, glyphs, operationsOf, resultIndex, shortNames, totalLine, totals } from './matrix.js';

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
details { border: 1px solid #d8dce4; border-radius: 4px; margin: .4rem 0; padding: .3rem .6rem; }
details.fail { border-left: 4px solid #c62828; background: none; color: inherit; font-weight: normal; }
details.info { border-left: 4px solid #0b5c8a; background: none; color: inherit; }
summary { cursor: pointer; }
summary code { font-weight: 600; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; font-size: 12px; }
dl.legend { display: grid; grid-template-columns: max-content 1fr; gap: 0 .8rem; font-size: 12px; }
dl.legend dt { font-family: ui-monospace, monospace; font-weight: 600; }
dl.legend dd { margin: 0; }
`;

function cell(result: CheckResult | undefined): string {
  const kind: Outcome | 'none' = result?.outcome ?? 'none';
  const title = result
    ? result.outcome === 'skip'
      ? `skipped: ${result.skipReason ?? ''}`
      : `${result.outcome}: ${result.findings.length} finding(s)`
    : 'not applicable';
  // A cell with failed or info findings leads to them, below the matrix.
  const glyph = result && (kind === 'fail' || kind === 'info') ? `<a href="#${anchor(result)}">${glyphs[kind]}</a>` : glyphs[kind];
  return `<td class="${kind}" title="${htmlEscape(title)}">${glyph}</td>`;
}

/** The id of a result's first finding on the page (operationIds and check names are identifiers). */
function anchor(result: CheckResult): string {
  return `r-${result.operationId}-${result.check}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

function findingDetails(result: CheckResult, finding: Finding, first: boolean): string {
  const note = decisionNote(finding);
  const decision = note ? ` <em>${htmlEscape(note.trim())}</em>` : '';
  const exchange = finding.exchange ? `<pre>${htmlEscape(formatExchange(finding.exchange))}</pre>` : '<p>No exchange recorded.</p>';
  return `<details class="${finding.outcome}"${first ? ` id="${anchor(result)}"` : ''}><summary>${glyphs[finding.outcome === 'fail' ? 'fail' : 'info']} <code>${htmlEscape(resultTitle(result))}</code> — ${htmlEscape(printable(finding.message))}${decision}</summary>${exchange}</details>`;
}

export function renderHtml(report: RunReport): string {
  const find = resultIndex(report);
  const operations = operationsOf(report);
  const t = totals(report.results);
  const title = `Conformance run ${report.runId}`;

  const head = `<tr><th class="op">operation</th>${checkNames.map((c) => `<th title="${c}">${htmlEscape(shortNames[c])}</th>`).join('')}</tr>`;
  const rows = operations.map((op) => `<tr><td class="op">${htmlEscape(op)}</td>${checkNames.map((c) => cell(find(op, c))).join('')}</tr>`).join('\n');

  const section = (heading: string, outcome: 'fail' | 'info') => {
    const items = report.results.flatMap((r) => r.findings.filter((f) => f.outcome === outcome).map((f, i) => findingDetails(r, f, i === 0)));
    return items.length ? `<h2>${heading} (${items.length} finding${items.length === 1 ? '' : 's'})</h2>\n${items.join('\n')}` : '';
  };
  const reasons = new Map<string, string[]>();
  for (const r of report.results)
    if (r.outcome === 'skip') reasons.set(r.skipReason ?? 'no reason given', [...(reasons.get(r.skipReason ?? 'no reason given') ?? []), resultTitle(r)]);
  const skipped = reasons.size
    ? `<h2>Skipped (${t.skip})</h2>\n<ul>${[...reasons].map(([reason, titles]) => `<li>${htmlEscape(reason)} — ${titles.length} check(s)<details><summary>which</summary><pre>${htmlEscape(titles.join('\n'))}</pre></details></li>`).join('')}</ul>`
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
<p class="totals ${t.fail > 0 ? 'fail' : 'pass'}">Checks: ${htmlEscape(totalLine(report))}</p>
<table class="matrix">
<thead>${head}</thead>
<tbody>
${rows}
</tbody>
</table>
<dl class="legend">${checkNames.map((c) => `<dt>${htmlEscape(shortNames[c])}</dt><dd>${c}</dd>`).join('')}</dl>
<p class="meta">${glyphs.pass} pass · ${glyphs.fail} fail · ${glyphs.info} info: departs only from a decision of the contract, which profile <code>seed</code> does not hold the target to · ${glyphs.skip} skipped · ${glyphs.none} not applicable</p>
${section('Failures', 'fail')}
${section('Info: departures from the contract’s decisions', 'info')}
${skipped}
</body>
</html>
`;
}

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type JsonObject, listOperations, loadBundledContract, serverVariableNames } from '../../lib/contract/bundled.js';

/**
 * Which base URL each operation lives on, as a Markdown table built from the contract (each
 * operation's server), so that neither the docs nor the README keep a hand-written copy.
 * Rows follow the order the contract names its servers in, then the document order of the operations.
 */
export function baseUrlTable(doc: JsonObject = loadBundledContract()): string {
  const order = serverVariableNames(doc);
  const rank = (server: string) => (order.includes(server) ? order.indexOf(server) : order.length);
  const operations = listOperations(doc)
    .map((op, index) => ({ op, index }))
    .sort((a, b) => rank(a.op.server) - rank(b.op.server) || a.index - b.index)
    .map(({ op }) => op);
  const cell = (text: string) => text.replaceAll('|', '\\|');
  return [
    '| Base URL | Method | Path | Operation |',
    '|---|---|---|---|',
    ...operations.map(
      (op) => `| \`{${op.server}}\` | \`${op.method.toUpperCase()}\` | \`${op.path}\` | ${cell(String(op.operation.summary ?? op.operationId))} |`,
    ),
  ].join('\n');
}

export const readmePath = fileURLToPath(new URL('../../README.md', import.meta.url));
export const tableStart = '<!-- base-url-table: generated from the contract by `npm run docs:readme`; do not edit -->';
export const tableEnd = '<!-- /base-url-table -->';

/** The README with the text between the table's markers replaced by `table`; throws when the markers are missing. */
export function withBaseUrlTable(readme: string, table: string): string {
  const start = readme.indexOf(tableStart);
  const end = readme.indexOf(tableEnd, start);
  if (start < 0 || end < 0) throw new Error(`README.md has no ${tableStart} … ${tableEnd} markers for the base-URL table`);
  return `${readme.slice(0, start + tableStart.length)}\n\n${table}\n\n${readme.slice(end)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const before = readFileSync(readmePath, 'utf8');
  const after = withBaseUrlTable(before, baseUrlTable());
  if (after !== before) writeFileSync(readmePath, after);
  process.stdout.write(after === before ? 'README.md: the base-URL table is up to date\n' : 'README.md: base-URL table rewritten from the contract\n');
}

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { followRef, isJsonObject, type JsonObject, listOperations, loadBundledContract, httpMethods } from '../../lib/contract/bundled.js';
import { decisionChecks, type DecisionHold, type Holder } from '../../conformance/data/decision-checks.js';
import { shortNames } from '../../conformance/report/matrix.js';

/**
 * The conformance guide's list of what the `reference` profile holds: per decision (from
 * conformance/data/decision-checks.ts) and per operation (the decisions each operation's
 * `x-decision`/`x-decided` marks name, on it, its parameters, bodies and responses, joined with
 * that map), so the guide keeps no hand-written copy that could drift from either.
 */

/** Every decision id marked on `node` or on what it references, each reference followed once. */
export function marksOf(doc: JsonObject, node: unknown, found = new Set<string>(), seen = new Set<string>()): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) marksOf(doc, item, found, seen);
    return found;
  }
  if (!isJsonObject(node)) return found;
  if (typeof node.$ref === 'string') {
    if (!seen.has(node.$ref)) {
      seen.add(node.$ref);
      marksOf(doc, followRef(doc, node, '').node, found, seen);
    }
    return found;
  }
  if (typeof node['x-decision'] === 'string') found.add(node['x-decision']);
  if (isJsonObject(node['x-decided'])) for (const id of Object.values(node['x-decided'])) found.add(String(id));
  for (const [key, value] of Object.entries(node)) if (key !== 'example' && key !== 'examples') marksOf(doc, value, found, seen);
  return found;
}

export interface MarkedOperation {
  operationId: string;
  /** `POST /charge/payment-link`, or `webhook chargeEvent` for the contract's webhooks. */
  request: string;
  decisions: string[];
}

const byId = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

/** The contract's operations and webhooks in document order, each with the decisions its marks name. */
export function markedOperations(doc: JsonObject = loadBundledContract()): MarkedOperation[] {
  const operations = listOperations(doc).map((op) => ({
    operationId: op.operationId,
    request: `${op.method.toUpperCase()} ${op.path}`,
    decisions: [...marksOf(doc, op.operation)].sort(byId),
  }));
  const webhooks = isJsonObject(doc.webhooks) ? doc.webhooks : {};
  for (const [name, item] of Object.entries(webhooks)) {
    if (!isJsonObject(item)) continue;
    for (const method of httpMethods) {
      const operation = item[method];
      if (!isJsonObject(operation)) continue;
      operations.push({ operationId: String(operation.operationId), request: `webhook ${name}`, decisions: [...marksOf(doc, operation)].sort(byId) });
    }
  }
  return operations;
}

const holder = (h: Holder) => (typeof h === 'string' ? `\`${shortNames[h]}\`` : `\`${shortNames[h[0]]}\` (${h[1]})`);
const held = (hold: DecisionHold) => hold.held.map(holder).join(', ');
const cell = (text: string) => text.replaceAll('|', '\\|');

/** The generated part of the guide's section: the table per decision, then the list per operation. */
export function decisionGuide(doc: JsonObject = loadBundledContract(), checks: Readonly<Record<string, DecisionHold>> = decisionChecks): string {
  const ids = Object.keys(checks).sort(byId);
  const hold = (id: string) => {
    const entry = checks[id];
    if (!entry) throw new Error(`${id} is marked in the contract but has no entry in conformance/data/decision-checks.ts`);
    return entry;
  };
  const table = [
    '| Decision | Held by | Not observed by a run |',
    '|---|---|---|',
    ...ids.map((id) => `| ${id} ${cell(hold(id).subject)} | ${cell(held(hold(id)))} | ${cell(hold(id).notObserved ?? '')} |`),
  ];
  const operations = markedOperations(doc);
  const marked = new Set(operations.flatMap((op) => op.decisions));
  const everyAnswer = ids.filter((id) => hold(id).everyAnswer);
  const nowhere = ids.filter((id) => !marked.has(id) && !hold(id).everyAnswer);
  const decisionWith = (id: string) => `${id} ${hold(id).held.length > 0 ? held(hold(id)) : '(no check)'}`;
  const perOperation = operations.flatMap((op) => {
    const observed = op.decisions.filter((id) => hold(id).held.length > 0);
    const unobserved = op.decisions.filter((id) => hold(id).notObserved);
    return [
      '',
      `**\`${op.operationId}\`** (\`${op.request}\`)`,
      '',
      `- Held: ${observed.length > 0 ? observed.map(decisionWith).join('; ') : 'none of its decisions'}.`,
      ...(unobserved.length > 0 ? [`- Not observed by a run: ${unobserved.map((id) => `${id} ${hold(id).notObserved}`).join('; ')}.`] : []),
    ];
  });
  return [
    ...table,
    '',
    '#### Per operation',
    '',
    "The decisions each operation's marks name (on the operation, its parameters, its request body and its responses, and the",
    'schemas they use), the checks that hold each, and what of them no run observes. What the source document itself states',
    '(the unmarked parts) is held on every operation by `sta`, `cty`, `sch`, `hdr`, `neg` and `pos`.',
    ...everyAnswer.flatMap((id) => [
      '',
      `Of every answer of every operation: ${id} ${hold(id).subject}, ${hold(id).held.length > 0 ? `held by ${held(hold(id))}` : 'held by no check'}${hold(id).notObserved ? `; not observed by a run: ${hold(id).notObserved}` : ''}.`,
    ]),
    ...(nowhere.length > 0
      ? [
          '',
          `Of no operation: ${nowhere.map((id) => `${id} ${hold(id).subject}${hold(id).held.length > 0 ? `, held by ${held(hold(id))}` : ''}${hold(id).notObserved ? `: ${hold(id).notObserved}` : ''}`).join('; ')}.`,
        ]
      : []),
    ...perOperation,
  ].join('\n');
}

export const guidePath = fileURLToPath(new URL('../../docs/conformance.md', import.meta.url));
export const sectionStart = '<!-- decision-checks: generated from the contract and the suite by `npm run docs:conformance`; do not edit -->';
export const sectionEnd = '<!-- /decision-checks -->';

/** The guide with the text between the section's markers replaced by `section`; throws when the markers are missing. */
export function withDecisionGuide(guide: string, section: string): string {
  const start = guide.indexOf(sectionStart);
  const end = guide.indexOf(sectionEnd, start);
  if (start < 0 || end < 0) throw new Error(`docs/conformance.md has no ${sectionStart} … ${sectionEnd} markers`);
  return `${guide.slice(0, start + sectionStart.length)}\n\n${section}\n\n${guide.slice(end)}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const before = readFileSync(guidePath, 'utf8');
  const after = withDecisionGuide(before, decisionGuide());
  if (after !== before) writeFileSync(guidePath, after);
  process.stdout.write(
    after === before ? 'docs/conformance.md: the decisions and their checks are up to date\n' : 'docs/conformance.md: decisions and their checks rewritten\n',
  );
}

import { deref, type JsonObject, listOperations } from '../../lib/contract/bundled.js';
import { baseUrlTable } from './base-url-table.js';
import { codeSamples, curlSample, idVariables } from './code-samples.js';

/**
 * The contract as docs readers see it. Redoc shows neither `x-decision` marks nor which
 * base URL an operation belongs to in its text, so this adds, from the contract itself: to the
 * introduction, the table of operations by base URL, how the code samples are used and the
 * index of decisions; at the top of each operation its base URL and the decisions it rests on
 * (linked to the decisions page), and its code samples (`x-codeSamples`). The contract is not
 * changed.
 */
/** Redoc 3 routes in the fragment: `#/section/<heading slug>`. */
export const decisionsAnchor = '#/section/contract-decisions';
/** The decisions page beside the docs page (scripts/docs/build.ts writes it), one anchor per decision. */
export const decisionsPage = 'decisions.html';
export const decisionLink = (id: string) => `${decisionsPage}#${id}`;

export interface DecisionRow {
  id: string;
  item: string;
}

/** The rows of the table in openapi/DECISIONS.md (`| D01 | Item | … |`). */
export function decisionRows(markdown: string): DecisionRow[] {
  return [...markdown.matchAll(/^\|\s*(D\d{2})\s*\|\s*([^|]+?)\s*\|/gm)].map((m) => ({ id: m[1]!, item: m[2]! }));
}

/** The decision ids marked on an object: `x-decision`, and the values of `x-decided`. */
function marksOf(value: unknown): string[] {
  if (!value || typeof value !== 'object') return [];
  const object = value as JsonObject;
  const ids: string[] = [];
  if (typeof object['x-decision'] === 'string') ids.push(object['x-decision']);
  const decided = object['x-decided'];
  if (decided && typeof decided === 'object') ids.push(...Object.values(decided as Record<string, string>));
  return ids;
}

/** Decisions an operation rests on: its own marks, its parameters', request body's and responses'. */
export function operationDecisions(doc: JsonObject, operation: JsonObject): string[] {
  const ids = new Set<string>(marksOf(operation));
  for (const parameter of (operation.parameters ?? []) as unknown[]) {
    const resolved = deref<JsonObject>(doc, parameter);
    for (const id of [...marksOf(parameter), ...marksOf(resolved), ...marksOf(resolved.schema)]) ids.add(id);
  }
  const body = deref<JsonObject | undefined>(doc, operation.requestBody);
  for (const media of Object.values((body?.content ?? {}) as Record<string, JsonObject>)) {
    for (const id of marksOf(deref(doc, media.schema))) ids.add(id);
  }
  for (const response of Object.values((operation.responses ?? {}) as Record<string, unknown>)) {
    for (const id of [...marksOf(response), ...marksOf(deref(doc, response))]) ids.add(id);
  }
  return [...ids].sort();
}

/** `text` appended to the Markdown section under `heading` (before the next heading of its level); throws when there is none. */
export function appendToSection(markdown: string, heading: string, text: string): string {
  const start = markdown.indexOf(`${heading}\n`);
  if (start < 0) throw new Error(`the contract's description has no "${heading}" section`);
  const level = heading.slice(0, heading.indexOf(' ') + 1);
  const next = markdown.indexOf(`\n${level}`, start + heading.length);
  const end = next < 0 ? markdown.length : next + 1;
  return `${markdown.slice(0, end).trimEnd()}\n\n${text}\n\n${markdown.slice(end)}`;
}

/** Bold decision mentions in a description (`**D27**`) as links to the decision. */
export function linkDecisionMentions(text: string): string {
  return text.replace(/(?<!\[)\*\*(D\d{2})\*\*/g, (_match, id: string) => `[**${id}**](${decisionLink(id)})`);
}

/** Every `description` in the document, rewritten by `rewrite`. */
function rewriteDescriptions(value: unknown, rewrite: (text: string) => string): void {
  if (Array.isArray(value)) for (const item of value) rewriteDescriptions(item, rewrite);
  else if (value && typeof value === 'object') {
    const object = value as JsonObject;
    for (const [key, item] of Object.entries(object)) {
      if (key === 'description' && typeof item === 'string') object[key] = rewrite(item);
      else rewriteDescriptions(item, rewrite);
    }
  }
}

/** The introduction's section on the code samples: which variables they read. */
function codeSamplesSection(doc: JsonObject): string {
  const ops = listOperations(doc);
  const used = new Set(ops.flatMap((op) => [...curlSample(doc, op).matchAll(/\$([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!)));
  const base = ['BASE_URL', 'BASE_URL_ALT', 'API_KEY'];
  const ids = idVariables(doc)
    .map((id) => id.variable)
    .filter((name) => used.has(name) && !base.includes(name));
  const servers = (doc.servers ?? []) as Array<{ variables?: Record<string, { default?: string }> }>;
  const address = (name: string) => servers.map((server) => server.variables?.[name]?.default).find(Boolean) ?? '';
  return `## Code samples

Each operation shows a request to copy: **curl**, and **TypeScript** with this toolkit's typed
client (\`pix-payments-toolkit/client\`). Both send the operation's first request example (change
its values to yours: an order's \`subtotal\` must add up its items at your products' prices). The curl
samples take the addresses, the API key and every identifier from shell variables, so export them
once (curl's \`-i\` prints the status line and headers before the body):

\`\`\`sh
export BASE_URL=${address('base_url')} BASE_URL_ALT=${address('base_url_alt')} API_KEY=sk_…
\`\`\`

Identifiers are variables named after their kind: ${ids.map((name) => `\`$${name}\``).join(', ')}; set
each to the id of one of your own records (the one the create operation answered) before a sample
that names it. The TypeScript samples read \`BASE_URL\`, \`BASE_URL_ALT\` and \`API_KEY\` from the
environment and show the contract's example ids in their place: put yours there.`;
}

/** Returns a decorated deep copy of the bundled contract. */
export function decorateForDocs(contract: JsonObject, decisionsMarkdown: string): JsonObject {
  const doc = structuredClone(contract);
  const rows = new Map(decisionRows(decisionsMarkdown).map((row) => [row.id, row.item]));
  const samples = new Map(listOperations(contract).map((op) => [op.operationId, codeSamples(contract, op)]));
  rewriteDescriptions(doc, linkDecisionMentions);
  const info = doc.info as JsonObject;
  const index = [...rows].map(([id, item]) => `| [${id}](${decisionLink(id)}) | ${item} |`).join('\n');
  info.description = `${appendToSection(String(info.description), '## Two base URLs', baseUrlTable(contract))
    .replace('[DECISIONS.md](DECISIONS.md)', `[Contract decisions](${decisionsPage}) (listed [below](${decisionsAnchor}))`)
    .trimEnd()}

${codeSamplesSection(contract)}

## Contract decisions

Where the source document says "not shown", this contract decides. Each decision below is marked in
the contract (\`x-decision\`, \`x-decided\`) and named (**Dnn**) in the descriptions it touches; a
conformance run in the \`seed\` profile reports departures from them as information only. Each
links to its decision, reasons and standards on the [decisions page](${decisionsPage}).

| ID | Item |
|---|---|
${index}
`;
  for (const op of listOperations(doc)) {
    const operation = op.operation;
    const server = ((operation.servers ?? doc.servers ?? []) as Array<{ url: string }>)[0]?.url ?? '';
    const decisions = operationDecisions(doc, operation);
    const notes = [`**Base URL:** \`${server}\``];
    if (decisions.length > 0) {
      const list = decisions.map((id) => `[${id}](${decisionLink(id)}) ${rows.get(id)?.replace(/\s*\(seed[^)]*\)\s*$/, '') ?? ''}`.trim()).join('; ');
      notes.push(`**Not documented by the source; decided by this contract:** ${list}.`);
    }
    operation.description = `${notes.map((note) => `> ${note}`).join('\n>\n')}\n\n${String(operation.description ?? '')}`;
    operation['x-codeSamples'] = samples.get(op.operationId);
  }
  return doc;
}

import { deref, httpMethods, type JsonObject, listOperations, serverVariableDefault, serverVariableNames } from '../../lib/contract/bundled.js';
import { readDecisions } from '../../lib/contract/decisions.js';
import { perServerFileName } from '../contract/per-server.js';
import { baseUrlTable } from './base-url-table.js';
import { addressVariable, apiKeyVariable, capturedBy, codeSamples, curlSample, newKeyCommand } from './code-samples.js';

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

/** The introduction's section on the code samples: the story they tell, the variables they read and set, the idempotency keys they make. */
function codeSamplesSection(doc: JsonObject): string {
  const ops = listOperations(doc);
  const address = (name: string) => serverVariableDefault(doc, name) ?? '';
  const setters = [...capturedBy(doc)].map(([variable, summary]) => `\`$${variable}\` (*${summary}*)`);
  const idempotent = ops.filter((op) => curlSample(doc, op).includes('IDEMPOTENCY_KEY='));
  const keyParameter = idempotent.length > 0 ? idempotencyParameter(doc, idempotent[0]!) : undefined;
  const decision = Object.values((keyParameter?.['x-decided'] ?? {}) as Record<string, string>)[0];
  const names = ['base_url', 'base_url_alt'].map((server) => `${addressVariable(server)}=${address(server)}`);
  return `## Code samples

Each operation shows a request to copy: **curl** (with [jq](https://jqlang.org/) where it keeps an
id), and **TypeScript** with this toolkit's typed client (\`pix-payments-toolkit/client\`). Both
send the operation's first request example, and together they are one story: run them in the
order of this page, against a development server with a company of your own, and each one uses
the records the ones before it made (a client and a product, then a charge, a subscription and an
order of them; the webhook registration is deleted last). Export the addresses and your API key
once:

\`\`\`sh
export ${names.join(' ')} ${apiKeyVariable}=sk_…
\`\`\`

A sample that creates a record keeps its id in a variable named after its kind, and prints it
(\`CLIENT_ID=clnt_…\`); the samples after it name that variable: ${setters.join(', ')}. A curl sample
prints the answer's status line and headers before its body (\`-i\`; where it keeps an id, from
the \`RESPONSE\` it printed). The TypeScript samples read the same variables from the environment, and a create
sample prints \`export CLIENT_ID=…\` for the ones after it.
${
  idempotent.length > 0
    ? `
The ${andList(idempotent.map((op) => `*${String(op.operation.summary)}*`))} sample sends a new \`${keyParameter?.name ?? 'Idempotency-Key'}\` each time
it runs (\`${newKeyCommand}\` on Linux and macOS, \`randomUUID()\` in TypeScript). Sent again with
the same key and body, a request answers the first response again (with \`Idempotent-Replayed: true\`),
so a retry never charges twice; the same key with another body is \`422\`${decision ? ` ([${decision}](${decisionLink(decision)}))` : ''}. Keep the key
to retry a request; make a new one for a new charge.`
    : ''
}`;
}

const andList = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`);

function idempotencyParameter(doc: JsonObject, op: ReturnType<typeof listOperations>[number]): JsonObject | undefined {
  return ((op.operation.parameters ?? []) as unknown[])
    .map((parameter) => deref<JsonObject>(doc, parameter))
    .find((p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key');
}

/**
 * What the page adds after an operation's own description (issue 39: the description comes
 * first), on one line: its base URL with its default address, and the decisions it rests on
 * ("decided by this contract where the source document is silent"), each linked to the
 * decisions page with its title on hover.
 */
export function operationFootnote(doc: JsonObject, server: string, decisions: readonly string[], titles: ReadonlyMap<string, string>): string {
  const address = serverVariableDefault(doc, server);
  const base = `**Base URL:** \`{${server}}\`${address ? ` (${address} on a development server)` : ''}`;
  if (decisions.length === 0) return `${base}.`;
  const links = decisions.map((id) => `[${id}](${decisionLink(id)}${titles.has(id) ? ` "${titles.get(id)!.replaceAll('"', "'")}"` : ''})`);
  return `${base} · Decided by this contract where the [source document](${decisionsPage}) is silent: ${links.join(', ')}.`;
}

/** Returns a decorated deep copy of the bundled contract. */
export function decorateForDocs(contract: JsonObject, decisionsMarkdown: string): JsonObject {
  const doc = structuredClone(contract);
  const titles = new Map(readDecisions(decisionsMarkdown).map((decision) => [decision.id, decision.title]));
  const samples = new Map(listOperations(contract).map((op) => [op.operationId, codeSamples(contract, op)]));
  rewriteDescriptions(doc, linkDecisionMentions);
  const info = doc.info as JsonObject;
  const index = [...titles].map(([id, title]) => `| [${id}](${decisionLink(id)}) | ${title.replaceAll('|', '\\|')} |`).join('\n');
  info.description = `${appendToSection(String(info.description), '## Two base URLs', baseUrlTable(contract))
    .replace('[DECISIONS.md](DECISIONS.md)', `[Contract decisions](${decisionsPage}) (listed [below](${decisionsAnchor}))`)
    .trimEnd()}

${codeSamplesSection(contract)}

## Contract decisions

Where the source document says "not shown", this contract decides. Each decision below is marked in
the contract (\`x-decision\`, \`x-decided\`) and named (**Dnn**) in the descriptions it touches; a
conformance run in the \`seed\` profile reports departures from them as information only. Each
links to its decision, reasons and standards on the [decisions page](${decisionsPage}).

| ID | Subject |
|---|---|
${index}
`;
  info.description = withGuide(
    String(info.description),
    serverVariableNames(contract).map((server) => `\`pix-payments-toolkit/${perServerFileName(server)}\``),
  );
  for (const op of listOperations(doc)) {
    const operation = op.operation;
    operation.description = `${String(operation.description ?? '').trimEnd()}\n\n${operationFootnote(doc, op.server, operationDecisions(doc, operation), titles)}`;
    operation['x-codeSamples'] = samples.get(op.operationId);
  }
  // After the operations were read (their base URL is their servers' variable).
  for (const server of serversOf(doc)) showDefaults(server);
  // The sidebar has one "Webhooks": the events Redoc lists under that name; the tag of the
  // operations that register endpoints is shown as what it holds.
  for (const tag of (doc.tags ?? []) as JsonObject[]) if (tag.name === 'Webhooks') tag['x-displayName'] = webhookTagName;
  return doc;
}

/** The sidebar name of the operations that register webhook endpoints (the tag `Webhooks`). */
export const webhookTagName = 'Webhook registrations';
/** The integrator's guide (docs/integrating.md) as a page beside the docs page (scripts/docs/build.ts writes it). */
export const guidePage = 'integrating.html';

/**
 * The introduction with, after its first paragraph, where a new integrator starts: the guide, the
 * typed client, `verifyWebhook`, and the documents per base URL for other client generators.
 */
function withGuide(description: string, perServerDocuments: string[]): string {
  const end = description.indexOf('\n\n');
  const start = `**New here?** The [integrator's guide](${guidePage}) takes a first integration from an API key to a paid order: the typed
client (\`pix-payments-toolkit/client\`), the sandbox's simulations, and \`verifyWebhook(secret, headers, rawBody)\`,
which checks a webhook delivery's signature and gives the event typed by its \`type\`. If your client
generator ignores per-operation servers, generate one client per document: the package ships one
document per base URL (${andList(perServerDocuments)}) beside the whole contract.`;
  return end < 0 ? `${description}\n\n${start}` : `${description.slice(0, end)}\n\n${start}${description.slice(end)}`;
}

/** Every server object of the document: the root's, each path's and each operation's. */
function serversOf(doc: JsonObject): JsonObject[] {
  const found = [...((doc.servers ?? []) as JsonObject[])];
  for (const item of Object.values((doc.paths ?? {}) as Record<string, JsonObject>)) {
    found.push(...((item.servers ?? []) as JsonObject[]));
    for (const method of httpMethods) found.push(...(((item[method] as JsonObject | undefined)?.servers ?? []) as JsonObject[]));
  }
  return found;
}

/**
 * A server as a reader can use it: its URL with each variable's default (a development server's
 * address), not `{base_url}` with the value behind "Show 1 variable"; the description says which
 * variable it is and that a deployment has its own address.
 */
function showDefaults(server: JsonObject): void {
  const variables = (server.variables ?? {}) as Record<string, JsonObject>;
  const names = Object.keys(variables);
  if (names.length === 0) return;
  server.url = String(server.url).replace(/\{(\w+)\}/g, (match, name: string) => {
    const value = variables[name]?.default;
    return typeof value === 'string' ? value : match;
  });
  // Redoc shows a server's description as plain text: no Markdown.
  const which = names.map((name) => `{${name}}`).join(', ');
  server.description = `${String(server.description ?? '').trim()} ${which}: a development server's address; a deployment has its own.`.trim();
  delete server.variables;
}

import { deref, httpMethods, type JsonObject } from '../../lib/contract/bundled.js';

/**
 * The contract as docs readers see it. Redoc shows neither `x-decision` marks nor which
 * base URL an operation belongs to in its text, so this adds, from the contract itself:
 * the decisions table as a section of the introduction, and at the top of each operation
 * its base URL and the decisions it rests on. The contract is not changed.
 */
/** Redoc 3 routes in the fragment: `#/section/<heading slug>`. */
export const decisionsAnchor = '#/section/contract-decisions';

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

/** Returns a decorated deep copy of the bundled contract. */
export function decorateForDocs(contract: JsonObject, decisionsMarkdown: string): JsonObject {
  const doc = structuredClone(contract);
  const rows = new Map(decisionRows(decisionsMarkdown).map((row) => [row.id, row.item]));
  const info = doc.info as JsonObject;
  const table = decisionsMarkdown.slice(decisionsMarkdown.search(/^\| ID \|/m)).trim();
  info.description = `${String(info.description)
    .replace('[DECISIONS.md](DECISIONS.md)', `[Contract decisions](${decisionsAnchor}) below (also as [DECISIONS.md](DECISIONS.md))`)
    .trimEnd()}

## Contract decisions

Where the source document says "not shown", this contract decides. Each decision below is marked in
the contract (\`x-decision\`, \`x-decided\`) and named (**Dnn**) in the descriptions it touches; a
conformance run in the \`seed\` profile reports departures from them as information only.

${table}
`;
  for (const item of Object.values((doc.paths ?? {}) as Record<string, JsonObject>)) {
    for (const method of httpMethods) {
      const operation = item[method] as JsonObject | undefined;
      if (!operation) continue;
      const server = ((operation.servers ?? doc.servers ?? []) as Array<{ url: string }>)[0]?.url ?? '';
      const decisions = operationDecisions(doc, operation);
      const notes = [`**Base URL:** \`${server}\``];
      if (decisions.length > 0) {
        const list = decisions.map((id) => `[${id}](${decisionsAnchor}) ${rows.get(id)?.replace(/\s*\(seed[^)]*\)\s*$/, '') ?? ''}`.trim()).join('; ');
        notes.push(`**Not documented by the source; decided by this contract:** ${list}.`);
      }
      operation.description = `${notes.map((note) => `> ${note}`).join('\n>\n')}\n\n${String(operation.description ?? '')}`;
    }
  }
  return doc;
}

/**
 * Contract decisions: the DECISIONS.md table and the `x-decision` / `x-decided`
 * marks in the bundled contract agree with each other.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { decisionsPath, isObject, loadContract, walk, type JsonObject } from './support.js';
import { resolvePointer } from '../../lib/contract/bundled.js';

const decisionId = /^D\d{2}$/;
const notMarkedPattern = /\(not marked:\s*(.*?)\s*\)\s*$/;

// ---------------------------------------------------------------------------
// DECISIONS.md
// ---------------------------------------------------------------------------

interface DecisionRow {
  id: string;
  item: string;
  decision: string;
  why: string;
  standard: string;
  /** 1-based line in DECISIONS.md. */
  line: number;
  /** Reason given by `(not marked: …)` in the Decision column, if any. */
  notMarked?: string;
}

/** Splits a Markdown table row into cells, honouring `\|` escapes. */
function splitRow(line: string): string[] {
  const cells: string[] = [];
  let current = '';
  const body = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '\\' && body[i + 1] === '|') {
      current += '|';
      i++;
    } else if (ch === '|') {
      cells.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  cells.push(current.trim());
  return cells;
}

/** Rows of every table in `markdown` whose header is `| ID | Item | Decision | Why | Standard |`. */
function parseDecisions(markdown: string): { rows: DecisionRow[]; problems: string[] } {
  const rows: DecisionRow[] = [];
  const problems: string[] = [];
  const lines = markdown.split(/\r?\n/);
  let tables = 0;
  for (let i = 0; i < lines.length; i++) {
    const header = splitRow(lines[i] ?? '');
    if (!(lines[i] ?? '').trim().startsWith('|') || header.map((c) => c.toLowerCase()).join('|') !== 'id|item|decision|why|standard') continue;
    tables++;
    if (!/^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*:?-{3,}:?\s*\|?\s*$/.test(lines[i + 1] ?? '')) {
      problems.push(`line ${i + 2}: header row is not followed by a delimiter row`);
      continue;
    }
    let j = i + 2;
    for (; j < lines.length && (lines[j] ?? '').trim().startsWith('|'); j++) {
      const cells = splitRow(lines[j] ?? '');
      if (cells.length !== 5) {
        problems.push(`line ${j + 1}: ${cells.length} cells, want 5`);
        continue;
      }
      const [id, item, decision, why, standard] = cells as [string, string, string, string, string];
      const row: DecisionRow = { id, item, decision, why, standard, line: j + 1 };
      const notMarked = notMarkedPattern.exec(decision);
      if (notMarked) row.notMarked = notMarked[1] ?? '';
      rows.push(row);
    }
    i = j - 1;
  }
  if (tables === 0) problems.push('no table with header | ID | Item | Decision | Why | Standard |');
  return { rows, problems };
}

/** Problems of the table itself: ids D01, D02, … each once and in sequence, every cell filled. */
function tableProblems(rows: readonly DecisionRow[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    if (!decisionId.test(row.id)) problems.push(`line ${row.line}: id ${JSON.stringify(row.id)} does not match Dnn`);
    if (seen.has(row.id)) problems.push(`line ${row.line}: id ${row.id} appears more than once`);
    seen.add(row.id);
    const want = `D${String(index + 1).padStart(2, '0')}`;
    if (row.id !== want) problems.push(`line ${row.line}: id ${row.id} out of sequence, want ${want}`);
    for (const column of ['item', 'decision', 'why', 'standard'] as const) {
      if (row[column] === '') problems.push(`line ${row.line}: ${row.id} has an empty ${column[0]?.toUpperCase()}${column.slice(1)} cell`);
    }
    if (row.notMarked !== undefined && row.notMarked === '') problems.push(`line ${row.line}: ${row.id} says "(not marked: …)" without a reason`);
  });
  return problems;
}

// ---------------------------------------------------------------------------
// Marks in the contract
// ---------------------------------------------------------------------------

interface Mark {
  /** JSON Pointer of the object carrying the mark. */
  pointer: string;
  extension: 'x-decision' | 'x-decided';
  /** For x-decided: the keyword said to be decided. */
  keyword?: string;
  id: unknown;
}

/** Every `x-decision` and `x-decided` entry in `doc`, with the pointer of the object carrying it. */
function collectMarks(doc: unknown): Mark[] {
  const marks: Mark[] = [];
  walk(doc, (node, pointer) => {
    if (!isObject(node)) return;
    if ('x-decision' in node) marks.push({ pointer, extension: 'x-decision', id: node['x-decision'] });
    if ('x-decided' in node) {
      const decided = node['x-decided'];
      if (isObject(decided)) {
        for (const [keyword, id] of Object.entries(decided)) marks.push({ pointer, extension: 'x-decided', keyword, id });
      }
    }
  });
  return marks;
}

/** Shape problems of the marks themselves, independent of DECISIONS.md. */
function markProblems(doc: unknown): string[] {
  const problems: string[] = [];
  walk(doc, (node, pointer) => {
    if (!isObject(node)) return;
    if ('x-decision' in node && !(typeof node['x-decision'] === 'string' && decisionId.test(node['x-decision']))) {
      problems.push(`${pointer}/x-decision: ${JSON.stringify(node['x-decision'])} is not a decision id Dnn`);
    }
    if (!('x-decided' in node)) return;
    const decided = node['x-decided'];
    if (!isObject(decided) || Object.keys(decided).length === 0) {
      problems.push(`${pointer}/x-decided: must be a non-empty mapping of keyword to decision id`);
      return;
    }
    for (const [keyword, id] of Object.entries(decided)) {
      if (!(typeof id === 'string' && decisionId.test(id))) problems.push(`${pointer}/x-decided/${keyword}: ${JSON.stringify(id)} is not a decision id Dnn`);
      if (keyword === 'x-decided' || !(keyword in node)) problems.push(`${pointer}/x-decided/${keyword}: the object has no keyword "${keyword}"`);
    }
  });
  return problems;
}

function markLabel(mark: Mark): string {
  return mark.extension === 'x-decided' ? `${mark.pointer || '/'} x-decided.${mark.keyword ?? ''}` : `${mark.pointer || '/'} x-decision`;
}

// ---------------------------------------------------------------------------
// Citations: the decision a mark names covers what it marks
// ---------------------------------------------------------------------------

/** A name or a text as lower-case words: `defaultTrialDays` → `default trial days`, `RateLimit-Policy` → `rate limit policy`. */
function words(text: string): string {
  return ` ${text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()} `;
}

/** A subject as the text may write it: as is, or with its last word in the plural (`quantity` → `quantities`). */
function forms(subject: string): string[] {
  const phrase = words(subject).trim();
  if (phrase === '') return [];
  const plural = phrase.endsWith('y') ? `${phrase.slice(0, -1)}ies` : phrase.endsWith('s') ? `${phrase}es` : `${phrase}s`;
  return [` ${phrase} `, ` ${plural} `];
}

/** Words a decision may use for a keyword whose own name no prose would use. */
const keywordSubjects: Record<string, string[]> = {
  security: ['authentication', 'API key'],
  additionalProperties: ['unknown field'],
  required: ['required'],
  enum: ['enumeration'],
  variables: ['server variable'],
  version: ['version'],
  // A bound the contract sets on every value of its kind (D49) names the keyword itself.
  maxLength: ['maxLength'],
  maxItems: ['maxItems'],
  minimum: ['minimum'],
  maximum: ['maximum'],
};
/** Keywords whose value prose names (`format: cpf-cnpj`, `type: integer`). */
const valueKeywords = new Set(['format', 'type']);
/** Keywords that take in other schemas: the schemas they take in are subjects too (`allOf: [Url]` is about URLs). */
const composingKeywords = new Set(['allOf', 'anyOf', 'oneOf']);

/** The component schema a `$ref` names, if it names one. */
const schemaRef = (node: unknown): string | undefined =>
  isObject(node) && typeof node.$ref === 'string' ? /^#\/components\/schemas\/([^/]+)$/.exec(node.$ref)?.[1] : undefined;

/** Operations (`post /webhook`) whose own objects name each component schema by `$ref`; `webhook` for the webhooks section. */
function schemaUsers(doc: JsonObject): Map<string, string[]> {
  const users = new Map<string, string[]>();
  const use = (value: unknown, user: string) =>
    walk(value, (node) => {
      const ref = schemaRef(node);
      if (ref) users.set(ref, [...(users.get(ref) ?? []), user]);
    });
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    for (const [method, operation] of Object.entries(isObject(item) ? item : {})) use(operation, `${method} ${path}`);
  }
  use(doc.webhooks, 'webhook');
  return users;
}

/**
 * What a mark is about, as its decision's text would name it: the schema, the properties on
 * the way to it, a parameter's or header's name, an operation (its id, method and path, or the
 * operations using a schema), a response's status and its problem body, a webhook, and a
 * keyword only where prose has a word for it.
 */
function subjectsOf(doc: JsonObject, mark: Mark, users: Map<string, string[]>): string[] {
  const tokens = mark.pointer
    .split('/')
    .slice(1)
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  const node = resolvePointer(doc, mark.pointer);
  const subjects: string[] = [];
  tokens.forEach((token, i) => {
    const parent = tokens[i - 1];
    if (parent === 'properties' || parent === 'headers' || parent === 'responses' || parent === 'securitySchemes') subjects.push(token);
    if (parent === 'schemas' && tokens[i - 2] === 'components') subjects.push(token, ...(users.get(token) ?? []));
    if (parent === 'paths') subjects.push(`${tokens[i + 1] ?? ''} ${token}`);
    if (i === 0 && token === 'webhooks') subjects.push('webhook');
  });
  if (isObject(node)) {
    if (typeof node.name === 'string' && typeof node.in === 'string') subjects.push(node.name);
    if (typeof node.operationId === 'string') subjects.push(node.operationId);
    if (isObject(node.content) && 'application/problem+json' in node.content) subjects.push('problem');
  }
  if (mark.keyword) {
    subjects.push(...(keywordSubjects[mark.keyword] ?? []));
    const value = isObject(node) ? node[mark.keyword] : undefined;
    if (valueKeywords.has(mark.keyword) && typeof value === 'string') subjects.push(value);
    if (composingKeywords.has(mark.keyword) && Array.isArray(value)) subjects.push(...value.flatMap((member) => schemaRef(member) ?? []));
  }
  return subjects;
}

/**
 * Marks whose decision's Item and Decision text mention none of their subjects, as
 * `label → Dnn (subjects)`. A citation of a decision that is about something else reads as a
 * reason to the integrator and is none.
 */
function citationProblems(doc: JsonObject, marks: readonly Mark[], rows: readonly DecisionRow[]): string[] {
  const texts = new Map(rows.map((r) => [r.id, words(`${r.item} ${r.decision}`)]));
  const users = schemaUsers(doc);
  const problems: string[] = [];
  for (const mark of marks) {
    const text = texts.get(String(mark.id));
    if (text === undefined) continue;
    const subjects = subjectsOf(doc, mark, users);
    if (!subjects.some((subject) => forms(subject).some((form) => text.includes(form))))
      problems.push(`${markLabel(mark)} → ${String(mark.id)} (${subjects.join(', ')})`);
  }
  return problems;
}

// ---------------------------------------------------------------------------
// Self-checks on fixtures
// ---------------------------------------------------------------------------

describe('rules (self-check on fixtures)', () => {
  describe('parseDecisions', () => {
    const header = '| ID | Item | Decision | Why | Standard |\n|---|---|---|---|---|';
    const cases: Array<[string, { given: string; want: { ids: string[]; notMarked: Record<string, string>; problems: RegExp | undefined } }]> = [
      [
        'one table',
        {
          given: `# D\n\n${header}\n| D01 | a | b | c | RFC 9110 |\n| D02 | a | b | c | — |\n\nafter`,
          want: { ids: ['D01', 'D02'], notMarked: {}, problems: undefined },
        },
      ],
      [
        'two tables share the numbering',
        {
          given: `${header}\n| D01 | a | b | c | d |\n\n## More\n\n${header}\n| D02 | a | b | c | d |`,
          want: { ids: ['D01', 'D02'], notMarked: {}, problems: undefined },
        },
      ],
      ['escaped pipe stays in its cell', { given: `${header}\n| D01 | a \\| b | c | d | e |`, want: { ids: ['D01'], notMarked: {}, problems: undefined } }],
      [
        'not-marked escape hatch',
        {
          given: `${header}\n| D01 | Versioning | URL-free, no version header (not marked: lives only in prose) | n/a | — |`,
          want: { ids: ['D01'], notMarked: { D01: 'lives only in prose' }, problems: undefined },
        },
      ],
      [
        'aligned delimiter row',
        {
          given: '| ID | Item | Decision | Why | Standard |\n|:---|:---:|---|---|---:|\n| D01 | a | b | c | d |',
          want: { ids: ['D01'], notMarked: {}, problems: undefined },
        },
      ],
      ['other tables ignored', { given: '| A | B |\n|---|---|\n| D09 | x |', want: { ids: [], notMarked: {}, problems: /no table with header/ } }],
      ['row with a missing column', { given: `${header}\n| D01 | a | b | c |`, want: { ids: [], notMarked: {}, problems: /4 cells, want 5/ } }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const { rows, problems } = parseDecisions(given);
      expect(rows.map((r) => r.id)).toEqual(want.ids);
      expect(Object.fromEntries(rows.filter((r) => r.notMarked !== undefined).map((r) => [r.id, r.notMarked]))).toEqual(want.notMarked);
      if (want.problems === undefined) expect(problems).toEqual([]);
      else expect(problems.join('\n')).toMatch(want.problems);
    });
  });

  describe('tableProblems', () => {
    const row = (id: string, over: Partial<DecisionRow> = {}): DecisionRow => ({ id, item: 'i', decision: 'd', why: 'w', standard: 's', line: 1, ...over });
    const cases: Array<[string, { given: DecisionRow[]; want: RegExp | undefined }]> = [
      ['sequence D01..D03', { given: [row('D01'), row('D02'), row('D03')], want: undefined }],
      ['gap', { given: [row('D01'), row('D03')], want: /D03 out of sequence, want D02/ }],
      ['duplicate', { given: [row('D01'), row('D01')], want: /D01 appears more than once/ }],
      ['bad id form', { given: [row('D1')], want: /does not match Dnn/ }],
      ['three digits', { given: [row('D001')], want: /does not match Dnn/ }],
      ['empty Why', { given: [row('D01', { why: '' })], want: /empty Why cell/ }],
      ['empty Standard', { given: [row('D01', { standard: '' })], want: /empty Standard cell/ }],
      ['not marked without reason', { given: [row('D01', { notMarked: '' })], want: /without a reason/ }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const problems = tableProblems(given);
      if (want === undefined) expect(problems).toEqual([]);
      else expect(problems.join('\n')).toMatch(want);
    });
  });

  describe('collectMarks', () => {
    const cases: Array<[string, { given: unknown; want: string[] }]> = [
      ['none', { given: { a: { b: [1, { c: 2 }] } }, want: [] }],
      [
        'x-decision on a property schema',
        {
          given: { components: { schemas: { Charge: { properties: { status: { type: 'string', 'x-decision': 'D07' } } } } } },
          want: ['/components/schemas/Charge/properties/status x-decision D07'],
        },
      ],
      [
        'x-decided keywords',
        {
          given: { paths: { '/charge/{id}': { get: { security: [], 'x-decided': { security: 'D04', responses: 'D05' } } } } },
          want: ['/paths/~1charge~1{id}/get x-decided.security D04', '/paths/~1charge~1{id}/get x-decided.responses D05'],
        },
      ],
      ['inside arrays', { given: { parameters: [{ name: 'q', 'x-decision': 'D01' }] }, want: ['/parameters/0 x-decision D01'] }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      expect(collectMarks(given).map((m) => `${markLabel(m)} ${String(m.id)}`)).toEqual(want);
    });
  });

  describe('citationProblems', () => {
    const row = (id: string, item: string, decision: string): DecisionRow => ({ id, item, decision, why: 'w', standard: 's', line: 1 });
    const rows = [
      row('D01', 'Identifier formats', 'Every `companyId` is `comp_` and a cuid2.'),
      row('D02', 'Error bodies', 'RFC 9457 problems.'),
      row('D03', 'Quantities', 'Item quantities are 1–10,000.'),
    ];
    const doc = {
      paths: {
        '/thing': {
          post: {
            operationId: 'createThing',
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/ThingCreate' } } } },
            responses: { '404': { content: { 'application/problem+json': {} }, 'x-decision': 'D02' } },
          },
        },
      },
      components: {
        schemas: {
          ThingCreate: {
            properties: {
              companyId: { type: 'string', 'x-decision': 'D01' },
              quantity: { type: 'integer', minimum: 1, 'x-decided': { minimum: 'D03' } },
              status: { type: 'string', 'x-decision': 'D01' },
            },
          },
          TrialDays: { type: 'integer', 'x-decision': 'D03' },
        },
      },
    };
    const cases: Array<[string, { pointer: string; want: RegExp | undefined }]> = [
      ['the property named', { pointer: '/components/schemas/ThingCreate/properties/companyId', want: undefined }],
      ['the property named in the plural', { pointer: '/components/schemas/ThingCreate/properties/quantity', want: undefined }],
      ['a problem response of an error decision', { pointer: '/paths/~1thing/post/responses/404', want: undefined }],
      [
        'a decision about something else',
        { pointer: '/components/schemas/ThingCreate/properties/status', want: /properties\/status x-decision → D01 \(ThingCreate, post \/thing, status\)/ },
      ],
      ['a schema its decision does not name', { pointer: '/components/schemas/TrialDays', want: /TrialDays x-decision → D03/ }],
    ];
    test.each(cases)('%s', (_name, { pointer, want }) => {
      const problems = citationProblems(
        doc,
        collectMarks(doc).filter((m) => m.pointer === pointer),
        rows,
      );
      if (want === undefined) expect(problems).toEqual([]);
      else expect(problems.join('\n')).toMatch(want);
    });
  });

  describe('markProblems', () => {
    const cases: Array<[string, { given: unknown; want: RegExp | undefined }]> = [
      ['well-formed', { given: { a: { type: 'string', maxLength: 3, 'x-decision': 'D01', 'x-decided': { maxLength: 'D02' } } }, want: undefined }],
      [
        'x-decided names an absent keyword',
        { given: { a: { type: 'string', 'x-decided': { maxLength: 'D02' } } }, want: /\/a\/x-decided\/maxLength: the object has no keyword "maxLength"/ },
      ],
      ['x-decided value not an id', { given: { a: { required: [], 'x-decided': { required: 'D2' } } }, want: /"D2" is not a decision id/ }],
      ['x-decided not a mapping', { given: { a: { 'x-decided': 'D01' } }, want: /must be a non-empty mapping/ }],
      ['x-decided empty', { given: { a: { 'x-decided': {} } }, want: /must be a non-empty mapping/ }],
      ['x-decision lower case', { given: { a: { 'x-decision': 'd01' } }, want: /\/a\/x-decision: "d01" is not a decision id/ }],
      ['x-decision as a number', { given: { a: { 'x-decision': 1 } }, want: /is not a decision id/ }],
      ['x-decision as a list', { given: { a: { 'x-decision': ['D01'] } }, want: /is not a decision id/ }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const problems = markProblems(given);
      if (want === undefined) expect(problems).toEqual([]);
      else expect(problems.join('\n')).toMatch(want);
    });
  });
});

// ---------------------------------------------------------------------------
// The contract
// ---------------------------------------------------------------------------

/**
 * Marks whose decision covers them in words the subjects above cannot catch (each with why);
 * keep this short: a new entry usually means the decision's text should name the field.
 */
const citationExceptions: string[] = [];

const markdown = existsSync(decisionsPath) ? readFileSync(decisionsPath, 'utf8') : undefined;
const table = markdown === undefined ? { rows: [], problems: [`${decisionsPath} does not exist`] } : parseDecisions(markdown);
const bundled = loadContract();
const marks = bundled.value ? collectMarks(bundled.value) : [];
const documentedIds = new Set(table.rows.map((r) => r.id));
const usedIds = new Set(marks.map((m) => m.id).filter((id): id is string => typeof id === 'string'));
const notMarkedRows = table.rows.filter((r) => r.notMarked !== undefined);

describe('openapi/DECISIONS.md', () => {
  test('has the decisions table', () => {
    expect(table.problems).toEqual([]);
    expect(table.rows.length).toBeGreaterThan(0);
  });

  test('ids run D01, D02, … once each, every cell filled', () => {
    expect(tableProblems(table.rows)).toEqual([]);
  });
});

describe('x-decision / x-decided marks (generated/openapi.yaml)', () => {
  test('the bundled contract loads and carries marks', () => {
    expect(bundled.error).toBeUndefined();
    expect(marks.length).toBeGreaterThan(0);
  });

  test('every mark is well formed (Dnn values; x-decided keys name keywords present on the object)', () => {
    expect(markProblems(bundled.value)).toEqual([]);
  });

  const markCases = marks.map((m): [string, Mark] => [markLabel(m), m]);
  test.each(markCases)('%s names a decision of DECISIONS.md', (_label, mark) => {
    expect(documentedIds.has(String(mark.id)), `${markLabel(mark)}: ${String(mark.id)} is not in DECISIONS.md`).toBe(true);
  });

  const rowCases = table.rows.filter((r) => r.notMarked === undefined).map((r): [string, DecisionRow] => [r.id, r]);
  test.each(rowCases)('%s is marked in the contract', (id) => {
    expect(usedIds.has(id), `${id} is used by no x-decision / x-decided; mark it or write "(not marked: reason)" in its Decision cell`).toBe(true);
  });

  test('each mark names a decision whose Item or Decision text mentions what it marks (the property, schema, parameter, header, operation or response)', () => {
    const uncovered = bundled.value ? citationProblems(bundled.value, marks, table.rows) : [];
    expect(uncovered.filter((problem) => !citationExceptions.some((exception) => problem.startsWith(exception)))).toEqual([]);
    // An exception that no longer matches anything is stale.
    expect(citationExceptions.filter((exception) => !uncovered.some((problem) => problem.startsWith(exception)))).toEqual([]);
  });

  // The escape hatch, listed by id so the report shows which decisions live only in prose.
  test(`decisions documented as not marked: ${notMarkedRows.map((r) => r.id).join(', ') || 'none'}`, () => {
    const stale = notMarkedRows.filter((r) => usedIds.has(r.id)).map((r) => `${r.id} says "(not marked: …)" but is used in the contract`);
    expect(stale).toEqual([]);
    expect(notMarkedRows.filter((r) => r.notMarked === '').map((r) => r.id)).toEqual([]);
  });
  const notMarkedCases = notMarkedRows.map((r): [string, DecisionRow] => [r.id, r]);
  test.each(notMarkedCases)('%s is not marked: reason given and no mark uses it', (id, row) => {
    expect(row.notMarked ?? '').not.toBe('');
    expect(usedIds.has(id)).toBe(false);
  });
});

/**
 * Contract decisions: the decisions of DECISIONS.md and the `x-decision` / `x-decided`
 * marks in the bundled contract agree with each other.
 *
 * @operation-wide: it enumerates the contract's decisions and their marks, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { decisionsPath, isObject, loadContract, walk, type JsonObject } from './support.js';
import { httpMethods, resolvePointer } from '../../lib/contract/bundled.js';
import { type Decision, parseDecisions } from '../../lib/contract/decisions.js';

const decisionId = /^D\d{2}$/;

// ---------------------------------------------------------------------------
// DECISIONS.md (read by lib/contract/decisions.ts, whose own test covers the file's shape)
// ---------------------------------------------------------------------------

/** Problems of the decisions as a set: ids D01, D02, … each once and in sequence. */
function sequenceProblems(decisions: readonly Decision[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  decisions.forEach((decision, index) => {
    if (seen.has(decision.id)) problems.push(`line ${decision.line}: ${decision.id} appears more than once`);
    seen.add(decision.id);
    const want = `D${String(index + 1).padStart(2, '0')}`;
    if (decision.id !== want) problems.push(`line ${decision.line}: ${decision.id} out of sequence, want ${want}`);
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

/**
 * Keywords an operation has without writing them: OpenAPI gives it the contract's `security` and
 * its path's or the contract's `servers`, which the contract writes once, not on each operation.
 */
const inheritedByOperations = new Set(['security', 'servers']);
const operationAt = new RegExp(`^/(?:paths|webhooks)/[^/]+/(?:${httpMethods.join('|')})$`);

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
      const has = keyword in node || (inheritedByOperations.has(keyword) && operationAt.test(pointer));
      if (keyword === 'x-decided' || !has) problems.push(`${pointer}/x-decided/${keyword}: the object has no keyword "${keyword}"`);
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
 * What to write where so that a decision names what a mark cites it for: one of the mark's
 * subjects, as words (`listProducts`, `list products` or `GET /product`), in the decision's
 * heading, **Seed.** or **Decision.** paragraph (its **Why.** does not count).
 */
function citationFix(decision: Decision, subjects: readonly string[]): string {
  const candidates = subjects.map((subject) => `\`${subject}\``).join(' or ');
  return `write ${candidates} in the **Decision.** paragraph of "## ${decision.id} ${decision.title}" (openapi/DECISIONS.md line ${decision.line}), e.g. a sentence naming it and what ${decision.id} decides for it; or mark it with the decision that does name it`;
}

/**
 * Marks whose decision's subject, seed and decision text mention none of their subjects, as
 * `label → Dnn (subjects)`. A citation of a decision that is about something else reads as a
 * reason to the integrator and is none.
 */
function citationProblems(doc: JsonObject, marks: readonly Mark[], decisions: readonly Decision[]): string[] {
  const byId = new Map(decisions.map((d) => [d.id, d]));
  const users = schemaUsers(doc);
  const problems: string[] = [];
  for (const mark of marks) {
    const decision = byId.get(String(mark.id));
    if (decision === undefined) continue;
    const text = words(`${decision.title} ${decision.seed} ${decision.decision}`);
    const subjects = subjectsOf(doc, mark, users);
    if (!subjects.some((subject) => forms(subject).some((form) => text.includes(form))))
      problems.push(`${markLabel(mark)} → ${String(mark.id)} (${subjects.join(', ')}): ${citationFix(decision, subjects)}`);
  }
  return problems;
}

// ---------------------------------------------------------------------------
// Self-checks on fixtures
// ---------------------------------------------------------------------------

describe('rules (self-check on fixtures)', () => {
  describe('sequenceProblems', () => {
    const decision = (id: string): Decision => ({ id, title: 't', seed: '', decision: 'd', why: 'w', standards: 's', line: 1 });
    const cases: Array<[string, { given: Decision[]; want: RegExp | undefined }]> = [
      ['sequence D01..D03', { given: [decision('D01'), decision('D02'), decision('D03')], want: undefined }],
      ['gap', { given: [decision('D01'), decision('D03')], want: /D03 out of sequence, want D02/ }],
      ['duplicate', { given: [decision('D01'), decision('D01')], want: /D01 appears more than once/ }],
    ];
    test.each(cases)('%s', (_name, { given, want }) => {
      const problems = sequenceProblems(given);
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
    const row = (id: string, title: string, decision: string): Decision => ({ id, title, seed: '', decision, why: 'w', standards: 's', line: 1 });
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
      [
        'a failure says what to write where',
        {
          pointer: '/components/schemas/TrialDays',
          want: /write `TrialDays` in the \*\*Decision\.\*\* paragraph of "## D03 Quantities" \(openapi\/DECISIONS\.md line 1\)/,
        },
      ],
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
        'x-decided names the security an operation inherits',
        { given: { paths: { '/a': { post: { responses: {}, 'x-decided': { security: 'D03', servers: 'D36' } } } } }, want: undefined },
      ],
      [
        'x-decided names security where nothing inherits it',
        {
          given: { components: { schemas: { A: { type: 'string', 'x-decided': { security: 'D03' } } } } },
          want: /A\/x-decided\/security: the object has no keyword "security"/,
        },
      ],
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
const parsed = markdown === undefined ? { decisions: [], problems: [`${decisionsPath} does not exist`] } : parseDecisions(markdown);
const decisions = parsed.decisions;
const bundled = loadContract();
const marks = bundled.value ? collectMarks(bundled.value) : [];
const documentedIds = new Set(decisions.map((d) => d.id));
const usedIds = new Set(marks.map((m) => m.id).filter((id): id is string => typeof id === 'string'));
const notMarked = decisions.filter((d) => d.notMarked !== undefined);

describe('openapi/DECISIONS.md', () => {
  test('every decision is a section the docs and the checks can read', () => {
    expect(parsed.problems).toEqual([]);
    expect(decisions.length).toBeGreaterThan(0);
  });

  test('ids run D01, D02, … once each', () => {
    expect(sequenceProblems(decisions)).toEqual([]);
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

  const markedCases = decisions.filter((d) => d.notMarked === undefined).map((d): [string, Decision] => [d.id, d]);
  test.each(markedCases)('%s is marked in the contract', (id) => {
    expect(usedIds.has(id), `${id} is used by no x-decision / x-decided; mark it or say why not in a **Not marked.** paragraph`).toBe(true);
  });

  test('each mark names a decision whose Item or Decision text mentions what it marks (the property, schema, parameter, header, operation or response)', () => {
    const uncovered = bundled.value ? citationProblems(bundled.value, marks, decisions) : [];
    expect(
      uncovered.filter((problem) => !citationExceptions.some((exception) => problem.startsWith(exception))),
      'marks whose decision does not name what they mark (each says what to write where)',
    ).toEqual([]);
    // An exception that no longer matches anything is stale.
    expect(citationExceptions.filter((exception) => !uncovered.some((problem) => problem.startsWith(exception)))).toEqual([]);
  });

  // The escape hatch, listed by id so the report shows which decisions live only in prose.
  test(`decisions documented as not marked: ${notMarked.map((d) => d.id).join(', ') || 'none'}`, () => {
    const stale = notMarked.filter((d) => usedIds.has(d.id)).map((d) => `${d.id} says **Not marked.** but is used in the contract`);
    expect(stale).toEqual([]);
    expect(notMarked.filter((d) => d.notMarked === '').map((d) => d.id)).toEqual([]);
  });
  const notMarkedCases = notMarked.map((d): [string, Decision] => [d.id, d]);
  test.each(notMarkedCases)('%s is not marked: reason given and no mark uses it', (id, decision) => {
    expect(decision.notMarked ?? '').not.toBe('');
    expect(usedIds.has(id)).toBe(false);
  });
});

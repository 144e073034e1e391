/**
 * The response checks: every exchange the run recorded for a covered operation is judged
 * against what the contract documents for that operation — no server error, a documented
 * status code, a documented media type, a body valid against the documented schema, and
 * the documented headers. Everything is read from the bundled contract; whether a
 * departure fails or is only information comes from its `x-decision` / `x-decided` marks.
 */
import type { ErrorObject } from 'ajv';
import { escapeToken } from '../../lib/contract/pointer.js';
import {
  contentOf,
  documentedResponse,
  documentedResponses,
  mediaTypeMatches,
  mediaTypeOf,
  schemaPointerFor,
  type DocumentedResponse,
} from '../../lib/contract/responses.js';
export { documentedResponse, documentedResponses, mediaTypeOf, schemaPointerFor, type DocumentedResponse };
import { followRef, resolvePointer, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { isPlainObject as isObject } from '../data/schema.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import type { CheckName, Exchange } from '../engine/types.js';
import { splitPointer } from '../../lib/contract/pointer.js';

// ---------------------------------------------------------------------------
// Reading the contract (shared with the other check modules of this folder)
// ---------------------------------------------------------------------------

export { isPlainObject as isObject } from '../data/schema.js';

/** Whether a documented response key covers a status class (`2` for 2xx). */
function keyClass(key: string): string | undefined {
  return /^[1-5]/.test(key) ? key[0] : undefined;
}

/** `POST /charge/payment-link → 201`: how a finding names its exchange. */
export function describeExchange(exchange: Exchange): string {
  let path = exchange.request.url;
  try {
    path = new URL(exchange.request.url).pathname;
  } catch {
    // keep the URL as it is
  }
  const answer = exchange.response ? String(exchange.response.status) : 'no answer';
  return `${exchange.request.method} ${path} → ${answer}`;
}

/** An instance path with every array index written `*`: `/3/phone` is written `/*` then `/phone`, whichever item it was. */
export function wildcardPath(path: string): string {
  return path.replace(/\/\d+(?=\/|$)/g, '/*');
}

/**
 * Ajv errors as short text: `/data/total must be integer`, at most `limit` of them. An error at
 * an item of an array is written once for all its items (`/* must have required property
 * 'phone'`): the text says what is wrong and is the same however many records a list holds, so
 * one fault found in lists of 3 and of 56 clients is one finding (report/groups.ts); which items
 * it was is `errorPlaces`.
 */
export function describeErrors(errors: readonly ErrorObject[], limit = 3): string {
  const texts = [
    ...new Set(
      errors.map((e) => {
        const params = e.params as Record<string, unknown>;
        const extra = e.keyword === 'additionalProperties' ? ` (${String(params.additionalProperty)})` : '';
        return `${wildcardPath(e.instancePath) || '/'} ${e.message ?? 'is invalid'}${extra}`;
      }),
    ),
  ];
  return texts.length > limit ? `${texts.slice(0, limit).join('; ')} (+${texts.length - limit} more)` : texts.join('; ');
}

/** Indices as ranges: `0–55`, `0, 3, 7–9`. */
function ranges(indices: readonly number[]): string {
  const sorted = [...new Set(indices)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(j === i ? String(sorted[i]) : `${sorted[i]}${j === i + 1 ? ', ' : '–'}${sorted[j]}`);
    i = j;
  }
  return parts.join(', ');
}

/**
 * Which items of arrays the errors were at, for each path `describeErrors` wrote with `*`:
 * `/*: at 56 items (0–55)`, or the paths themselves where a path has several. Undefined when no
 * error was at an item of an array. The finding's detail, kept out of what groups findings.
 */
export function errorPlaces(errors: readonly ErrorObject[]): string | undefined {
  const byPattern = new Map<string, Set<string>>();
  for (const { instancePath } of errors) {
    const pattern = wildcardPath(instancePath);
    if (pattern === instancePath) continue;
    byPattern.set(pattern, (byPattern.get(pattern) ?? new Set()).add(instancePath));
  }
  if (byPattern.size === 0) return undefined;
  return [...byPattern]
    .map(([pattern, paths]) => {
      const n = `${paths.size} item${paths.size === 1 ? '' : 's'}`;
      // One `*`: the indices it stood for; more (items of items): the paths themselves, the first ten.
      const indices = pattern.split('*').length === 2 ? [...paths].map((p) => Number(/\/(\d+)(?=\/|$)/.exec(p)![1])) : undefined;
      const list = indices ? ranges(indices) : [...paths].slice(0, 10).join(', ') + (paths.size > 10 ? ', …' : '');
      return `${pattern}: at ${n} (${list})`;
    })
    .join('; ');
}

/**
 * The decisions behind failing validation errors: the `x-decided` entry of the failing
 * keyword (or the `x-decision` of the schema) on each error's parent schema; else, when the
 * validated schema is given, the mark on the way to the failing value (a property that takes
 * a shared schema through a decided `allOf`, e.g. a `companyId` held to `comp_` by D13).
 */
export function decisionsOfErrors(errors: readonly ErrorObject[], root?: { contract: JsonObject; pointer: string }): string[] {
  const decisions = new Set<string>();
  for (const error of errors) {
    const decision =
      RunContext.decisionOf(error.parentSchema, error.keyword) ?? (root ? decisionOnPath(root.contract, root.pointer, error.instancePath) : undefined);
    if (decision) decisions.add(decision);
  }
  return [...decisions];
}

/** Keywords through which a schema takes in another; a mark on one covers all that schema requires. */
const composing = ['allOf', 'anyOf', 'oneOf'];

/**
 * The decision marked on the schemas from `pointer` down to the value at `instancePath`: an
 * `x-decision` on the way, or a decided composing keyword (`x-decided: {allOf: …}`) on the way.
 */
function decisionOnPath(contract: JsonObject, pointer: string, instancePath: string): string | undefined {
  let node = followRef(contract, resolvePointer(contract, pointer), pointer).node;
  const tokens = splitPointer(instancePath);
  for (let i = 0; ; i++) {
    if (!isObject(node)) return undefined;
    const marked = RunContext.decisionOf(node) ?? composing.map((k) => RunContext.decisionOf(node, k)).find(Boolean);
    if (marked) return marked;
    if (i === tokens.length) return undefined;
    node = childSchema(contract, node, tokens[i]!);
  }
}

/** The schema of member `token` of a value `node` describes, looking into composed schemas too. */
function childSchema(contract: JsonObject, node: JsonObject, token: string): unknown {
  const direct = /^\d+$/.test(token) && node.items !== undefined ? node.items : isObject(node.properties) ? node.properties[token] : undefined;
  if (direct !== undefined) return followRef(contract, direct, '').node;
  for (const keyword of composing) {
    for (const member of Array.isArray(node[keyword]) ? (node[keyword] as unknown[]) : []) {
      const resolved = followRef(contract, member, '').node;
      const child = isObject(resolved) ? childSchema(contract, resolved, token) : undefined;
      if (child !== undefined) return child;
    }
  }
  return undefined;
}

export type Verdict = { ok: true } | { ok: false; errors: ErrorObject[]; seedErrors: ErrorObject[]; decisions: string[] };

/**
 * Validates `value` against the schema at `pointer` in the full contract and, when that
 * fails, in the seed view: invalid in both breaks the seed; invalid in the full contract
 * only departs from the decisions named by the failing keywords.
 */
export function validateBoth(ctx: RunContext, pointer: string, value: unknown): Verdict {
  const full = ctx.full.at(pointer);
  if (full(value)) return { ok: true };
  const errors = [...(full.errors ?? [])];
  const seed = ctx.seed.at(pointer);
  const seedErrors = seed(value) ? [] : [...(seed.errors ?? [])];
  return { ok: false, errors, seedErrors, decisions: decisionsOfErrors(errors, { contract: ctx.contract, pointer }) };
}

/** Fallback name of a decision when a failing keyword carries no mark of its own. */
export const unnamedDecision = 'a contract decision';

// ---------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------

/** Records findings, keeping at most one pass per operation and check. */
class Judge {
  private readonly passed = new Set<string>();
  constructor(private readonly ctx: RunContext) {}

  pass(opId: string, check: CheckName, message: string, exchange: Exchange): void {
    const key = `${opId}\u0000${check}`;
    if (this.passed.has(key)) return;
    this.passed.add(key);
    this.ctx.judge(opId, check, true, message, { exchange });
  }

  /** A departure: info in the seed profile when `decision` is given, else fail. `detail`: which items of a list it was at. */
  depart(opId: string, check: CheckName, message: string, exchange: Exchange, decision?: string, detail?: string): void {
    this.ctx.judge(opId, check, false, message, { decision, exchange, detail });
  }
}

export const responseChecks: CheckModule = {
  checks: ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance', 'response_headers_conformance'],
  async run(ctx: RunContext): Promise<void> {
    const judge = new Judge(ctx);
    for (const exchange of ctx.exchanges) {
      if (!ctx.covers(exchange.operationId)) continue;
      const op = ctx.operation(exchange.operationId);
      checkServerError(judge, op, exchange);
      if (!exchange.response) continue;
      const documented = ctx.view(op).response(exchange.response.status);
      checkStatus(ctx, judge, op, exchange, documented);
      // An undocumented status is judged against the documented responses of its class
      // (a 200 where 201 is documented against the 201), so a wrong code does not hide a wrong body.
      const like = documented ?? sameClass(ctx, op, exchange.response.status);
      if (like) {
        checkContentType(judge, op, exchange, like);
        checkSchema(ctx, judge, op, exchange, like);
      }
      if (documented) checkHeaders(ctx, judge, op, exchange, documented);
      checkSecurityHeaders(judge, op, exchange);
    }
    checkRateLimitFields(ctx, judge);
  },
};

/** The decision that every answer of a service that limits requests carries `RateLimit` and `RateLimit-Policy` (not marked on any operation). */
export const rateLimitDecision = 'D11';

const rateLimitFields = ['RateLimit', 'RateLimit-Policy'] as const;

/**
 * D11: a service that limits requests says so on every answer, not only on its `429`s: once any
 * answer of the run carries `RateLimit` or `RateLimit-Policy`, each answer of every operation
 * carries both. A service that sends neither anywhere limits nothing this run can see (the
 * contract does not require a limit to be announced by a service without one). One finding per
 * operation, with how many of its answers lacked them and the first one.
 */
function checkRateLimitFields(ctx: RunContext, judge: Judge): void {
  const check = 'response_headers_conformance';
  const answered = ctx.exchanges.filter((e) => e.response && ctx.covers(e.operationId));
  const carrier = answered.find((e) => rateLimitFields.some((name) => e.response!.headers[name.toLowerCase()] !== undefined));
  if (!carrier) return;
  const byOperation = new Map<string, Exchange[]>();
  for (const exchange of answered) byOperation.set(exchange.operationId, [...(byOperation.get(exchange.operationId) ?? []), exchange]);
  for (const [opId, exchanges] of byOperation) {
    const lacking = exchanges.filter((e) => rateLimitFields.some((name) => e.response!.headers[name.toLowerCase()] === undefined));
    if (lacking.length === 0) {
      judge.pass(opId, check, `every answer carries ${rateLimitFields.join(' and ')} (${rateLimitDecision})`, exchanges[0]!);
      continue;
    }
    const first = lacking[0]!;
    const missing = rateLimitFields.filter((name) => first.response!.headers[name.toLowerCase()] === undefined);
    judge.depart(
      opId,
      check,
      `answers carry no ${missing.join(' or ')}, though other answers of the run do (first ${carrier.operationId}'s); every answer of a service that limits requests carries both (${rateLimitDecision})`,
      first,
      rateLimitDecision,
      // How many is the detail, so that one cause on several operations is one finding (report/groups.ts).
      `${lacking.length} of its ${exchanges.length} answers`,
    );
  }
}

function sameClass(ctx: RunContext, op: ContractOperation, status: number): DocumentedResponse | undefined {
  return ctx.view(op).responses.find((r) => keyClass(r.key) === String(status)[0]);
}

function checkServerError(judge: Judge, op: ContractOperation, exchange: Exchange): void {
  const what = describeExchange(exchange);
  if (exchange.error) judge.depart(op.operationId, 'not_a_server_error', `${what}: ${exchange.error}`, exchange);
  else if (exchange.response && exchange.response.status >= 500) judge.depart(op.operationId, 'not_a_server_error', `${what}: a server error`, exchange);
  else judge.pass(op.operationId, 'not_a_server_error', 'no server errors', exchange);
}

/** Why status_code_conformance did not judge an answer that is a documented server error. */
export const serverErrorNotJudged =
  'answers that were server errors (5xx) were not judged: the contract documents a 500, but it says nothing of the status the request should have got (not_a_server_error reports them)';

function checkStatus(ctx: RunContext, judge: Judge, op: ContractOperation, exchange: Exchange, documented: DocumentedResponse | undefined): void {
  const status = exchange.response!.status;
  const check = 'status_code_conformance';
  if (documented && status >= 500) {
    // The contract documents a 500 for every operation, but a server error is no verdict on the
    // request: whether it would have got the status it should is unknown. Not a pass, then: the
    // check did not run in full (not_a_server_error reports the 5xx itself).
    ctx.recorder.partial(op.operationId, check, serverErrorNotJudged);
    return;
  }
  if (documented) {
    judge.pass(op.operationId, check, 'every status code is documented', exchange);
    return;
  }
  const all = ctx.view(op).responses;
  const listed = all.map((r) => r.key).join(', ');
  const message = `${describeExchange(exchange)}: ${status} is not documented for ${op.operationId} (documented: ${listed})`;
  const cls = String(status)[0];
  let decision: string | undefined;
  if (cls === '2') {
    // The success code is the seed's unless the operation marks its responses as decided.
    decision = RunContext.decisionOf(op.operation, 'responses');
  } else if (cls === '4' || cls === '5') {
    // Errors: when every documented error of this class is a decision (the seed documents
    // none), another error code departs from those decisions only.
    const errors = all.filter((r) => keyClass(r.key) === cls);
    const decisions = errors.map((r) => RunContext.decisionOf(r.response));
    if (errors.length > 0 && decisions.every((d) => d !== undefined)) {
      // The decision behind error codes as such is the one marked on the error body's schema
      // (the Problem model); the individual responses may rest on narrower ones (limits, quotas).
      decision = errorModelDecision(ctx.contract, errors) ?? mostCommon(decisions as string[]);
    }
  }
  judge.depart(op.operationId, check, message, exchange, decision);
}

function errorModelDecision(doc: JsonObject, errors: DocumentedResponse[]): string | undefined {
  for (const { response } of errors) {
    const content = isObject(response.content) ? response.content : {};
    for (const media of Object.values(content)) {
      const schema = isObject(media) ? media.schema : undefined;
      const ref = isObject(schema) && typeof schema.$ref === 'string' ? schema.$ref : undefined;
      const resolved = ref?.startsWith('#') ? resolvePointer(doc, ref.slice(1)) : schema;
      const decision = RunContext.decisionOf(resolved);
      if (decision) return decision;
    }
  }
  return undefined;
}

function mostCommon(values: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}

function checkContentType(judge: Judge, op: ContractOperation, exchange: Exchange, documented: DocumentedResponse): void {
  const check = 'content_type_conformance';
  const response = exchange.response!;
  const content = contentOf(documented);
  const actual = mediaTypeOf(response.headers['content-type']);
  const what = describeExchange(exchange);
  const decision = RunContext.decisionOf(documented.response);
  if (!content) {
    if (response.body.length === 0) judge.pass(op.operationId, check, 'every media type is documented', exchange);
    else judge.depart(op.operationId, check, `${what}: a body (${actual ?? 'no Content-Type'}) where the contract documents none`, exchange, decision);
    return;
  }
  const types = Object.keys(content);
  const match = actual ? types.find((t) => mediaTypeMatches(t, actual)) : undefined;
  if (match) {
    judge.pass(op.operationId, check, 'every media type is documented', exchange);
    return;
  }
  // A mismatch on a response object the contract decided (errors, D02) is a departure from
  // that decision; on a seed response (a success, whose body the seed says is JSON) it fails.
  judge.depart(op.operationId, check, `${what}: Content-Type ${actual ?? '(none)'}, documented ${types.join(' or ')}`, exchange, decision);
}

/** The decision that errors are RFC 9457 problems, whose `status` member is the answer's status. */
export const problemDecision = 'D02';

/**
 * The `status` member of a problem body (`application/problem+json`) when it is a number other
 * than the answer's status; undefined when it matches, is absent or is not a number (the schema
 * says what it must be), or the body is not a problem.
 */
export function problemStatusMismatch(response: { status: number; headers: Record<string, string> }, body: unknown): number | undefined {
  if (!/^application\/problem\+json\b/i.test(response.headers['content-type'] ?? '')) return undefined;
  if (!isObject(body) || typeof body.status !== 'number') return undefined;
  return body.status === response.status ? undefined : body.status;
}

/** The decision on the form timestamps are written in: RFC 3339, UTC, milliseconds, `Z`. */
export const timestampDecision = 'D35';
const writtenTimestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The instant of an RFC 3339 date-time as the contract writes it, or the text itself when it is no date. */
function utcForm(value: string): string {
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
}

/**
 * The strings of `body` at a `format: date-time` of the schema at `pointer` (through `$ref`s,
 * compositions, items and properties) not written as D35 writes them (`2026-11-21T14:30:00.000Z`),
 * each with its place (a JSON Pointer), in the body's order.
 */
export function timestampsOffForm(contract: JsonObject, pointer: string, body: unknown): Array<{ at: string; value: string }> {
  const found = new Map<string, string>();
  const visit = (schema: unknown, value: unknown, at: string, depth: number): void => {
    if (depth > 64) return;
    const { node } = followRef(contract, schema, pointer);
    if (!isObject(node)) return;
    if (node.format === 'date-time' && typeof value === 'string' && !writtenTimestamp.test(value)) found.set(at, value);
    for (const keyword of composing) if (Array.isArray(node[keyword])) for (const branch of node[keyword] as unknown[]) visit(branch, value, at, depth + 1);
    if (isObject(value) && isObject(node.properties))
      for (const [key, child] of Object.entries(node.properties)) if (key in value) visit(child, value[key], `${at}/${escapeToken(key)}`, depth + 1);
    if (Array.isArray(value) && isObject(node.items)) for (const [i, item] of value.entries()) visit(node.items, item, `${at}/${i}`, depth + 1);
  };
  visit(resolvePointer(contract, pointer), body, '', 0);
  return [...found].map(([at, value]) => ({ at, value }));
}

/** The member that carries a signing secret, and the decision that only the create returns it. */
export const secretName = 'secret';
export const secretDecision = 'D40';

/** True when the schema at `pointer` (through `$ref`s, compositions, items and properties) declares a property `name`. */
export function declaresProperty(contract: JsonObject, pointer: string, name: string): boolean {
  const seen = new Set<unknown>();
  const visit = (value: unknown, at: string): boolean => {
    const { node, pointer: here } = followRef(contract, value, at);
    if (!isObject(node) || seen.has(node)) return false;
    seen.add(node);
    const properties = node.properties;
    if (isObject(properties) && name in properties) return true;
    const children: Array<[unknown, string]> = [];
    if (isObject(properties)) for (const [key, child] of Object.entries(properties)) children.push([child, `${here}/properties/${escapeToken(key)}`]);
    for (const keyword of composing)
      if (Array.isArray(node[keyword])) for (const [i, child] of (node[keyword] as unknown[]).entries()) children.push([child, `${here}/${keyword}/${i}`]);
    for (const keyword of ['items', 'additionalProperties']) if (isObject(node[keyword])) children.push([node[keyword], `${here}/${keyword}`]);
    return children.some(([child, at]) => visit(child, at));
  };
  return visit(resolvePointer(contract, pointer), pointer);
}

/**
 * Where `body` carries a `secret` member that the answer's documented schema does not declare
 * (a JSON Pointer; `''` for the top level), or undefined.
 */
export function undeclaredSecret(contract: JsonObject, pointer: string, body: unknown): string | undefined {
  const find = (value: unknown, at: string): string | undefined => {
    if (Array.isArray(value)) {
      for (const [i, item] of value.entries()) {
        const found = find(item, `${at}/${i}`);
        if (found !== undefined) return found;
      }
    } else if (isObject(value)) {
      if (secretName in value) return at;
      for (const [key, child] of Object.entries(value)) {
        const found = find(child, `${at}/${escapeToken(key)}`);
        if (found !== undefined) return found;
      }
    }
    return undefined;
  };
  const at = find(body, '');
  return at === undefined || declaresProperty(contract, pointer, secretName) ? undefined : at;
}

function checkSchema(ctx: RunContext, judge: Judge, op: ContractOperation, exchange: Exchange, documented: DocumentedResponse): void {
  const check = 'response_schema_conformance';
  const response = exchange.response!;
  const pointer = schemaPointerFor(documented, response.headers['content-type']);
  if (!pointer) return;
  const what = describeExchange(exchange);
  const responseDecision = RunContext.decisionOf(documented.response);
  let body: unknown;
  try {
    body = JSON.parse(response.body);
  } catch {
    const shown = response.body.length === 0 ? 'an empty body' : `a body that is not JSON (${JSON.stringify(response.body.slice(0, 40))})`;
    judge.depart(op.operationId, check, `${what}: ${shown}`, exchange, responseDecision);
    return;
  }
  const verdict = validateBoth(ctx, pointer, body);
  const statusMember = problemStatusMismatch(response, body);
  if (statusMember !== undefined) {
    // The Problem schema: `status` is the HTTP status code of this response (D02).
    judge.depart(
      op.operationId,
      check,
      `${what}: the problem's \`status\` member is ${statusMember}, not the answer's status ${response.status} (a problem's \`status\` is the HTTP status of its response, D02)`,
      exchange,
      problemDecision,
    );
  }
  const timestamps = timestampsOffForm(ctx.contract, pointer, body);
  if (timestamps.length > 0) {
    const [first] = timestamps;
    const others = timestamps.length > 1 ? `, and ${timestamps.length - 1} more` : '';
    // The values go to the detail: the message is the same on every answer, so one fault is one finding.
    judge.depart(
      op.operationId,
      check,
      `${what}: timestamps not written in UTC with milliseconds and Z, as 2026-11-21T14:30:00.000Z (D35)`,
      exchange,
      timestampDecision,
      `\`${first!.at}\` is ${JSON.stringify(first!.value)}, which D35 writes ${JSON.stringify(utcForm(first!.value))}${others}`,
    );
  }
  const secretAt = undeclaredSecret(ctx.contract, pointer, body);
  if (secretAt !== undefined) {
    // A signing secret is returned only by the request that creates it (D40): the schemas of reads,
    // lists and updates do not declare one, and a body that carries one anyway leaks it.
    judge.depart(
      op.operationId,
      check,
      `${what}: a \`${secretName}\` member (at ${secretAt || '/'}) where the documented schema has none; a signing secret is returned only by the request that creates it (D40)`,
      exchange,
      secretDecision,
    );
  }
  if (verdict.ok) {
    if (statusMember === undefined && secretAt === undefined && timestamps.length === 0)
      judge.pass(op.operationId, check, 'every body matches its schema', exchange);
  } else if (verdict.seedErrors.length > 0) {
    // Wrong even for the seed; unless the whole response object is a decision (an error, D02).
    judge.depart(op.operationId, check, `${what}: ${describeErrors(verdict.seedErrors)}`, exchange, responseDecision, errorPlaces(verdict.seedErrors));
  } else {
    const decision = verdict.decisions.join(', ') || unnamedDecision;
    judge.depart(op.operationId, check, `${what}: ${describeErrors(verdict.errors)}`, exchange, decision, errorPlaces(verdict.errors));
  }
}

/** Header values are strings; a schema of another type sees the value that string stands for. */
function headerValue(schema: unknown, raw: string): unknown {
  const type = isObject(schema) ? schema.type : undefined;
  if ((type === 'integer' || type === 'number') && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

function checkHeaders(ctx: RunContext, judge: Judge, op: ContractOperation, exchange: Exchange, documented: DocumentedResponse): void {
  const check = 'response_headers_conformance';
  const headers = isObject(documented.response.headers) ? documented.response.headers : {};
  const what = describeExchange(exchange);
  let looked = false;
  let ok = true;
  for (const [name, raw] of Object.entries(headers)) {
    if (name.toLowerCase() === 'content-type') continue; // OpenAPI ignores it here
    const { node, pointer } = followRef(ctx.contract, raw, `${documented.pointer}/headers/${escapeToken(name)}`);
    if (!isObject(node)) continue;
    const decision = RunContext.decisionOf(node) ?? RunContext.decisionOf(documented.response);
    const value = exchange.response!.headers[name.toLowerCase()];
    if (value === undefined) {
      if (node.required === true) {
        looked = true;
        ok = false;
        judge.depart(op.operationId, check, `${what}: required header ${name} is missing`, exchange, decision);
      }
      continue;
    }
    looked = true;
    if (!('schema' in node)) continue;
    const schemaPointer = `${pointer}/schema`;
    const { node: schema } = followRef(ctx.contract, node.schema, schemaPointer);
    const verdict = validateBoth(ctx, schemaPointer, headerValue(schema, value));
    if (verdict.ok) continue;
    ok = false;
    const seedBroken = verdict.seedErrors.length > 0;
    const message = `${what}: header ${name}: ${JSON.stringify(value)} ${describeErrors(seedBroken ? verdict.seedErrors : verdict.errors).replace(/^\/ /, '')}`;
    judge.depart(op.operationId, check, message, exchange, seedBroken ? decision : (decision ?? (verdict.decisions.join(', ') || unnamedDecision)));
  }
  if (looked && ok) judge.pass(op.operationId, check, 'every documented header is present and valid', exchange);
}

/** The decision that every answer says `X-Content-Type-Options: nosniff` (not marked on any operation: it holds for all alike). */
export const nosniffDecision = 'D50';

/**
 * D50: every answer, success or problem, documented status or not, carries
 * `X-Content-Type-Options: nosniff`, so no browser reads a JSON body or a problem echoing input as
 * a script or a page. Its other headers are the HTML pages', which no operation of the contract serves.
 */
function checkSecurityHeaders(judge: Judge, op: ContractOperation, exchange: Exchange): void {
  const check = 'response_headers_conformance';
  const value = exchange.response!.headers['x-content-type-options'];
  if (value?.trim().toLowerCase() === 'nosniff') {
    judge.pass(op.operationId, check, 'every answer carries X-Content-Type-Options: nosniff', exchange);
    return;
  }
  const found = value === undefined ? 'no X-Content-Type-Options header' : `X-Content-Type-Options ${JSON.stringify(value)}`;
  judge.depart(op.operationId, check, `${describeExchange(exchange)}: ${found}; every answer says nosniff (${nosniffDecision})`, exchange, nosniffDecision);
}

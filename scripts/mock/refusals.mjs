// Turns what Prism answers when it refuses a request into the contract's Problem (D02).
//
// Prism validates requests properly but answers an invalid one with the contract's first
// example for the status it picks (a 422 naming /total whatever was wrong); the real findings
// are only in its `sl-violations` header. Its own errors (no such path, no such method, a body
// that is not JSON) have Prism's shape, not the contract's. This module rebuilds the body from
// what Prism found, reading problem types and titles from the contract itself.

import { STATUS_CODES } from 'node:http';
import { cut, MAX_ECHO, placeOf, validationFields } from '../../lib/problems/field-errors.mjs';
import { instanceOf as instanceOfPath } from '../../lib/problems/instance.mjs';

/** Longest `detail` (D49: the contract's `maxLength`). */
const MAX_DETAIL = 2048;

/**
 * @param {object} doc the bundled contract, parsed
 * @returns {Rewrite} `undefined`: pass Prism's answer on as it is
 *
 * @typedef {((request: MockRequest, answer: PrismAnswer) => Refusal | undefined) & { refuse: (request: MockRequest, status: number, detail: string | undefined, errors?: FieldError[]) => Refusal }} Rewrite
 *   `refuse`: a refusal of the front's own (Prism never saw the request, or not its body), of the
 *   contract's type for the status; with `errors`, they are listed (and say the `detail` when it is undefined)
 * @typedef {import('../../lib/contract/ajv.js').FieldError} FieldError
 * @typedef {{ errors: FieldError[], omitted: number }} BoundsReport
 * @typedef {{ method: string, target: string, headers: Record<string, string | string[] | undefined>, bounds?: BoundsReport, malformedIds?: MalformedId[], names?: Map<string, string> }} MockRequest
 *   `bounds`: the size bounds the body broke (scripts/mock/bounds.ts); Prism was sent the body cut past them;
 *   `malformedIds`: the ids of the path not of their kind's form (scripts/mock/path-ids.ts);
 *   `names`: member names of the body Prism was given stand-ins for (stand-in → name; front.mjs)
 * @typedef {import('../path-ids.ts').MalformedId} MalformedId
 * @typedef {{ status: number, headers: Record<string, string | string[] | undefined>, text: string }} PrismAnswer
 * @typedef {{ status: number, problem: Record<string, unknown>, headers: Record<string, string> }} Refusal
 */
export function refusalRewriter(doc) {
  const typesByStatus = problemTable(doc);
  const knownTypes = new Set([...typesByStatus.values()].flat());
  const titles = problemTitles(doc);
  const headerNames = headerParameterNames(doc);
  const apiKeyHeaders = apiKeyHeaderNames(doc);
  const routeOf = routes(doc);

  const isContractProblem = (body, status) =>
    isObject(body) && knownTypes.has(body.type) && body.status === status && typeof body.title === 'string' && typeof body.detail === 'string';

  /** Type and title of a problem of this status: Prism's (the contract's example) when it is the contract's, else the contract's table. */
  function kindOf(status, prismBody) {
    if (isContractProblem(prismBody, status)) return { type: prismBody.type, title: prismBody.title };
    const type = typesByStatus.get(status)?.[0] ?? (isObject(prismBody) && typeof prismBody.type === 'string' ? prismBody.type : 'about:blank');
    return { type, title: titles.get(type) ?? STATUS_CODES[status] ?? 'Error' };
  }

  function rewrite(request, answer) {
    const bounds = breaches(request.bounds);
    if (answer.status < 400 && !bounds) return undefined;
    const prismBody = parseJson(answer.text);
    const malformed = request.malformedIds ?? [];
    const found = requestViolations(answer.headers['sl-violations'], prismBody);
    // A path id not of its kind's form is not a field error: the server answers 404 for it, once
    // nothing else is wrong with the request (D27, D49), and lists it nowhere.
    const ofIds = (v) => v.location[1] === 'path' && malformed.some((m) => String(v.location[2]) === m.parameter);
    const violations = foldEitherOr(
      doc,
      bodySchemaOf(doc, routeOf, request.method, request.target),
      found.filter((v) => !ofIds(v)),
    );
    if (malformed.length > 0 && !bounds && violations.length === 0 && [400, 404, 422].includes(answer.status)) {
      const [first] = malformed;
      return refuse(request, 404, `No ${first.record} with id ${cut(first.id, MAX_ECHO)} exists for this company.`);
    }
    const instance = instanceOf(request.target);
    const base = (detail, extra = {}) => ({ ...kindOf(answer.status, prismBody), status: answer.status, detail: cut(detail, MAX_DETAIL), instance, ...extra });

    // A body past its size bounds is refused whatever Prism made of the rest: Prism saw it cut
    // (arrays to one item past `maxItems`…), so it cannot have accepted it, but the body sent
    // was not the one it saw.
    if (bounds && answer.status < 400) return refuse(request, 422, validationFields(bounds.errors, bounds.omitted).detail, bounds);

    if (violations.length > 0 || (bounds && answer.status === 422)) {
      let errors = dedupe(violations.filter((v) => v.location.length > 1).map((v) => fieldError(v, headerNames, request.names)));
      const general = violations.filter((v) => v.location.length === 1);
      if (answer.status === 401) return { status: 401, problem: base(unauthorizedDetail(request, apiKeyHeaders, general)), headers: {} };
      if (answer.status === 415) return { status: 415, problem: base(mediaTypeDetail(request, general)), headers: {} };
      let omitted = 0;
      if (bounds && answer.status === 422) {
        // As the reference server lists them: the size bounds first, in their words (with the
        // real size), then what else Prism found in the cut body; the fields cut away are counted.
        const breached = new Set(bounds.errors.map((e) => `${e.pointer}\u0000${e.keyword}`));
        errors = [...bounds.errors, ...errors.filter((e) => !breached.has(`${e.pointer}\u0000${e.keyword}`))];
        omitted = bounds.omitted;
      }
      const parts = [];
      const fields = validationFields(errors, omitted);
      const listed = errors.length > 0 || omitted > 0;
      if (listed) parts.push(fields.detail);
      for (const v of general.slice(0, 5)) parts.push(sentence(v.message));
      const extra = listed ? { errors: fields.errors, ...(fields.omittedErrors > 0 ? { omittedErrors: fields.omittedErrors } : {}) } : {};
      return { status: answer.status, problem: base(cut(parts.join(' '), 2048), extra), headers: {} };
    }

    if (isContractProblem(prismBody, answer.status)) return undefined;

    // One of Prism's own errors (no route, no method, unparseable body, a contract example that
    // breaks its own schema…): the contract's problem type for the status, Prism's explanation.
    const headers = {};
    if (answer.status === 405) {
      const allowed = allowedMethods(routeOf, request.target);
      if (allowed.length > 0) headers.Allow = allowed.join(', ');
    }
    return { status: answer.status, problem: base(prismDetail(prismBody, answer.text, answer.status)), headers };
  }

  /**
   * A refusal of the front's own: the contract's problem type and title for the status; `bounds`
   * (the size bounds' field errors, or others) are listed, and say the `detail` when it is undefined.
   */
  function refuse(request, status, detail, bounds) {
    const kind = kindOf(status, undefined);
    const fields = bounds ? validationFields(bounds.errors, bounds.omitted) : undefined;
    const extra = fields ? { errors: fields.errors, ...(fields.omittedErrors > 0 ? { omittedErrors: fields.omittedErrors } : {}) } : {};
    const said = cut(detail ?? fields?.detail ?? STATUS_CODES[status] ?? 'Error', MAX_DETAIL);
    return { status, problem: { ...kind, status, detail: said, instance: instanceOf(request.target), ...extra }, headers: {} };
  }

  rewrite.refuse = (request, status, detail, errors) => refuse(request, status, detail, errors ? { errors, omitted: 0 } : undefined);
  return rewrite;

  // --- problem texts -----------------------------------------------------------------------

  function unauthorizedDetail(request, names, general) {
    const sent = names.filter((name) => request.headers[name.toLowerCase()] !== undefined);
    const list = names.join(' or ') || 'API key';
    const why = sent.length === 0 ? `No ${list} header was sent` : `The ${sent.join(', ')} header is empty`;
    const prism = general.map((v) => v.message).join('; ');
    return `${why}; the mock accepts any non-empty value${prism ? ` (Prism: ${prism})` : ''}.`;
  }
}

function mediaTypeDetail(request, general) {
  const sent = firstValue(request.headers['content-type']);
  const what = sent ? `The request body is ${cut(sent, MAX_ECHO)}` : 'The request body has no Content-Type';
  const prism = general.map((v) => v.message).join('; ');
  return `${what}${prism ? `; ${prism}` : ''}.`;
}

function prismDetail(body, text, status) {
  if (isObject(body)) {
    if (isObject(body.error) && body.error.code === 'invalid_json') {
      return `The request body is not valid JSON${typeof body.error.message === 'string' ? ` (Prism: ${body.error.message})` : ''}.`;
    }
    const detail = typeof body.detail === 'string' ? body.detail : typeof body.message === 'string' ? body.message : '';
    const findings = Array.isArray(body.validation) ? body.validation.filter(isObject).map((v) => `${locationText(v.location)}: ${v.message}`) : [];
    const all = [detail, ...findings].filter(Boolean);
    if (all.length > 0) return all.map(sentence).join(' ');
  }
  return text.trim() ? `Prism answered ${status}: ${text.trim().slice(0, 500)}` : `Prism answered ${status} without a body.`;
}

function locationText(location) {
  return Array.isArray(location) ? location.join('.') : 'response';
}

function sentence(text) {
  const trimmed = String(text).trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

// --- violations -> field errors ------------------------------------------------------------

/**
 * Prism's findings about the request that are errors (warnings do not refuse): its `sl-violations`
 * header, or where it made the answer up itself (no 422 documented: "Your request is not valid and
 * no HTTP validation response was found…"), the `validation` list of its body, located alike.
 */
function requestViolations(raw, prismBody) {
  const text = firstValue(raw);
  const own = isObject(prismBody) && Array.isArray(prismBody.validation) ? prismBody.validation : undefined;
  const parsed = text
    ? parseJson(text)
    : own
        ?.filter(isObject)
        .map((v) => ({ ...v, location: Array.isArray(v.location) && v.location[0] !== 'request' ? ['request', ...v.location] : v.location }));
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(
    (v) => isObject(v) && Array.isArray(v.location) && v.location[0] === 'request' && v.severity === 'Error' && typeof v.message === 'string',
  );
}

/**
 * Ajv reports an unmet either-or rule (`anyOf: [{required: [total]}, {required: [items]}]`) as
 * each alternative missing plus "must match a schema in anyOf". Only the last is true: neither
 * member is required by itself. Where the contract's schema shows such a rule, the alternatives'
 * `required` entries are folded into one entry naming them, as the reference server does.
 */
function foldEitherOr(doc, bodySchema, violations) {
  if (!bodySchema) return violations;
  const dropped = new Set();
  const folded = violations.map((v) => {
    if (v.code !== 'anyOf' || v.location[1] !== 'body') return v;
    const at = schemaAt(doc, bodySchema, v.location.slice(2));
    const alternatives = eitherOrNames(doc, at);
    if (alternatives.length === 0) return v;
    const own = new Set(requiredOf(doc, at));
    for (const other of violations) {
      const name = other.code === 'required' && /required property '([^']*)'/.exec(other.message)?.[1];
      if (name && alternatives.includes(name) && !own.has(name) && sameLocation(other.location, v.location)) dropped.add(other);
    }
    return { ...v, message: `must have at least one of: ${alternatives.join(', ')}` };
  });
  return folded.filter((v) => !dropped.has(v));
}

function sameLocation(a, b) {
  return a.length === b.length && a.every((part, i) => String(part) === String(b[i]));
}

/**
 * One ProblemFieldError: `pointer` into the body, or the `parameter` / `header` it is about.
 * `names`: the member names the front gave Prism in place of the body's own (stand-in → name).
 */
function fieldError(violation, headerNames, names = new Map()) {
  const [, where, ...rest] = violation.location.map(String);
  const keyword = typeof violation.code === 'string' ? violation.code : undefined;
  let detail = predicate(violation.message);
  const path = [...rest];
  // Ajv reports a missing or unknown member at its parent; the error belongs to the member.
  const missing = keyword === 'required' && /required property '([^']*)'/.exec(violation.message);
  const unknown = keyword === 'additionalProperties' && /found '([^']*)'/.exec(violation.message);
  if (missing) {
    path.push(missing[1]);
    detail = 'is required';
  } else if (unknown) {
    path.push(unknown[1]);
    detail = 'is not a field of this request';
  }
  const error =
    where === 'body'
      ? { pointer: path.map((token) => `/${escapePointer(names.get(token) ?? token)}`).join('') }
      : where === 'header'
        ? { header: headerNames.get(String(path[0]).toLowerCase()) ?? path[0] ?? '' }
        : { parameter: path[0] ?? '' };
  return { ...error, detail, ...(keyword ? { keyword } : {}) };
}

/** "Request body property customer.taxId must match …" -> "must match …": the subject is the pointer. */
function predicate(message) {
  const at = message.search(/\b(?:must|should)\b/);
  return at > 0 ? message.slice(at) : message;
}

function dedupe(errors) {
  const seen = new Set();
  return errors.filter((e) => {
    const key = `${placeOf(e)}\u0000${e.detail}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function escapePointer(token) {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A problem's `instance` for a request target: its path without the query, as the reference server gives it (cut alike). */
export function instanceOf(target) {
  return instanceOfPath(String(target).split('?')[0] || '/');
}

// --- what the contract says ----------------------------------------------------------------

/** Problem types by status, from the table in the Problem schema's description (D02). */
function problemTable(doc) {
  const description = String(doc?.components?.schemas?.Problem?.description ?? '');
  const table = new Map();
  for (const [, type, status] of description.matchAll(/^\|\s*`([^`]+)`\s*\|\s*(\d{3})\s*\|/gm)) {
    const code = Number(status);
    table.set(code, [...(table.get(code) ?? []), type]);
  }
  return table;
}

/** The title the contract's examples give each problem type. */
function problemTitles(doc) {
  const titles = new Map();
  walk(doc, (node) => {
    if (
      typeof node.type === 'string' &&
      node.type.startsWith('/problems/') &&
      typeof node.title === 'string' &&
      typeof node.status === 'number' &&
      !titles.has(node.type)
    ) {
      titles.set(node.type, node.title);
    }
  });
  return titles;
}

/** Header parameter names as the contract spells them, by lower case (Prism reports them lower-cased). */
function headerParameterNames(doc) {
  const names = new Map();
  walk(doc, (node) => {
    if (node.in === 'header' && typeof node.name === 'string') names.set(node.name.toLowerCase(), node.name);
  });
  return names;
}

function apiKeyHeaderNames(doc) {
  return Object.values(doc?.components?.securitySchemes ?? {})
    .filter((s) => isObject(s) && s.type === 'apiKey' && s.in === 'header' && typeof s.name === 'string')
    .map((s) => s.name);
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** The contract's path items, each with a pattern matching the request paths of its template. */
function routes(doc) {
  const table = Object.entries(doc?.paths ?? {}).map(([path, item]) => ({
    pattern: new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    item: deref(doc, item) ?? {},
  }));
  return (target) => {
    const path = String(target).split('?')[0];
    return table.find((route) => route.pattern.test(path))?.item;
  };
}

/** The methods the path of a request has (for `Allow`). */
function allowedMethods(routeOf, target) {
  const item = routeOf(target) ?? {};
  return METHODS.filter((m) => isObject(item[m])).map((m) => m.toUpperCase());
}

/** The JSON request body schema of the operation a request is for. */
function bodySchemaOf(doc, routeOf, method, target) {
  const body = deref(doc, routeOf(target)?.[String(method).toLowerCase()]?.requestBody);
  return deref(doc, body?.content?.['application/json']?.schema);
}

/** The subschema that validates the body member at `path` (properties, items, through `$ref` and `allOf`). */
function schemaAt(doc, schema, path) {
  let current = deref(doc, schema);
  for (const token of path) {
    current = memberSchema(doc, current, String(token));
    if (!current) return undefined;
  }
  return current;
}

function memberSchema(doc, schema, token) {
  if (!isObject(schema)) return undefined;
  const direct =
    isObject(schema.properties) && token in schema.properties
      ? schema.properties[token]
      : /^\d+$/.test(token) && isObject(schema.items)
        ? schema.items
        : undefined;
  if (direct) return deref(doc, direct);
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
    const found = memberSchema(doc, deref(doc, part), token);
    if (found) return found;
  }
  return undefined;
}

/** Member names of `anyOf` groups whose every branch only requires members (the either-or rules). */
function eitherOrNames(doc, schema) {
  if (!isObject(schema)) return [];
  const names = [];
  const groups = [schema.anyOf, ...(Array.isArray(schema.allOf) ? schema.allOf.map((part) => deref(doc, part)?.anyOf) : [])];
  for (const group of groups) {
    if (!Array.isArray(group)) continue;
    const branches = group.map((branch) => deref(doc, branch));
    if (!branches.every((b) => isObject(b) && Array.isArray(b.required) && Object.keys(b).every((k) => k === 'required' || k === 'description'))) continue;
    for (const branch of branches) names.push(...branch.required);
  }
  return [...new Set(names)];
}

function requiredOf(doc, schema) {
  if (!isObject(schema)) return [];
  const parts = Array.isArray(schema.allOf) ? schema.allOf.map((part) => requiredOf(doc, deref(doc, part))) : [];
  return [...(Array.isArray(schema.required) ? schema.required : []), ...parts.flat()];
}

/** Follows local `$ref`s (`#/…`) of the bundled contract. */
function deref(doc, value) {
  let current = value;
  for (let i = 0; i < 32 && isObject(current) && typeof current.$ref === 'string'; i++) {
    if (!current.$ref.startsWith('#/')) return undefined;
    current = current.$ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node, key) => (isObject(node) || Array.isArray(node) ? node[key] : undefined), doc);
  }
  return current;
}

// --- small helpers -------------------------------------------------------------------------

/** The report of a body that broke a size bound; undefined when it broke none. */
function breaches(report) {
  return report && (report.errors.length > 0 || report.omitted > 0) ? report : undefined;
}

function walk(node, visit, depth = 0) {
  if (depth > 64 || !node || typeof node !== 'object') return;
  if (!Array.isArray(node)) visit(node);
  for (const value of Object.values(node)) walk(value, visit, depth + 1);
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function firstValue(value) {
  return Array.isArray(value) ? value[0] : value;
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

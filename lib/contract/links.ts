import { deref, isJsonObject, listOperations, resolvePointer, type ContractOperation, type JsonObject } from './bundled.js';

/**
 * The relations "created by → read by / used by" between operations, as the contract states
 * them: the OpenAPI Link Objects on the success responses of the creating operations. A new
 * operation is checked by the conformance suite as soon as the contract links it; no list of
 * operationIds in code.
 *
 * Runtime expressions are `$response.body#/json-pointer` (OpenAPI 3.1 §4.8.20.4), whole or
 * embedded in a string as `{$response.body#/…}`; others are not used by this contract.
 */
export interface ContractLink {
  /** The link's name on the response, e.g. `ReadCharge`. */
  name: string;
  /** The creating operation, and the success status whose response carries the link. */
  source: ContractOperation;
  status: string;
  /** The linked operation. */
  target: ContractOperation;
  /** Path (or other) parameters of the target, as runtime expressions or literals. */
  parameters: Record<string, unknown>;
  /** The part of the target's request body the source's record fills, when the link has one. */
  requestBody?: unknown;
  /**
   * `x-created-with`: request-body values the source's record must have been created with for
   * the link to hold (a subscription bills a product created with `isSubscription: true`).
   * OpenAPI links cannot say anything about the source's request; this extension does.
   */
  createdWith?: JsonObject;
}

/**
 * What the target does with the source's record:
 * - `read`: a `GET` naming it by a path parameter;
 * - `list`: a `GET` without parameters whose answer includes it;
 * - `use`: a create (`POST`) whose body names it;
 * - `change`: any other operation naming it (by path or body), e.g. an update, a delete, a move.
 */
export type LinkRole = 'read' | 'list' | 'use' | 'change';

export function linkRole(link: ContractLink): LinkRole {
  const named = Object.keys(link.parameters).length > 0;
  if (link.target.method === 'get') return named ? 'read' : 'list';
  if (link.target.method === 'post' && !named && link.requestBody !== undefined) return 'use';
  return 'change';
}

/** Every link of the contract, in the order of its operations and their responses. */
export function listLinks(doc: JsonObject): ContractLink[] {
  const operations = listOperations(doc);
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const links: ContractLink[] = [];
  for (const source of operations) {
    const responses = (source.operation.responses ?? {}) as JsonObject;
    for (const [status, value] of Object.entries(responses)) {
      if (!/^2\d\d$/.test(status)) continue;
      const response = deref(doc, value);
      for (const [name, linkValue] of Object.entries((response.links ?? {}) as JsonObject)) {
        const link = deref(doc, linkValue);
        const target = typeof link.operationId === 'string' ? byId.get(link.operationId) : undefined;
        if (!target) throw new Error(`${source.operationId} ${status} link ${name} names no operation of the contract (${String(link.operationId)})`);
        links.push({
          name,
          source,
          status,
          target,
          parameters: (link.parameters ?? {}) as Record<string, unknown>,
          ...(link.requestBody !== undefined ? { requestBody: link.requestBody } : {}),
          ...(isJsonObject(link['x-created-with']) ? { createdWith: link['x-created-with'] } : {}),
        });
      }
    }
  }
  return links;
}

const wholeExpression = /^\$response\.body(#.*)?$/;
const embeddedExpression = /\{(\$response\.body(?:#[^}]*)?)\}/g;
const loneEmbeddedExpression = /^\{(\$response\.body[^}]*)\}$/;

/**
 * A place in the target's request body that a link fills from the source's answer: the steps
 * to it (an array index of the link's body stands for every item of the array the target
 * gets), and the runtime expression that fills it.
 */
export interface LinkedField {
  path: Array<string | number>;
  expression: string;
}

/** The fields of the target's request body the link fills with the source's values (its literals are examples, not links). */
export function linkedFields(link: ContractLink): LinkedField[] {
  const found: LinkedField[] = [];
  const visit = (node: unknown, path: Array<string | number>): void => {
    if (typeof node === 'string') {
      const expression = wholeExpression.test(node) ? node : loneEmbeddedExpression.exec(node)?.[1];
      if (expression) found.push({ path, expression });
    } else if (Array.isArray(node))
      node.forEach((item, i) => {
        visit(item, [...path, i]);
      });
    else if (isJsonObject(node)) for (const [key, value] of Object.entries(node)) visit(value, [...path, key]);
  };
  if (link.requestBody !== undefined) visit(link.requestBody, []);
  return found;
}

function evaluate(expression: string, body: unknown): unknown {
  const pointer = expression.slice('$response.body'.length).replace(/^#/, '');
  return pointer === '' ? body : resolvePointer(body, pointer);
}

/**
 * A link's value (parameter or request body) with its runtime expressions evaluated against
 * the source's response body; undefined when an expression finds nothing there.
 */
export function resolveLinkValue(value: unknown, responseBody: unknown): unknown {
  if (typeof value === 'string') {
    if (wholeExpression.test(value)) return evaluate(value, responseBody);
    let missing = false;
    const text = value.replace(embeddedExpression, (_m, expression: string) => {
      const found = evaluate(expression, responseBody);
      if (found === undefined) missing = true;
      return String(found);
    });
    // A value that is one embedded expression keeps the type of what it names.
    const only = loneEmbeddedExpression.exec(value);
    if (only) return evaluate(only[1]!, responseBody);
    return missing ? undefined : text;
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => resolveLinkValue(item, responseBody));
    return items.includes(undefined) ? undefined : items;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).map(([key, item]) => [key, resolveLinkValue(item, responseBody)] as const);
    return entries.some(([, item]) => item === undefined) ? undefined : Object.fromEntries(entries);
  }
  return value;
}

/** The target's parameters for a record the source answered with; undefined when one cannot be found. */
export function linkParameters(link: ContractLink, responseBody: unknown): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (const [name, expression] of Object.entries(link.parameters)) {
    const value = resolveLinkValue(expression, responseBody);
    if (value === undefined || value === null || typeof value === 'object') return undefined;
    // `path.id` and `id` name the same path parameter (OpenAPI 3.1 Link Object `parameters`).
    params[name.replace(/^path\./, '')] = String(value);
  }
  return params;
}

/**
 * The identifier of the record a response created: the value the source's links name it by
 * (the first path parameter, else the first string of the request body they fill).
 */
export function linkedIdOf(links: readonly ContractLink[], responseBody: unknown): string | undefined {
  for (const link of links) {
    const first = Object.values(link.parameters)[0];
    const value = first !== undefined ? resolveLinkValue(first, responseBody) : firstString(resolveLinkValue(link.requestBody, responseBody));
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * The runtime expression the source's links name the record it created by, as `linkedIdOf`
 * finds its value (the first path parameter, else the first field of a request body they fill):
 * `$response.body#/data/id` for a payment link. Undefined when the links name none.
 */
export function linkedIdExpression(links: readonly ContractLink[]): string | undefined {
  for (const link of links) {
    const first = Object.values(link.parameters)[0];
    if (typeof first === 'string' && wholeExpression.test(first)) return first;
    const field = linkedFields(link)[0];
    if (field) return field.expression;
  }
  return undefined;
}

function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(firstString).find((v) => v !== undefined);
  if (value && typeof value === 'object')
    return Object.values(value)
      .map(firstString)
      .find((v) => v !== undefined);
  return undefined;
}

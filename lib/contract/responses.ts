/**
 * The responses an operation documents, read from the contract: the one lookup of a documented
 * response (exact status, its range, `default`) and of the schema that judges a body, for the
 * server's response check in tests and the conformance suite.
 */
import { followRef, type ContractOperation, type JsonObject, isJsonObject as isObject } from './bundled.js';
import { escapeToken, toPointer } from './pointer.js';

/** The pointer of an operation object: `/paths/~1charge~1{id}/get`. */
export function operationPointer(op: ContractOperation): string {
  return `${toPointer(['paths', op.path])}/${op.method}`;
}

export interface DocumentedResponse {
  /** The key it is documented under: `201`, `4XX` or `default`. */
  key: string;
  /** The response object, `$ref` followed. */
  response: JsonObject;
  /** The JSON Pointer of that response object. */
  pointer: string;
}

/** Every response the operation documents, in document order. */
export function documentedResponses(doc: JsonObject, op: ContractOperation): DocumentedResponse[] {
  const responses = isObject(op.operation.responses) ? op.operation.responses : {};
  return Object.entries(responses).flatMap(([key, raw]) => {
    const { node, pointer } = followRef(doc, raw, `${operationPointer(op)}/responses/${escapeToken(key)}`);
    return isObject(node) ? [{ key, response: node, pointer }] : [];
  });
}

/** The response documented for `status`: the exact code, else its range (`4XX`), else `default`. */
export function documentedResponse(doc: JsonObject, op: ContractOperation, status: number): DocumentedResponse | undefined {
  return documentedResponseIn(documentedResponses(doc, op), status);
}

/** The same, among responses already read (`documentedResponses`). */
export function documentedResponseIn(all: readonly DocumentedResponse[], status: number): DocumentedResponse | undefined {
  return all.find((r) => r.key === String(status)) ?? all.find((r) => r.key.toUpperCase() === `${String(status)[0]}XX`) ?? all.find((r) => r.key === 'default');
}

/** The media type of a Content-Type value, lower case, without parameters. */
export function mediaTypeOf(contentType: string | undefined): string | undefined {
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return type ? type : undefined;
}

export function mediaTypeMatches(documented: string, actual: string): boolean {
  const d = documented.toLowerCase();
  if (d === actual || d === '*/*') return true;
  return d.endsWith('/*') && actual.startsWith(d.slice(0, -1));
}

export function contentOf(documented: DocumentedResponse): JsonObject | undefined {
  const content = documented.response.content;
  return isObject(content) && Object.keys(content).length > 0 ? content : undefined;
}

/** The documented media type whose schema judges this response: the one matching its Content-Type, else the first JSON one. */
export function schemaPointerFor(documented: DocumentedResponse, contentType: string | undefined): string | undefined {
  const content = contentOf(documented);
  if (!content) return undefined;
  const types = Object.keys(content);
  const actual = mediaTypeOf(contentType);
  const type = (actual ? types.find((t) => mediaTypeMatches(t, actual)) : undefined) ?? types.find((t) => /json/i.test(t)) ?? types[0];
  if (type === undefined || !isObject(content[type]) || !('schema' in content[type])) return undefined;
  return `${documented.pointer}/content/${escapeToken(type)}/schema`;
}

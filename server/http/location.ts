import { deref, type JsonObject } from '../../lib/contract/bundled.js';
import { linkParameters, linkRole, listLinks } from '../../lib/contract/links.js';
import { fillPath } from '../../lib/contract/paths.js';

type LocationRule = (status: number, body: unknown) => string | undefined;

/**
 * The `Location` of what an operation created, as the contract says it: a success response that
 * declares a `Location` header points at the record through its `read` link (`createPaymentLink`
 * 201 → `getCharge` `/charge/{id}`). Undefined for an operation whose responses declare none.
 * The contract's links are listed once for all its operations (a walk of the whole contract).
 */
export function locationRules(doc: JsonObject): (operationId: string) => LocationRule | undefined {
  const links = listLinks(doc);
  return (operationId) => locationRule(doc, links, operationId);
}

function locationRule(doc: JsonObject, links: ReturnType<typeof listLinks>, operationId: string): LocationRule | undefined {
  const reads = new Map<number, ReturnType<typeof listLinks>[number]>();
  for (const link of links) {
    if (link.source.operationId !== operationId || linkRole(link) !== 'read') continue;
    const response = deref<JsonObject>(doc, (link.source.operation.responses as JsonObject)[link.status]);
    const headers = (response.headers ?? {}) as JsonObject;
    if (Object.keys(headers).some((name) => name.toLowerCase() === 'location') && !reads.has(Number(link.status))) reads.set(Number(link.status), link);
  }
  if (reads.size === 0) return undefined;
  return (status, body) => {
    const link = reads.get(status);
    const params = link ? linkParameters(link, body) : undefined;
    return link && params ? fillPath(link.target.path, params) : undefined;
  };
}

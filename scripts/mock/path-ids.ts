/**
 * The id of a request's path, in the mock's answer to it. Prism answers with the contract's
 * examples, which name the examples' records (`GET /charge/char_abc` answered the charge
 * `char_ndvw…`, and `Prefer: code=404` said "No charge with id char_ndvw… exists"). For an
 * operation whose path holds an id of one of the contract's kinds (lib/contract/ids.ts), every id
 * of that kind in the answer becomes the path's: the charge read is the one asked for, and the 404
 * names it (the contract's examples of such an answer name only the path parameter's example,
 * test/contract/story.test.ts). A problem's `instance` gets the path segment as it was sent (the
 * request's URI reference, as the reference server's); any other text the id as decoded.
 *
 * TypeScript, like bounds.ts, loaded by scripts/mock.mjs through tsx; front.mjs applies it.
 */
import { deref, isJsonObject, type JsonObject, listOperations } from '../../lib/contract/bundled.js';
import { type IdKind, idKinds } from '../../lib/contract/ids.js';
import { pathParameters, pathPattern } from '../../lib/contract/paths.js';

/** Rewrites an answer's parsed JSON body for the request it answers. */
export type RenameIds = (body: unknown) => unknown;

/** The renaming of the answers to a request, from its method and target; undefined when its path holds no id of a kind. */
export function pathIdRenamer(contract: JsonObject): (method: string, target: string) => RenameIds | undefined {
  const routes = idRoutes(contract);
  return (method, target) => {
    const path = target.split('?')[0] ?? '';
    const route = routes.find((r) => r.method === method.toLowerCase() && r.pattern.test(path));
    if (!route) return undefined;
    const values = segmentsOf(route.template, path);
    const names = route.ids.map(({ index, kind }) => ({ kind, raw: values[index] ?? '', decoded: decoded(values[index] ?? '') }));
    return (body) => renamed(body, names, undefined);
  };
}

/** A path parameter that should hold an id of a kind and does not: the server's 404 names it (D27, D49). */
export interface MalformedId {
  /** The path parameter's name (`id`), as Prism reports its violation. */
  parameter: string;
  /** What the id would name, in words: `charge`, `payment link` (from the kind's schema, `ChargeId`, as the server reads it). */
  record: string;
  /** The id as decoded from the path, as the server reads it. */
  id: string;
}

/**
 * The path ids of a request that are not of their kind's form, in the order of the path; empty
 * when every id is well-formed (or the path holds none). The reference server answers a request
 * with such an id `404` "No charge with id … exists" once nothing else is wrong with it
 * (server/http/operations.ts); Prism answers a 422 of its own.
 */
export function malformedPathIds(contract: JsonObject): (method: string, target: string) => MalformedId[] {
  const routes = idRoutes(contract);
  return (method, target) => {
    const path = target.split('?')[0] ?? '';
    const route = routes.find((r) => r.method === method.toLowerCase() && r.pattern.test(path));
    if (!route) return [];
    const values = segmentsOf(route.template, path);
    return route.ids.flatMap(({ index, name, kind }) => {
      const id = decoded(values[index] ?? '');
      return kind.pattern.test(id) ? [] : [{ parameter: name, record: recordOf(kind), id }];
    });
  };
}

/** `ChargeId` → `charge`, `PaymentLinkId` → `payment link`: the server's words for the record of an id. */
function recordOf(kind: IdKind): string {
  return kind.schema
    .replace(/Id$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
}

/** The operations whose path holds an id of a kind, a literal segment before a parameter (as routers, and Prism, match). */
function idRoutes(contract: JsonObject) {
  const kinds = idKinds(contract);
  return listOperations(contract)
    .map((op) => {
      const parameters = ((op.operation.parameters ?? []) as unknown[]).map((raw) => deref<JsonObject>(contract, raw));
      const names = pathParameters(op.path);
      const ids = names.flatMap((name, index) => {
        const schema = deref<JsonObject | undefined>(contract, parameters.find((p) => p.in === 'path' && p.name === name)?.schema);
        const kind = kinds.find((k) => k.pattern.source === schema?.pattern);
        return kind ? [{ index, name, kind }] : [];
      });
      return { method: op.method, template: op.path, pattern: pathPattern(op.path), parameters: names.length, ids };
    })
    .filter((route) => route.ids.length > 0)
    .sort((a, b) => a.parameters - b.parameters);
}

/** The values of a template's parameters in a concrete path it matches, as sent (percent-encoded). */
function segmentsOf(template: string, path: string): string[] {
  const templateParts = template.split('/');
  const pathParts = path.split('/');
  return templateParts.flatMap((part, i) => (/^\{[^}]+\}$/.test(part) ? [pathParts[i] ?? ''] : []));
}

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function renamed(value: unknown, names: ReadonlyArray<{ kind: IdKind; raw: string; decoded: string }>, key: string | undefined): unknown {
  if (typeof value === 'string')
    return names.reduce((text, { kind, raw, decoded }) => text.replace(kind.token, () => (key === 'instance' ? raw : decoded)), value);
  if (Array.isArray(value)) return value.map((item) => renamed(item, names, key));
  if (!isJsonObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, renamed(item, names, name)]));
}

/**
 * The size bounds of the contract's request bodies (D49), for the mock's front (front.mjs): which
 * operation a request is for (method and path template; both base URLs are served on one port),
 * and the one linear walk of its body that the reference server runs before Ajv
 * (lib/contract/bounds.ts). Prism validates with Ajv and every error asked for, so an array far
 * past its `maxItems` (60,000 event names) kept it busy for seconds and every other request of
 * the mock waiting; the front walks the body first and hands Prism only what is left once each
 * array, string and closed object is cut to just past its bound.
 *
 * TypeScript, like the walk it shares with the server; scripts/mock.mjs loads it through tsx.
 */
import { boundsGuard, type BoundsReport } from '../../lib/contract/bounds.js';
import { listOperations, requestBodySchemaPointer, type JsonObject } from '../../lib/contract/bundled.js';
import { scanJsonShape, shapeLimits, type ShapeBreach } from '../../lib/contract/json-shape.js';
import { pathParameters, pathPattern } from '../../lib/contract/paths.js';
import { defaultBodyLimitBytes } from '../../server/config.js';

export type { BoundsReport, ShapeBreach };

/** The most bytes of a request body the front reads, for any request (D34); past it, a 413. */
export const bodyLimitBytes = defaultBodyLimitBytes;

/**
 * The shape scan of a JSON body's raw text, before anything parses it (D49, as the server's): its
 * first breach of the depth and fields-per-object bounds of the contract's request bodies. Prism
 * parses every JSON body (`application/json`, `application/*+json`) and crashed on one nested
 * 5,000 deep; the front refuses such a body before Prism sees it.
 */
export function requestShape(contract: JsonObject): (text: string) => ShapeBreach | undefined {
  const limits = shapeLimits(contract);
  return (text) => scanJsonShape(text, limits);
}

/** What the front does with the body of one request: at most `limitBytes` are read (D34), then `check` walks it. */
export interface BodyBounds {
  operationId: string;
  limitBytes: number;
  /** The body's breaches of its size bounds; cuts the body in place past each (see `boundsGuard`). */
  check: (body: unknown) => BoundsReport;
}

/**
 * The body bounds of the operation a request is for, from the contract's operations; undefined
 * for a request no operation with a JSON body matches (Prism answers it as it would).
 */
export function requestBounds(contract: JsonObject): (method: string, target: string) => BodyBounds | undefined {
  const routes = listOperations(contract)
    .flatMap((op) => {
      const pointer = requestBodySchemaPointer(contract, op);
      if (pointer === undefined) return [];
      // Compiled now: a contract the walk cannot read is reported when it is loaded, not on a request.
      const check = boundsGuard(contract, pointer);
      return [
        {
          method: op.method,
          pattern: pathPattern(op.path),
          parameters: pathParameters(op.path).length,
          bounds: { operationId: op.operationId, limitBytes: bodyLimitBytes, check },
        },
      ];
    })
    // A literal segment wins over a parameter (`/charge/payment-link` before `/charge/{id}`), as routers do.
    .sort((a, b) => a.parameters - b.parameters);
  return (method, target) => {
    const path = target.split('?')[0] ?? '';
    const wanted = method.toLowerCase();
    return routes.find((route) => route.method === wanted && route.pattern.test(path))?.bounds;
  };
}

/**
 * `Prefer: code=…, example=…` (Prism's way to pick a documented answer), checked against the
 * contract before Prism sees it. Prism answers a name the operation does not have with a 404 of
 * its own ("Response for contentType: application/json and exampleKey: nope does not exist"),
 * which the front made the contract's `/problems/not-found` and which read like "charge not
 * found"; with `code=` too, a 500. The front answers instead with a 422 naming the `Prefer`
 * header and listing what the operation does have: its documented statuses, and the examples of
 * each answer, as `code=…, example=…` pairs to copy.
 *
 * TypeScript, like path-ids.ts, loaded by scripts/mock.mjs through tsx; front.mjs applies it.
 */
import type { FieldError } from '../../lib/contract/ajv.js';
import { deref, type JsonObject, listOperations } from '../../lib/contract/bundled.js';
import { pathParameters, pathPattern } from '../../lib/contract/paths.js';
import { cut, MAX_ECHO } from '../../lib/problems/field-errors.mjs';

/** Why a request's `Prefer` cannot be served: a 422's `detail` and its one field error (the header). */
export interface PreferRefusal {
  detail: string;
  errors: FieldError[];
}

interface Answer {
  status: string;
  /** Named examples of its media types, in document order, each once. */
  examples: string[];
}

/**
 * The refusal of a request's `Prefer` (undefined: Prism can serve it, or it names nothing the
 * contract documents). Operations, statuses and example names come from the contract.
 */
export function preferChecker(contract: JsonObject): (method: string, target: string, prefer: string | string[] | undefined) => PreferRefusal | undefined {
  const routes = listOperations(contract)
    .map((op) => ({
      method: op.method,
      label: `${op.method.toUpperCase()} ${op.path}`,
      pattern: pathPattern(op.path),
      parameters: pathParameters(op.path).length,
      answers: answersOf(contract, op.operation),
    }))
    // A literal segment wins over a parameter, as routers (and Prism) do.
    .sort((a, b) => a.parameters - b.parameters);
  return (method, target, prefer) => {
    // Without the header, Prism reads `?__code=…&__example=…`.
    const wanted = prefer !== undefined ? preferences(Array.isArray(prefer) ? prefer.join(',') : prefer) : fromQuery(target);
    // Where the preference was sent: the header, or the query parameter Prism reads without it.
    const place = (name: 'code' | 'example'): Pick<FieldError, 'header' | 'parameter'> =>
      prefer !== undefined ? { header: 'Prefer' } : { parameter: `__${name}` };
    if (wanted.code === undefined && wanted.example === undefined) return undefined;
    const path = target.split('?')[0] ?? '';
    const route = routes.find((r) => r.method === method.toLowerCase() && r.pattern.test(path));
    // No operation: Prism says so (404, 405), whatever was preferred.
    if (!route) return undefined;
    const listing = route.answers.map((a) => `code=${a.status}${a.examples.length > 0 ? ` (example=${a.examples.join(', example=')})` : ''}`).join('; ');
    // A code that is not three digits is Prism's to refuse (its own 422 names the header).
    if (wanted.code !== undefined && !/^\d{3}$/.test(wanted.code)) return undefined;
    const answer = wanted.code !== undefined ? route.answers.find((a) => a.status === wanted.code) : defaultAnswer(route.answers);
    if (wanted.code !== undefined && !answer) {
      const code = cut(wanted.code, MAX_ECHO);
      return refusal(
        place('code'),
        `Prefer asks for code=${code}, which ${route.label} does not document. Its answers: ${listing}.`,
        `names code=${code}, which this operation does not document; documented: ${route.answers.map((a) => a.status).join(', ')}`,
      );
    }
    if (wanted.example === undefined || !answer || answer.examples.includes(wanted.example)) return undefined;
    const example = cut(wanted.example, MAX_ECHO);
    const own = answer.examples.length > 0 ? `its examples: ${answer.examples.join(', ')}` : 'it has no named examples';
    return refusal(
      place('example'),
      `Prefer asks for example=${example}, which the ${answer.status} answer of ${route.label} does not have (${own}). ` +
        `Send Prefer: code=<status>, example=<name> with one of: ${listing}.`,
      `names example=${example}, which the ${answer.status} answer does not have; ${own}`,
    );
  };
}

function refusal(place: Pick<FieldError, 'header' | 'parameter'>, detail: string, fieldDetail: string): PreferRefusal {
  return { detail: cut(detail, 2048), errors: [{ ...place, detail: fieldDetail, keyword: 'enum' }] };
}

/** The answer Prism gives without `code=`: the lowest 2xx, else `default`, else the first (prism-http's negotiator). */
function defaultAnswer(answers: readonly Answer[]): Answer | undefined {
  const success = answers.filter((a) => /^2\d\d$/.test(a.status)).sort((a, b) => Number(a.status) - Number(b.status))[0];
  return success ?? answers.find((a) => a.status === 'default') ?? answers[0];
}

function answersOf(contract: JsonObject, operation: JsonObject): Answer[] {
  return Object.entries((operation.responses ?? {}) as Record<string, unknown>).map(([status, raw]) => {
    const response = deref<JsonObject | undefined>(contract, raw);
    const content = (response?.content ?? {}) as Record<string, JsonObject>;
    const examples = Object.values(content).flatMap((media) => Object.keys((media.examples ?? {}) as JsonObject));
    return { status, examples: [...new Set(examples)] };
  });
}

function fromQuery(target: string): { code?: string; example?: string } {
  const at = target.indexOf('?');
  if (at < 0) return {};
  const query = new URLSearchParams(target.slice(at + 1));
  const code = query.get('__code') ?? undefined;
  const example = query.get('__example') ?? undefined;
  return { ...(code !== undefined ? { code } : {}), ...(example !== undefined ? { example } : {}) };
}

/**
 * `code` and `example` of a Prefer field value as Prism reads them (parse-prefer-header: preferences
 * separated by `,`, each `name=value`, a value in double quotes unquoted; the first of each counts).
 */
function preferences(value: string): { code?: string; example?: string } {
  const found: { code?: string; example?: string } = {};
  for (const preference of value.split(',')) {
    const [token = '', ...rest] = preference.split(';')[0]!.split('=');
    const name = token.trim().toLowerCase();
    const raw = rest.join('=').trim();
    const text = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
    if ((name === 'code' || name === 'example') && found[name] === undefined) found[name] = text;
  }
  return found;
}

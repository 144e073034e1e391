/**
 * The contract's path templates (`/charge/{id}/simulate-payment`) in the forms code needs: one
 * place that reads `{name}`, so a router, a matcher and a test agree on what a template matches.
 */

const parameter = /\{([^}]+)\}/g;

/** A regular expression matching a concrete path of the template; a parameter is one non-empty segment. */
export function pathPattern(template: string): RegExp {
  const literal = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
  return new RegExp(`^${literal.replace(parameter, '[^/]+')}$`);
}

/** The template as Hono routes it: `{id}` becomes `:id`. */
export function honoPath(template: string): string {
  return template.replace(parameter, ':$1');
}

/**
 * A concrete path: each parameter replaced by its value in `values` (percent-encoded), or every
 * parameter by one text as it is (a test may want a malformed one).
 */
export function fillPath(template: string, values: string | Readonly<Record<string, string>>): string {
  return template.replace(parameter, (_match, name: string) => {
    if (typeof values === 'string') return values;
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} of ${template}`);
    return encodeURIComponent(value);
  });
}

/** The names of the template's parameters, in order (`/charge/{id}` has `id`); a template with fewer is the more specific. */
export function pathParameters(template: string): string[] {
  return [...template.matchAll(parameter)].map((match) => match[1]!);
}

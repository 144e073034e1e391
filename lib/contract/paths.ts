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

/** A concrete path: every parameter replaced by `value` as it is (a test may want a malformed one). */
export function fillPath(template: string, value: string): string {
  return template.replace(parameter, () => value);
}

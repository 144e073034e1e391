import type { Params, Result, Router } from 'hono/router';
import { UnsupportedPathError } from 'hono/router';

/** A route's path, split at `/`: each segment a text to equal, a parameter, or `*` (the rest, last only). */
type Segment = { text: string } | { param: string } | { rest: true };

interface Route<T> {
  method: string;
  segments: Segment[];
  handler: T;
}

/**
 * The server's router: the paths it serves are texts and whole-segment parameters (`/charge/:id`),
 * and `*` as a last segment (`/*`, the middleware in front of every route), and nothing else. Hono's
 * own first choice (its RegExpRouter) refuses the contract's paths (`/charge/payment-link` beside
 * `/charge/:id/simulate-payment`), so Hono fell back to its TrieRouter, which walks a tree of
 * nodes and copies parameters for every request. Here the routes are grouped by method and first
 * segment once, at the first request; a request is compared with the few routes of its group, in
 * the order they were added, as Hono's routers answer them.
 *
 * It matches as the TrieRouter does: a parameter is a whole non-empty segment, its value as sent
 * (Hono decodes it when read), `*` matches the rest of the path, none of it included (so `/docs/*`
 * matches `/docs` too), and a trailing `/` is a segment of its own (`/docs/` is not `/docs`).
 * Anything else (an optional or patterned parameter, `*` inside a path) is refused with
 * `UnsupportedPathError`, so that a `SmartRouter` listing this one first uses the next.
 */
export class SegmentRouter<T> implements Router<T> {
  name = 'SegmentRouter';
  readonly #routes: Route<T>[] = [];
  /** Per method, then per first segment: the routes that may match, in order; built at the first match. */
  #groups: Map<string, { byFirst: Map<string, Route<T>[]>; other: Route<T>[] }> | undefined;

  add(method: string, path: string, handler: T): void {
    if (this.#groups) throw new Error('Can not add a route since the matcher is already built.');
    const parts = splitPath(path);
    const segments = parts.map((part, index): Segment => {
      if (part === '*' && index === parts.length - 1) return { rest: true };
      if (part.includes('*') || part.includes('{') || part.includes('}') || part.endsWith('?')) throw new UnsupportedPathError(path);
      if (part.startsWith(':')) {
        const name = part.slice(1);
        if (name === '' || name.includes(':')) throw new UnsupportedPathError(path);
        return { param: name };
      }
      return { text: part };
    });
    this.#routes.push({ method, segments, handler });
  }

  match(method: string, path: string): Result<T> {
    this.#groups ??= this.#group();
    const groups = this.#groups;
    const group = groups.get(method) ?? groups.get(ANY)!;
    // The path is read in place, segment by segment, not split into a new array per request.
    // An empty path has no part: reading starts past its end.
    const start = path === '' ? 1 : path.charCodeAt(0) === 47 ? 1 : 0;
    const firstEnd = path.indexOf('/', start);
    const first = path === '' ? undefined : path.slice(start, firstEnd === -1 ? path.length : firstEnd);
    const candidates = (first === undefined ? undefined : group.byFirst.get(first)) ?? group.other;
    const found: [T, Params][] = [];
    for (const route of candidates) {
      const params = matchPath(route.segments, path, start);
      if (params !== undefined) found.push([route.handler, params]);
    }
    return [found];
  }

  /**
   * The routes grouped: for each method added (and `ANY`, for a method no route names), the routes
   * of that method or of `ALL` whose first segment is that text, or is not a text (those are in
   * every group, and alone in `other`, for a first segment no route names).
   */
  #group(): Map<string, { byFirst: Map<string, Route<T>[]>; other: Route<T>[] }> {
    const firsts = new Set<string>();
    for (const route of this.#routes) {
      const first = route.segments[0];
      if (first && 'text' in first) firsts.add(first.text);
    }
    const methods = new Set([...this.#routes.map((route) => route.method).filter((method) => method !== ALL), ANY]);
    const groups = new Map<string, { byFirst: Map<string, Route<T>[]>; other: Route<T>[] }>();
    for (const method of methods) {
      const routes = this.#routes.filter((route) => route.method === method || route.method === ALL);
      const startsWith = (route: Route<T>, text: string | undefined) => {
        const first = route.segments[0];
        return first === undefined ? text === '' : 'text' in first ? first.text === text : true;
      };
      const byFirst = new Map<string, Route<T>[]>();
      for (const first of firsts)
        byFirst.set(
          first,
          routes.filter((route) => startsWith(route, first)),
        );
      groups.set(method, { byFirst, other: routes.filter((route) => startsWith(route, undefined)) });
    }
    return groups;
  }
}

/** What Hono calls a route for every method (`app.use`, `app.all`). */
const ALL = 'ALL';
/** The group of a method no route names: its `ALL` routes only. */
const ANY = '\u0000any';

/** `/a/b` → `['a', 'b']`, `/` → `['']`, `/a/` → `['a', '']`: as Hono splits a path. */
function splitPath(path: string): string[] {
  // Split after the leading `/`, not shifted off after: shifting moves the array's start, every request.
  if (path === '') return [];
  return path.charCodeAt(0) === 47 ? path.slice(1).split('/') : path.split('/');
}

/**
 * The route's parameters if `path`, from `start` (after its leading `/`; past its end: no part at
 * all), is one of its paths, its parts read where they are in the text (`/a/b`: `a`, `b`; `/`: one
 * empty part; `/a/`: `a` and an empty part, as Hono splits a path).
 */
function matchPath(segments: readonly Segment[], path: string, start: number): Params | undefined {
  const params: Params = {};
  // Where the next part starts; past the end once the last part was read.
  let at = start;
  for (const segment of segments) {
    if ('rest' in segment) return params;
    if (at > path.length) return undefined;
    const slash = path.indexOf('/', at);
    const end = slash === -1 ? path.length : slash;
    if ('text' in segment) {
      if (segment.text.length !== end - at || !path.startsWith(segment.text, at)) return undefined;
    } else {
      if (end === at) return undefined;
      params[segment.param] = path.slice(at, end);
    }
    at = end + 1;
  }
  return at > path.length ? params : undefined;
}

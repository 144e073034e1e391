// A problem's `instance` (RFC 9457 §3.1.5): the path the request was sent to, as a URI reference.
// One definition for the reference server (server/http/problems.ts) and the mock's front
// (scripts/mock/), which is plain JavaScript run by node; hence a .mjs module with its types
// beside it (instance.d.mts).

/** Longest `instance` (D49: the contract's `maxLength`). */
export const MAX_INSTANCE = 2048;

/**
 * `instance` is a URI reference (RFC 3986): the path as sent, with a stray `%` and characters a
 * URL parser lets through (`| ^ [ ]`…) percent-encoded, so it always validates; at most
 * `MAX_INSTANCE` characters, never ending inside a %XX escape.
 */
export function instanceOf(pathname) {
  const encoded = pathname
    .slice(0, MAX_INSTANCE)
    .replace(/%(?![0-9A-Fa-f]{2})/g, '%25')
    .replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g, (ch) => encodeURIComponent(ch));
  return encoded.length <= MAX_INSTANCE ? encoded : encoded.slice(0, MAX_INSTANCE).replace(/%[0-9A-Fa-f]?$/, '');
}

/**
 * The security headers of the server's answers (D50), as constants: nothing is computed per
 * request but the payment page's nonce.
 *
 * - Every answer (operations, problems, the contract files, the pages) says `nosniff`, so that a
 *   browser never runs a JSON body or a problem as a script or a page of another type.
 * - Every HTML page (the docs, the payment pages) may not be framed (`frame-ancestors 'none'`,
 *   and `X-Frame-Options: DENY` for browsers before CSP Level 2), sends no referrer, and has a
 *   Content-Security-Policy of its own.
 */
import { createHash } from 'node:crypto';

export const NOSNIFF_HEADER = 'X-Content-Type-Options';
export const NOSNIFF = 'nosniff';

/** The headers of every HTML page beside its Content-Security-Policy. */
export const pageHeaders = {
  [NOSNIFF_HEADER]: NOSNIFF,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
} as const;

/** Directives every page's policy ends with: no `<base>`, nowhere to post forms to unless said, never in a frame. */
const closing = ["base-uri 'none'", "frame-ancestors 'none'"];

/**
 * The policy of the Redoc page (dist/docs/index.html): its two inline scripts by their hashes,
 * nothing else runs (no `eval`: Redoc's search probes for it to start a worker and, refused,
 * searches on the page instead). Styles must be `'unsafe-inline'`: Redoc's styled-components
 * adds `<style>` elements as it renders and its Markdown carries `style` attributes, neither known
 * before it runs. Nothing may be loaded from anywhere (images and fonts only as `data:` URIs), so
 * a style cannot send anything off the page.
 */
export function redocCsp(html: string): string {
  return [
    "default-src 'none'",
    `script-src ${inlineHashes(html, 'script').join(' ')}`,
    "style-src 'unsafe-inline'",
    'img-src data:',
    'font-src data:',
    "form-action 'none'",
    ...closing,
  ].join('; ');
}

/** The policy of a page without scripts (the decisions page): its inline styles by their hashes, images as `data:` URIs. */
export function staticPageCsp(html: string): string {
  return ["default-src 'none'", `style-src ${inlineHashes(html, 'style').join(' ') || "'none'"}`, 'img-src data:', "form-action 'none'", ...closing].join('; ');
}

/**
 * The CSP hash sources (`'sha256-…'`) of a page's inline `<script>` or `<style>` elements, read
 * as an HTML parser reads them: an element's text runs to the first `</script` (`</style`), so
 * the tag's name inside a script's text is never taken for an element. Scripts with `src` are left out.
 */
export function inlineHashes(html: string, tag: 'script' | 'style'): string[] {
  const open = new RegExp(`<${tag}(?=[\\s>/])([^>]*)>`, 'gi');
  // Case-insensitive by a regular expression, not by lower-casing the page: lower case can change
  // a string's length (İ becomes two characters), and the offsets with it.
  const close = new RegExp(`</${tag}`, 'gi');
  const hashes: string[] = [];
  for (let match = open.exec(html); match !== null; match = open.exec(html)) {
    close.lastIndex = open.lastIndex;
    const end = close.exec(html)?.index;
    if (end === undefined) break;
    if (!/\ssrc\s*=/i.test(match[1] ?? '')) hashes.push(`'sha256-${createHash('sha256').update(html.slice(open.lastIndex, end), 'utf8').digest('base64')}'`);
    open.lastIndex = end;
  }
  return hashes;
}

/**
 * JSON Pointers (RFC 6901) into the contract and into instances: the one escaping of reference
 * tokens (`~` as `~0`, `/` as `~1`) that every walk of the contract uses.
 */

/** One reference token, escaped. */
export function escapeToken(token: string | number): string {
  return String(token).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** One reference token, unescaped (`~1` before `~0`, as RFC 6901 §4 requires). */
export function unescapeToken(raw: string): string {
  return raw.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The pointer of a path of keys. */
export function toPointer(tokens: ReadonlyArray<string | number>): string {
  return tokens.map((token) => `/${escapeToken(token)}`).join('');
}

/** The keys of a pointer, unescaped; `''` is the whole document. */
export function splitPointer(pointer: string): string[] {
  return pointer === '' ? [] : pointer.split('/').slice(1).map(unescapeToken);
}

export function childPointer(pointer: string, token: string | number): string {
  return `${pointer}/${escapeToken(token)}`;
}

/** Last reference token of a pointer, unescaped. */
export function lastToken(pointer: string): string | undefined {
  if (pointer === '') return undefined;
  return unescapeToken(pointer.slice(pointer.lastIndexOf('/') + 1));
}

/** Pointer as a URI fragment (`#/paths/~1charge~1%7Bid%7D/...`), for `$ref`s handed to Ajv. */
export function pointerToFragment(pointer: string): string {
  return `#${pointer.split('/').map(encodeURIComponent).join('/')}`;
}

// The mock's reading of the document Prism serves, shared by the mock (scripts/mock.mjs, for its
// banner) and its front inside Prism (in-prism.mjs, for the refusals, bounds and ids): a document
// that cannot be read or parsed is an empty one there, and Prism itself reports what is wrong with it.
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/** The parsed document at `path`, or `{}` while it cannot be read or parsed. */
export function loadSpec(path) {
  return safe(() => parse(readFileSync(path, 'utf8')), {});
}

/** `fn()`, or `fallback` when it throws. */
export function safe(fn, fallback) {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

// Builds `npm start` runs first (prestart: the compiled server, the docs page) are made again
// only when what they are made from changed (issue 39: every start took seconds to rebuild what
// had not changed). A stamp beside the output (dist/…/.stamp.json) records a hash of each input
// file's content; a build whose stamp matches (and whose outputs exist) is skipped. Plain
// JavaScript (scripts/build-server.mjs runs under node), its types beside it (build-stamp.d.mts).
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/** Hash of a file's content (relative to the repository), or `missing`. */
function hashOf(path) {
  const file = join(repoRoot, path);
  return existsSync(file) ? createHash('sha1').update(readFileSync(file)).digest('hex') : 'missing';
}

/** The source files under `dir` (relative to the repository), tests left out, as repository-relative paths. */
export function sourcesUnder(dir) {
  const found = [];
  const walk = (folder) => {
    for (const entry of readdirSync(join(repoRoot, folder), { withFileTypes: true })) {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else if (/\.(ts|mts|mjs|js|json|ya?ml|md)$/.test(entry.name) && !/\.test\.ts$/.test(entry.name)) found.push(path);
    }
  };
  if (existsSync(join(repoRoot, dir))) walk(dir);
  return found;
}

/**
 * Whether the build `stamp` records is still current: every one of `outputs` exists, every input
 * it recorded has the same content, and it recorded each of `inputs` (a file added since is not).
 */
export function upToDate(stamp, inputs, outputs) {
  if (!outputs.every((output) => existsSync(join(repoRoot, output)))) return false;
  let recorded;
  try {
    recorded = JSON.parse(readFileSync(join(repoRoot, stamp), 'utf8')).inputs;
  } catch {
    return false;
  }
  if (typeof recorded !== 'object' || recorded === null) return false;
  return inputs.every((input) => input in recorded) && Object.entries(recorded).every(([name, hash]) => hash === hashOf(name));
}

/** The contents of `inputs` as a stamp records them: each input's hash, by name. */
export function contentsOf(inputs) {
  const recorded = {};
  for (const input of [...new Set(inputs)].sort()) recorded[input] = hashOf(input);
  return recorded;
}

/** Records the contents of `inputs` in `stamp` (after a build), or `recorded` when given (read before the build). */
export function writeStamp(stamp, inputs, recorded = contentsOf(inputs)) {
  writeFileSync(join(repoRoot, stamp), `${JSON.stringify({ inputs: recorded }, null, 1)}\n`);
}

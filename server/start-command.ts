import { readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * The arguments `npm start` gives `node` (package.json's `start` script: Node's flags, then the
 * compiled server), with the server's path made absolute: whatever starts the compiled server as
 * a user's start does (the tests' servers, the benchmark) starts it with these, so the flags are
 * written once, in package.json.
 */
export function startArguments(packageJson: { scripts?: Record<string, string> } = readPackage()): string[] {
  const start = packageJson.scripts?.start;
  const words = start?.trim().split(/\s+/) ?? [];
  if (words[0] !== 'node' || words.length < 2) throw new Error(`package.json's start script must be "node [flags] <server>", got ${JSON.stringify(start)}`);
  const entry = words.at(-1)!;
  return [...words.slice(1, -1), isAbsolute(entry) ? entry : join(repoRoot, entry)];
}

function readPackage(): { scripts?: Record<string, string> } {
  return JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
}

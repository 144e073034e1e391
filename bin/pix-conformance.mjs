#!/usr/bin/env node
// `pix-conformance` (package.json `bin`): the conformance command, with the keys in CONFORMANCE_*
// variables and nothing secret on its command line.
// - Installed from the package: runs the compiled command, dist/conformance/cli.mjs (Node only).
// - In a clone of the repository: runs the TypeScript sources through tsx, so that it is always
//   the code as it stands (no build step to forget).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const sources = new URL('../conformance/cli.ts', import.meta.url);
if (existsSync(fileURLToPath(sources))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(sources.href);
} else {
  await import('../dist/conformance/cli.mjs');
}

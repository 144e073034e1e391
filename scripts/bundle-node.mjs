// One way to compile a Node command of this repository to a single JavaScript file with esbuild
// (the reference server, scripts/build-server.mjs; the conformance command,
// scripts/build-conformance.mjs):
//
// - the packages are bundled too: one file loads in a fraction of the time of a few hundred
//   modules resolved and read one by one, and an installed command needs no dependency it does
//   not name (`external`);
// - the bundled contract goes in as JSON text (parsed here from generated/openapi.yaml exactly as
//   lib/contract/bundled.ts parses it, which then reads it instead of the file), which parses
//   twenty times faster than the YAML and needs no file beside the bundle.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load } from 'js-yaml';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles `entry` (relative to the repository) into `outfile`, leaving `external` packages as imports. */
export async function bundleNodeCommand({ entry, outfile, external = [] }) {
  const contract = load(readFileSync(new URL('../generated/openapi.yaml', import.meta.url), 'utf8'), { schema: CORE_SCHEMA });
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile,
    bundle: true,
    external,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    define: { __BUNDLED_CONTRACT_JSON__: JSON.stringify(JSON.stringify(contract)) },
    // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none.
    banner: { js: `import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);` },
  });
}

// Compiles the reference server to one JavaScript file (dist/server/main.mjs) with esbuild, so
// that `npm start` runs node directly: no TypeScript compilation at every start, and start-up
// time matters (D34, issue 8). `npm start` runs it first (prestart); it takes about a second.
//
// - The packages are bundled too: one file loads in a fraction of the time of a few hundred
//   modules resolved and read one by one. better-sqlite3 stays external (a native addon).
// - The bundled contract goes in as JSON text (parsed here from generated/openapi.yaml exactly
//   as lib/contract/bundled.ts parses it), which parses twenty times faster than the YAML.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load } from 'js-yaml';

const root = fileURLToPath(new URL('..', import.meta.url));
const contract = load(readFileSync(new URL('../generated/openapi.yaml', import.meta.url), 'utf8'), { schema: CORE_SCHEMA });

await build({
  absWorkingDir: root,
  entryPoints: ['server/main.ts'],
  outfile: 'dist/server/main.mjs',
  bundle: true,
  external: ['better-sqlite3'],
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  define: { __BUNDLED_CONTRACT_JSON__: JSON.stringify(JSON.stringify(contract)) },
  // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});

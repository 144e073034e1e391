// One way to compile a Node command of this repository to a single JavaScript file with esbuild
// (the reference server, scripts/build-server.mjs; the conformance command,
// scripts/build-conformance.mjs):
//
// - the packages are bundled too: one file loads in a fraction of the time of a few hundred
//   modules resolved and read one by one, and an installed command needs no dependency it does
//   not name (`external`);
// - the bundled contract goes in as JSON text (parsed here from generated/openapi.yaml exactly as
//   lib/contract/bundled.ts parses it, which then reads it instead of the file), which parses
//   twenty times faster than the YAML and needs no file beside the bundle;
// - with `validators`, the contract's validators the command uses are made here, as Ajv's
//   standalone code, written beside the bundle (contract-validators.cjs) and bundled in place of
//   lib/contract/precompiled.ts: the command then compiles none when it starts.
import { build } from 'esbuild';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CORE_SCHEMA, load } from 'js-yaml';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Bundles `entry` (relative to the repository) into `outfile`, leaving `external` packages as
 * imports, and gives the files it read (relative to the repository). `validators` names a TypeScript module (relative to the repository) whose
 * `precompiledValidatorsModule()` gives the standalone code of the validators to make ahead.
 * `sourcesContent: false` leaves the sources out of the source map: stacks are mapped all the
 * same, from a map a third the size. `compact: true` leaves out the comments and
 * the indentation (names stay, and stacks are mapped through the source map as before), and
 * requires a text of Latin-1 characters only: V8 keeps a script's text in memory for as long as
 * the process lives, at one byte a character when every character is Latin-1 and at two
 * otherwise (a comment's single dash was enough). For the server that is 1.4 MB instead of
 * 3.5 MB, and less to parse at every start.
 */
export async function bundleNodeCommand({
  entry,
  outfile,
  external = [],
  validators,
  sourcesContent = true,
  plugins: extraPlugins = [],
  sourcemap = true,
  compact = false,
}) {
  const contract = load(readFileSync(new URL('../generated/openapi.yaml', import.meta.url), 'utf8'), { schema: CORE_SCHEMA });
  const plugins =
    validators === undefined
      ? [...extraPlugins]
      : [await precompiledValidators(validators, resolve(root, dirname(outfile), 'contract-validators.cjs')), ...extraPlugins];
  const result = await build({
    absWorkingDir: root,
    metafile: true,
    entryPoints: [entry],
    outfile,
    bundle: true,
    external,
    platform: 'node',
    format: 'esm',
    minifyWhitespace: compact,
    // A crash's first line is the compiled line it was thrown on (the stack below it is mapped to
    // the sources): short lines keep it readable.
    ...(compact ? { lineLimit: 200 } : {}),
    target: 'node20',
    sourcemap,
    sourcesContent,
    logLevel: 'warning',
    plugins,
    define: { __BUNDLED_CONTRACT_JSON__: JSON.stringify(JSON.stringify(contract)) },
    // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none.
    banner: { js: `import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);` },
  });
  if (compact) latin1Only(resolve(root, outfile));
  return Object.keys(result.metafile.inputs);
}

/** Throws where the compiled file holds a character past Latin-1 (see `compact`), naming it and where. */
function latin1Only(file) {
  const text = readFileSync(file, 'utf8');
  const at = text.search(/[^\u0000-\u00ff]/u);
  if (at === -1) return;
  const line = text.slice(0, at).split('\n').length;
  throw new Error(
    `${file}:${line}: the character ${JSON.stringify(text[at])} (U+${text.codePointAt(at).toString(16).toUpperCase()}) is past Latin-1, so V8 would keep the whole ` +
      `compiled text at two bytes a character: write it as an escape (\\u....) in the source near ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 10))}`,
  );
}

/**
 * Writes the standalone code of `module`'s validators to `file`, and gives the esbuild plugin that
 * bundles it in place of lib/contract/precompiled.ts (whose own export, from source, is none).
 * The module is TypeScript, run here by tsx, as the contract's readers it uses are.
 */
async function precompiledValidators(module, file) {
  const { tsImport } = await import('tsx/esm/api');
  const { precompiledValidatorsModule } = await tsImport(resolve(root, module), import.meta.url);
  const { useDefaults, code } = precompiledValidatorsModule();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, code);
  return {
    name: 'precompiled-validators',
    setup(build) {
      build.onLoad({ filter: /[\\/]lib[\\/]contract[\\/]precompiled\.ts$/ }, () => ({
        contents: `import validators from ${JSON.stringify(file)};\nexport const precompiled = { useDefaults: ${JSON.stringify(useDefaults)}, validators };\n`,
        loader: 'js',
        resolveDir: dirname(file),
      }));
    },
  };
}

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
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
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
  codeCache = false,
}) {
  const contract = load(readFileSync(new URL('../generated/openapi.yaml', import.meta.url), 'utf8'), { schema: CORE_SCHEMA });
  const plugins =
    validators === undefined
      ? [...extraPlugins]
      : [await precompiledValidators(validators, resolve(root, dirname(outfile), 'contract-validators.cjs')), ...extraPlugins];
  // With `codeCache`, the command is a CommonJS script beside `outfile` (main.cjs for main.mjs),
  // which `outfile`, a small loader, compiles with V8's code cache (see `codeCacheLoader`).
  const compiled = codeCache ? outfile.replace(/\.mjs$/, '.cjs') : outfile;
  if (compiled === outfile && codeCache) throw new Error(`codeCache: ${outfile} must end in .mjs`);
  const result = await build({
    absWorkingDir: root,
    metafile: true,
    entryPoints: [entry],
    outfile: compiled,
    bundle: true,
    external,
    platform: 'node',
    format: codeCache ? 'cjs' : 'esm',
    minifyWhitespace: compact,
    // A crash's first line is the compiled line it was thrown on (the stack below it is mapped to
    // the sources): short lines keep it readable.
    ...(compact ? { lineLimit: 200 } : {}),
    target: 'node20',
    sourcemap,
    sourcesContent,
    logLevel: 'warning',
    plugins,
    define: {
      __BUNDLED_CONTRACT_JSON__: JSON.stringify(JSON.stringify(contract)),
      // A CommonJS script has no import.meta: the modules' own URL is the script's.
      ...(codeCache ? { 'import.meta.url': '__bundleUrl' } : {}),
    },
    banner: {
      js: codeCache
        ? "var __bundleUrl = require('node:url').pathToFileURL(__filename).href;"
        : // Bundled CommonJS packages call require() for Node's built-ins; an ES module has none.
          `import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);`,
    },
  });
  if (compact) latin1Only(resolve(root, compiled));
  if (codeCache) {
    // The caches of earlier builds, and an earlier ES module's map, are of nothing now.
    const folder = resolve(root, dirname(outfile));
    const stale = (file) => (file.startsWith(`${basename(compiled)}.`) && file.endsWith('.cache')) || file === `${basename(outfile)}.map`;
    for (const file of readdirSync(folder).filter(stale)) rmSync(join(folder, file), { force: true });
    writeFileSync(resolve(root, outfile), codeCacheLoader(compiled, readFileSync(resolve(root, compiled))));
  }
  return Object.keys(result.metafile.inputs);
}

/**
 * The loader of a command built with `codeCache`: it compiles the CommonJS script beside it with
 * the code V8 compiled for it in an earlier run (`<script>.<hash>.cache`), and runs it as Node
 * runs a CommonJS module. V8 then neither parses the 1.4 MB script nor compiles the functions the
 * start calls, which were about a quarter of the server's start-up CPU. A run that found no cache,
 * or one V8 refused (another Node, other V8 flags), writes one as it exits with code 0, with what
 * it compiled by then (from a temporary file renamed, so a reader never sees half of one; where it
 * cannot write, the next start compiles as before). The cache's name holds a hash of the script,
 * as V8 checks only the script's length against it.
 */
function codeCacheLoader(compiled, text) {
  const name = basename(compiled);
  const hash = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return `// Written by scripts/bundle-node.mjs (codeCache): runs ${name} with V8's code cache.
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const file = fileURLToPath(new URL(${JSON.stringify(`./${name}`)}, import.meta.url));
const cacheFile = \`\${file}.${hash}.cache\`;
let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  // None yet: this run writes it.
}
// As Node wraps a CommonJS module (on the script's first line, which is the bundle's banner).
const wrapped = \`(function (exports, require, module, __filename, __dirname) { \${readFileSync(file, 'utf8')}\n});\`;
const script = new Script(wrapped, { filename: file, cachedData });
const refresh = cachedData === undefined || script.cachedDataRejected;
cachedData = undefined; // V8 has taken what it needs: the buffer is not kept for the process's life.
if (refresh) {
  process.once('exit', (code) => {
    // Only a run that ended well (the server stopped by a signal, say): one that stopped at
    // its start's first error compiled little of what a start runs.
    if (code !== 0) return;
    try {
      const written = \`\${cacheFile}.\${process.pid}\`;
      writeFileSync(written, script.createCachedData());
      renameSync(written, cacheFile);
    } catch {
      // A folder the process may not write to: the next start compiles the script again.
    }
  });
}
const module = { exports: {} };
script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
`;
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
  const { useDefaults, code, views = [] } = precompiledValidatorsModule();
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, code);
  // Views of the contract (the conformance command's seed view), each in a file of its own beside it.
  const viewFiles = views.map((view, index) => {
    const viewFile = file.replace(/\.cjs$/, `-view${index}.cjs`);
    writeFileSync(viewFile, view.code);
    return { ...view, file: viewFile };
  });
  const viewImports = viewFiles.map((view, index) => `import view${index} from ${JSON.stringify(view.file)};\n`).join('');
  const viewEntries = viewFiles.map(
    (view, index) => `${JSON.stringify(view.key)}: { useDefaults: ${JSON.stringify(view.useDefaults)}, validators: view${index} }`,
  );
  return {
    name: 'precompiled-validators',
    setup(build) {
      build.onLoad({ filter: /[\\/]lib[\\/]contract[\\/]precompiled\.ts$/ }, () => ({
        contents: `import validators from ${JSON.stringify(file)};\n${viewImports}export const precompiled = { useDefaults: ${JSON.stringify(useDefaults)}, validators };\nexport const precompiledViews = { ${viewEntries.join(', ')} };\n`,
        loader: 'js',
        resolveDir: dirname(file),
      }));
    },
  };
}

// Builds the integrator's package, packages/sandbox (`pix-payments-sandbox`): what its bins run,
// compiled from this repository's own sources, so that the package holds no TypeScript and needs
// only the two packages it names (better-sqlite3, a native addon, and Prism). `npm pack` in
// packages/sandbox runs it (prepack); it takes a few seconds, the docs page most of them.
//
//   dist/server/main.mjs   the reference server, as scripts/build-server.mjs compiles it for `npm start`
//   dist/keys.mjs          the keys command (server/cli/keys.ts)
//   dist/mock.mjs          the mock (scripts/mock.mjs), which starts Prism
//   scripts/mock/in-prism.mjs  the mock's front, which the mock loads into Prism (scripts/mock/in-prism.mjs
//                          and front.mjs), TypeScript readers included
//   dist/docs/             the docs page, as `npm run docs` builds it (served at /docs/)
//   generated/openapi.yaml the bundled contract (the mock's and the docs')
//
// How each command is compiled: scripts/bundle-node.mjs. No source maps: the sources are not in
// the package for a map to point to.
import { cpSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleNodeCommand } from './bundle-node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const sandbox = join(root, 'packages', 'sandbox');
const out = (path) => join(sandbox, path);

rmSync(out('dist'), { recursive: true, force: true });
rmSync(out('generated'), { recursive: true, force: true });
rmSync(out('scripts'), { recursive: true, force: true });

await bundleNodeCommand({
  entry: 'server/main.ts',
  outfile: out('dist/server/main.mjs'),
  external: ['better-sqlite3'],
  validators: 'scripts/server-validators.ts',
  sourcemap: false,
});
// Written beside the bundle by the validators' step and bundled into it: not needed at run time.
rmSync(out('dist/server/contract-validators.cjs'), { force: true });

await bundleNodeCommand({ entry: 'server/cli/keys.ts', outfile: out('dist/keys.mjs'), external: ['better-sqlite3'], sourcemap: false });

// The mock's front loads its TypeScript readers with tsx at run time (`tsImport('./….ts')` in
// scripts/mock/in-prism.mjs); here they are bundled instead, each one the module names.
const mockReaderFiles = [...readFileSync(join(root, 'scripts', 'mock', 'in-prism.mjs'), 'utf8').matchAll(/tsImport\('(\.\/[\w-]+\.ts)'/g)].map((m) => m[1]);
if (mockReaderFiles.length === 0) throw new Error('build-sandbox: scripts/mock/in-prism.mjs names no TypeScript reader; is tsImport still how it loads them?');
const mockReaders = {
  name: 'mock-readers',
  setup(build) {
    build.onResolve({ filter: /^tsx\/esm\/api$/ }, () => ({ path: 'tsx-esm-api', namespace: 'mock-readers' }));
    build.onLoad({ filter: /.*/, namespace: 'mock-readers' }, () => ({
      contents: [
        'const readers = {',
        ...mockReaderFiles.map((file) => `  ${JSON.stringify(file)}: () => import(${JSON.stringify(join(root, 'scripts', 'mock', file))}),`),
        '};',
        'export async function tsImport(specifier) {',
        '  const load = readers[specifier];',
        "  if (load === undefined) throw new Error('not bundled with the mock: ' + specifier);",
        '  return load();',
        '}',
      ].join('\n'),
      loader: 'js',
      resolveDir: root,
    }));
  },
};
await bundleNodeCommand({ entry: 'scripts/mock.mjs', outfile: out('dist/mock.mjs'), external: ['@stoplight/prism-cli'], sourcemap: false });

// Loaded into Prism by the mock (from beside the package's root, as in a clone): the front
// (`--import`), and the guard (`--require`) that ends Prism when the mock ends, however it ends.
await bundleNodeCommand({ entry: 'scripts/mock/in-prism.mjs', outfile: out('scripts/mock/in-prism.mjs'), plugins: [mockReaders], sourcemap: false });
cpSync(join(root, 'scripts', 'mock', 'prism-guard.cjs'), out('scripts/mock/prism-guard.cjs'));

mkdirSync(out('generated'), { recursive: true });
cpSync(join(root, 'generated', 'openapi.yaml'), out('generated/openapi.yaml'));

// Written into the package's own folder, not dist/docs, which tests running meanwhile read.
const { tsImport } = await import('tsx/esm/api');
const { buildDocs } = await tsImport(join(root, 'scripts', 'docs', 'build.ts'), import.meta.url);
buildDocs(out('dist/docs'));

// Builds the integrator's package, packages/sandbox (`pix-payments-sandbox`): what its bins run,
// compiled from this repository's own sources, so that the package holds no TypeScript and needs
// only the two packages it names (better-sqlite3, a native addon, and Prism). `npm pack` in
// packages/sandbox runs it (prepack); it takes a few seconds, the docs page most of them.
//
//   dist/server/main.mjs   the reference server, as scripts/build-server.mjs compiles it for `npm start`
//   dist/keys.mjs          the keys command (server/cli/keys.ts)
//   dist/mock.mjs          the mock (scripts/mock.mjs and its front), TypeScript readers included
//   dist/docs/             the docs page, as `npm run docs` builds it (served at /docs/)
//   generated/openapi.yaml the bundled contract (the mock's and the docs')
//
// How each command is compiled: scripts/bundle-node.mjs. No source maps: the sources are not in
// the package for a map to point to.
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleNodeCommand } from './bundle-node.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const sandbox = join(root, 'packages', 'sandbox');
const out = (path) => join(sandbox, path);

rmSync(out('dist'), { recursive: true, force: true });
rmSync(out('generated'), { recursive: true, force: true });

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

// The mock loads its two TypeScript readers with tsx at run time; here they are bundled instead.
const mockReaders = {
  name: 'mock-readers',
  setup(build) {
    build.onResolve({ filter: /^tsx\/esm\/api$/ }, () => ({ path: 'tsx-esm-api', namespace: 'mock-readers' }));
    build.onLoad({ filter: /.*/, namespace: 'mock-readers' }, () => ({
      contents: [
        `const readers = { './mock/bounds.ts': () => import(${JSON.stringify(join(root, 'scripts/mock/bounds.ts'))}),`,
        `  './mock/path-ids.ts': () => import(${JSON.stringify(join(root, 'scripts/mock/path-ids.ts'))}) };`,
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
await bundleNodeCommand({
  entry: 'scripts/mock.mjs',
  outfile: out('dist/mock.mjs'),
  external: ['@stoplight/prism-cli'],
  plugins: [mockReaders],
  sourcemap: false,
});

mkdirSync(out('generated'), { recursive: true });
cpSync(join(root, 'generated', 'openapi.yaml'), out('generated/openapi.yaml'));

// Written into the package's own folder, not dist/docs, which tests running meanwhile read.
const { tsImport } = await import('tsx/esm/api');
const { buildDocs } = await tsImport(join(root, 'scripts', 'docs', 'build.ts'), import.meta.url);
buildDocs(out('dist/docs'));

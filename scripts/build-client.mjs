// Builds the client package (`npm run build:client`; `npm pack` runs it through prepack):
//
//   dist/client/index.mjs          client/ bundled into one ES module by esbuild, with the
//                                  generated route table inside; openapi-fetch and standardwebhooks
//                                  stay imports (the package's only dependencies).
//   dist/client/types/…            declarations by `tsc --emitDeclarationOnly` (tsconfig.client.json),
//                                  laid out as the sources are, so their relative imports hold, plus
//                                  generated/openapi.d.ts, which tsc reads but never emits.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = join(root, 'dist', 'client');
rmSync(out, { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: ['client/index.ts'],
  outfile: 'dist/client/index.mjs',
  bundle: true,
  external: ['openapi-fetch', 'standardwebhooks'],
  platform: 'neutral',
  format: 'esm',
  target: 'es2022',
  sourcemap: true,
  logLevel: 'warning',
});

execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.client.json'], { cwd: root, stdio: 'inherit' });
mkdirSync(join(out, 'types', 'generated'), { recursive: true });
copyFileSync(join(root, 'generated', 'openapi.d.ts'), join(out, 'types', 'generated', 'openapi.d.ts'));

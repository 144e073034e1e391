// Compiles the reference server to plain JavaScript (dist/server/main.mjs) with esbuild, so that
// `npm start` runs node directly: no TypeScript compilation at every start (D34 asks a restarted
// server to answer within a second). `npm start` runs it first (prestart); it takes well under a
// second. Packages stay external: node_modules is read as it is.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
await build({
  absWorkingDir: root,
  entryPoints: ['server/main.ts'],
  outfile: 'dist/server/main.mjs',
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});

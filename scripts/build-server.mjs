// Compiles the reference server to one JavaScript file (dist/server/main.mjs), so that
// `npm start` runs node directly: no TypeScript compilation at every start, and start-up time
// matters (D34). `npm start` runs it first (prestart); it takes about a second. better-sqlite3
// stays external (a native addon). The request validators are made here too, not at every start
// (scripts/server-validators.ts). How: scripts/bundle-node.mjs.
//
// `npm start` maps stacks to the sources (--enable-source-maps), which costs about 20 ms of its
// start; a map without the sources' text (Node reads them from the clone when it shows a line)
// is a third the size and saves about 10 MB of memory.
import { bundleNodeCommand } from './bundle-node.mjs';

await bundleNodeCommand({
  entry: 'server/main.ts',
  outfile: 'dist/server/main.mjs',
  external: ['better-sqlite3'],
  validators: 'scripts/server-validators.ts',
  sourcesContent: false,
});

// Compiles the reference server to one JavaScript file (dist/server/main.cjs, run by the small
// dist/server/main.mjs with V8's code cache), so that `npm start` runs node directly: no
// TypeScript compilation at every start, and start-up time matters (D34). `npm start` runs it
// first (prestart); it takes about a second, and is skipped when nothing the server is made from
// changed (a stamp of its inputs' contents, dist/server/.stamp.json, see build-stamp.mjs;
// `--force` builds all the same). better-sqlite3 stays external (a native addon). The request
// validators are made here too, not at every start (scripts/server-validators.ts). How:
// scripts/bundle-node.mjs.
//
// The code cache (`codeCache` in bundle-node.mjs) is written beside the script by the first run
// that ends with code 0 (a server stopped by a signal) and read by every start after it: V8
// neither parses the script nor compiles what the start calls. The server maps its stacks to the
// sources itself (server/mapped-stacks.ts), reading the map beside the script only when a stack
// is first written: Node's --enable-source-maps read and decoded it at every start. A map without
// the sources' text is a third the size. The script is compact (no comments or indentation) and
// Latin-1 only: see `compact` in bundle-node.mjs.
import { bundleNodeCommand } from './bundle-node.mjs';
import { sourcesUnder, upToDate, writeStamp } from './build-stamp.mjs';

const stamp = 'dist/server/.stamp.json';
const outputs = ['dist/server/main.mjs', 'dist/server/main.cjs', 'dist/server/contract-validators.cjs'];
// What the bundle reads besides its modules (those the last build read are recorded too): the
// contract, the scripts that build it, the validators' module and what it may import, the packages' versions.
const inputs = [
  'package.json',
  'package-lock.json',
  'generated/openapi.yaml',
  'scripts/build-server.mjs',
  'scripts/bundle-node.mjs',
  'scripts/build-stamp.mjs',
  'scripts/server-validators.ts',
  ...sourcesUnder('lib'),
];

if (process.argv.includes('--force') || !upToDate(stamp, inputs, outputs)) {
  const read = await bundleNodeCommand({
    entry: 'server/main.ts',
    outfile: 'dist/server/main.mjs',
    external: ['better-sqlite3'],
    validators: 'scripts/server-validators.ts',
    sourcesContent: false,
    compact: true,
    codeCache: true,
  });
  writeStamp(stamp, [...inputs, ...read.filter((path) => !path.startsWith('node_modules/') && !path.startsWith('dist/'))]);
}

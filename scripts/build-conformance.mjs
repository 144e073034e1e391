// Compiles the conformance command to one JavaScript file (dist/conformance/cli.mjs), the
// package's `pix-conformance`: installed from the tarball it needs no TypeScript, no test runner
// and no dependency (Ajv, the QR decoder… are inside), only Node. `npm pack` runs it (prepack).
// How: scripts/bundle-node.mjs.
import { bundleNodeCommand } from './bundle-node.mjs';

// The source map maps stacks to the sources' names and lines without carrying their text (a
// third of the packed package's size, and QA's package stays under 1 MB).
await bundleNodeCommand({ entry: 'conformance/cli.ts', outfile: 'dist/conformance/cli.mjs', sourcesContent: false });

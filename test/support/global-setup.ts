/**
 * Once per vitest run, before any test file: the docs page (dist/docs/), which the server serves
 * and the docs tests read. `npm ci` builds nothing (the package has no `prepare` script: installed
 * from its tarball it must run none), so a test run makes what it reads, from the sources as they
 * are. It takes about two seconds. The compiled server is built on demand by
 * server/test-support/processes.ts.
 */
import { buildDocs } from '../../scripts/docs/build.js';

export default function setup(): void {
  buildDocs();
}

/**
 * Once per vitest run, before any test file: the docs page (dist/docs/), which the server serves
 * and the docs tests read. `npm ci` builds nothing (the package has no `prepare` script: installed
 * from its tarball it must run none), so a test run makes what it reads, from the sources as they
 * are. It takes two to eight seconds, so a run whose sources are those of the last build keeps that
 * build (`buildDocsIfChanged`: the inputs' hash is kept beside the page). The compiled server is built on demand by
 * server/test-support/processes.ts.
 */
import { buildDocsIfChanged } from '../../scripts/docs/build.js';
import { removeBundledCommands } from '../../server/test-support/processes.js';

/** Builds the docs page; the teardown removes the commands bundled by the test processes. */
export default function setup(): () => void {
  buildDocsIfChanged();
  return removeBundledCommands;
}

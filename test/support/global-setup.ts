/**
 * Once per vitest run, before any test file: the docs page (dist/docs/), which the server serves
 * and the docs tests read. `npm ci` builds nothing (the package has no `prepare` script: installed
 * from its tarball it must run none), so a test run makes what it reads, from the sources as they
 * are. It takes two to eight seconds, so a run whose sources are those of the last build keeps that
 * build (`buildDocsIfChanged`: the inputs' hash is kept beside the page). The compiled server is built on demand by
 * server/test-support/processes.ts.
 *
 * The shared mock (test/support/mock-process.ts `sharedMock`) is started by the first file that
 * asks for it, in the folder named here (made only then); the teardown stops it and removes the folder. vitest runs this setup once per
 * project, in its own process: the folder is named after that process, so every project of the
 * run gets the same one.
 */
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { seedView } from '../../conformance/engine/seed-view.js';
import { validatorMaker } from '../../lib/contract/ajv.js';
import { loadBundledContract } from '../../lib/contract/bundled.js';
import { cachedCode } from '../../lib/contract/validator-cache.js';
import { buildDocsIfChanged } from '../../scripts/docs/build.js';
import { removeBundledCommands } from '../../server/test-support/processes.js';
import { processGroupAlive, reapGroup, sharedMockFiles } from './mock-process.js';

const sharedMockFolder = join(tmpdir(), `pix-shared-mock-${process.pid}`);

/** Stops the shared mock if a file started it; fails the run if any of it outlives SIGTERM. */
async function stopSharedMock(): Promise<void> {
  let pid: number;
  try {
    pid = Number(readFileSync(join(sharedMockFolder, sharedMockFiles.pid), 'utf8'));
  } catch {
    rmSync(sharedMockFolder, { recursive: true, force: true });
    return;
  }
  rmSync(sharedMockFolder, { recursive: true, force: true });
  if (!processGroupAlive(pid)) return;
  process.kill(-pid, 'SIGTERM');
  if (await reapGroup(pid)) throw new Error(`the shared mock (process group ${pid}) was still alive 5 s after SIGTERM`);
}

/**
 * The validators every test process reads from the clone's cache (lib/contract/validator-cache.ts):
 * the contract's with and without defaults (servers, checkers) and its seed view's (conformance
 * runs), made here once when the cache has none of them (a fresh clone), not by each of the first
 * processes that ask at the same time.
 */
function makeContractValidators(): void {
  const contract = loadBundledContract();
  for (const [view, useDefaults] of [
    [contract, true],
    [contract, false],
    [seedView(contract), false],
  ] as const)
    cachedCode(view, useDefaults, validatorMaker);
}

/** Builds the docs page and provides the shared mock's folder; the teardown stops the mock and removes the commands bundled by the test processes. */
export default function setup(project: TestProject): () => Promise<void> {
  buildDocsIfChanged();
  makeContractValidators();
  project.provide('sharedMockFolder', sharedMockFolder);
  project.provide('testRunPid', process.pid);
  return async () => {
    await stopSharedMock();
    removeBundledCommands();
  };
}

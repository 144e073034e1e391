/**
 * `npm run contract:release`: records the bundled contract as released, under its `info.version`
 * (`releases/openapi-<version>.yaml`, committed), and starts an empty list of acknowledged
 * breaking changes since it. From then on `npm run lint:breaking` judges the contract against it.
 * The version must be above the last release's: raise `info.version` in openapi/openapi.yaml and
 * run `npm run build:contract` first.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { bundledContractPath } from '../../lib/contract/bundled.js';
import { acknowledgedFile, compareVersions, releases, releasesDir, repoRoot } from './breaking.js';

export function release(contractPath = bundledContractPath, dir = releasesDir): string {
  const version = String((parse(readFileSync(contractPath, 'utf8')) as { info?: { version?: unknown } }).info?.version ?? '');
  if (!/^\d+\.\d+\.\d+$/.test(version)) throw new Error(`info.version is "${version}": a release needs MAJOR.MINOR.PATCH`);
  const last = releases(dir).at(-1);
  if (last && compareVersions(version, last.version) <= 0)
    throw new Error(`info.version ${version} is not above the last release ${last.version}: raise it in openapi/openapi.yaml, then npm run build:contract`);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `openapi-${version}.yaml`);
  copyFileSync(contractPath, path);
  writeFileSync(
    join(dir, acknowledgedFile),
    [
      `# Deliberate breaking changes of the contract since its release ${version}, each with the decision`,
      '# (openapi/DECISIONS.md) that explains it; `npm run lint:breaking` fails on any other. See',
      '# docs/contract.md, "Releases and breaking changes". `npm run contract:release` empties it.',
      `since: ${version}`,
      'acknowledged: []',
      '',
    ].join('\n'),
  );
  return path;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const path = release();
    console.log(`Released the contract as ${relative(repoRoot, path)}; commit it with releases/${acknowledgedFile}.`);
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 1;
  }
}

#!/usr/bin/env node
/**
 * `npm run lint` and `npm run typecheck`: `node scripts/once-per-tree.mjs <script>…` runs the named
 * npm scripts in order (`npm run -s <script>`), stopping at the first that fails, unless they last
 * passed on exactly the files of the working tree as they are now. The files are those git sees
 * (tracked, and untracked but not ignored: what the linters and the compiler read;
 * package-lock.json stands for the tools' versions); their contents are recorded as a build's
 * inputs are (scripts/build-stamp.mjs), in node_modules/.cache/once-per-tree/<step>.json once the
 * scripts pass, and only when no file changed while they ran.
 *
 * Two runs of the same step at the same time take turns (proper-lockfile): `npm test` runs the
 * lint and the type check beside the tests, and `npm run test:operation`, which one of those tests
 * runs, runs them too; the second finds the first's stamp and says so instead of doing the work
 * again (about 45 s of CPU in a fresh clone). Outside a git checkout the scripts run every time.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { contentsOf, repoRoot, upToDate, writeStamp } from './build-stamp.mjs';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write('usage: node scripts/once-per-tree.mjs <npm script>…\n');
  process.exit(2);
}
const step = process.env.npm_lifecycle_event || scripts.join('+');

/** The files git sees in the working tree, as repository-relative paths; undefined outside a checkout. */
function treeFiles() {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: repoRoot, encoding: 'utf8' });
  if (listed.status !== 0) return undefined;
  // A file deleted but not yet staged is still listed: it is recorded as missing.
  return listed.stdout.split('\0').filter((path) => path !== '' && !isFolder(path));
}

/** A submodule or nested checkout is listed as a folder: its files are not this tree's. */
function isFolder(path) {
  try {
    return statSync(join(repoRoot, path)).isDirectory();
  } catch {
    return false;
  }
}

/** Runs the scripts in order; the exit code of the first that fails, else 0. */
async function runScripts() {
  for (const script of scripts) {
    const code = await new Promise((resolve) => {
      const child = spawn(npm, ['run', '-s', script], { cwd: repoRoot, stdio: 'inherit' });
      child.on('error', () => resolve(1));
      child.on('close', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
    });
    if (code !== 0) return code;
  }
  return 0;
}

const before = treeFiles();
if (before === undefined) process.exit(await runScripts());

// One stamp and one lock per step and checkout (two checkouts may share a node_modules).
const folder = join(repoRoot, 'node_modules', '.cache', 'once-per-tree');
mkdirSync(folder, { recursive: true });
const name = `${step.replace(/[^\w.-]/g, '_')}-${createHash('sha1').update(repoRoot).digest('hex').slice(0, 8)}`;
const stamp = join('node_modules', '.cache', 'once-per-tree', `${name}.json`);
// The holder refreshes its lock every 5 s; a lock left by a process that died is taken after 10 s.
// A waiter waits as long as the longest step (a type check from cold under load: minutes).
const release = await lockfile.lock(join(folder, name), {
  realpath: false,
  stale: 10_000,
  retries: { retries: 2_400, factor: 1, minTimeout: 250, maxTimeout: 250 },
});
let code;
try {
  const files = treeFiles() ?? before;
  if (upToDate(stamp, files, [])) {
    process.stdout.write(`${step}: passed on these files already (${stamp}; a change to any file runs it again)\n`);
    code = 0;
  } else {
    const recorded = contentsOf(files);
    code = await runScripts();
    const after = treeFiles() ?? files;
    if (code === 0 && JSON.stringify(contentsOf(after)) === JSON.stringify(recorded)) writeStamp(stamp, files, recorded);
  }
} finally {
  await release();
}
process.exit(code);

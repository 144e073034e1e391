/**
 * The integrator's package, packages/sandbox (`pix-payments-sandbox`), as a stranger gets it: built
 * (scripts/build-sandbox.mjs, what its prepack runs) and packed as `npm pack -w packages/sandbox`
 * packs it, installed from the tarball alone into an empty project (`npm init -y`) outside the
 * repository, and there each bin run by npx, the project CommonJS and then an ES module:
 * - `pix-sandbox` starts, prints a development key, answers a request with it, serves /docs/; a
 *   second start on the same data folder prints no key and the first key still works;
 * - `pix-keys create` makes a key the running sandbox accepts, `list` names its company;
 * - `pix-sandbox docs --out DIR` writes the page; `pix-mock` answers a request, and Prefer picks the answer;
 * - each prints --help, exits 2 with one line on a wrong flag, and says what to install when
 *   better-sqlite3 or Prism is missing (moved away for the check).
 * better-sqlite3 compiles its addon when installed (about 90 s): the install here skips install
 * scripts and puts the addon this repository's install built (same version) in its place; with
 * PIX_PACK_BUILD_ADDON=1 the install builds it as a user's does. On another Node line
 * (`npm run test:node`) the line's own addon is loaded instead (scripts/node-lines/sqlite-addon.cjs).
 * Sizes and install times are printed (the README keeps them).
 */
// long-running: about 130 s (packs, installs and runs every bin of the sandbox package, twice); test/support/sequencer.ts starts it early
import { type ChildProcess, spawn, execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { configVariables } from '../../server/config.js';
import { freePort, repoRoot } from '../../server/test-support/processes.js';
import { cleanEnv, npm, npx, type Ran, repoPackage, run } from './package-support.js';

const sandboxDir = join(repoRoot, 'packages', 'sandbox');
const sandboxPackage = JSON.parse(readFileSync(join(sandboxDir, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};
const API_KEY = /sk_[A-Za-z0-9_-]{20,}/;

interface Child {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}
// The two projects' node_modules are large: their folder is removed with time to do it.
let sandboxFolder: string | undefined;
beforeAll(() => {
  sandboxFolder = mkdtempSync(join(tmpdir(), 'pix-sandbox-pack-'));
});
afterAll(() => {
  if (sandboxFolder !== undefined) rmSync(sandboxFolder, { recursive: true, force: true });
}, 300_000);
const children = new Set<Child>();
afterEach(async () => {
  for (const running of [...children]) {
    try {
      process.kill(-running.child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
    await running.exited;
  }
});

/** A user's shell (`cleanEnv`) without any of the server's settings: the bins read their own flags' defaults. */
function binEnv(): NodeJS.ProcessEnv {
  const env = cleanEnv();
  for (const name of configVariables) delete env[name];
  return env;
}

/** `npx --no-install <bin> <args>` in `cwd`, run to its end. */
function runBin(cwd: string, bin: string, args: readonly string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(npx, ['--no-install', bin, ...args], { cwd, env: binEnv(), timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

/** `npx --no-install <bin> <args>` in `cwd`, in its own process group (killed after the test). */
function startBin(cwd: string, bin: string, args: readonly string[]): Child {
  const child = spawn(npx, ['--no-install', bin, ...args], { cwd, env: binEnv(), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const running: Child = {
    child,
    output: () => output,
    exited: new Promise((resolve) => child.once('close', (code) => resolve(code))),
  };
  children.add(running);
  void running.exited.then(() => children.delete(running));
  return running;
}

/** Resolves once `pattern` is in the child's output; fails with the output if it exits first or takes 60 s. */
function waitFor(running: Child, pattern: RegExp, what: string): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}:\n${running.output()}`)), 60_000);
    const check = () => {
      const found = pattern.exec(running.output());
      if (!found) return;
      clearTimeout(timer);
      running.child.stdout!.off('data', check);
      running.child.stderr!.off('data', check);
      resolve(found);
    };
    running.child.stdout!.on('data', check);
    running.child.stderr!.on('data', check);
    void running.exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${what}: the command exited first:\n${running.output()}`));
    });
    check();
  });
}

/** Stops a command as Ctrl+C does (its process group, npx and the command, get SIGINT) and waits for it. */
async function stop(running: Child): Promise<void> {
  process.kill(-running.child.pid!, 'SIGINT');
  await running.exited;
}

let packed: Promise<{ tarball: string; files: string[]; size: number }> | undefined;
function packSandbox(work: string) {
  packed ??= (async () => {
    const built = await run(process.execPath, [join(repoRoot, 'scripts', 'build-sandbox.mjs')], repoRoot);
    expect(built.code, built.stdout + built.stderr).toBe(0);
    const pack = await run(npm, ['pack', '-w', 'packages/sandbox', '--ignore-scripts', '--json', '--pack-destination', work], repoRoot);
    expect(pack.code, pack.stderr).toBe(0);
    const [info] = JSON.parse(pack.stdout) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>;
    console.log(`${sandboxPackage.name}: ${(info!.size / 1024 / 1024).toFixed(2)} MB packed`);
    return { tarball: join(work, info!.filename), files: info!.files.map((f) => f.path), size: info!.size };
  })();
  return packed;
}

describe('the sandbox package', () => {
  test('is a workspace of the repository, with the three bins and the two heavy dependencies QA does not install', () => {
    expect(JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).workspaces).toEqual(['packages/sandbox']);
    expect(Object.keys(sandboxPackage.bin).sort()).toEqual(['pix-keys', 'pix-mock', 'pix-sandbox']);
    expect(Object.keys(sandboxPackage.dependencies).sort()).toEqual(['@stoplight/prism-cli', 'better-sqlite3']);
    for (const [name, version] of Object.entries(sandboxPackage.dependencies)) expect(repoPackage.devDependencies[name], name).toBe(version);
    const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { link?: boolean; dependencies?: object }>;
    };
    expect(lock.packages['node_modules/pix-payments-sandbox']).toMatchObject({ link: true });
    expect(lock.packages['packages/sandbox']?.dependencies).toEqual(sandboxPackage.dependencies);
  });

  test('installed from its tarball in an empty project, every bin runs, whether the project is commonjs or module', { timeout: 600_000 }, async (context) => {
    const work = join(sandboxFolder!, 'sandbox');
    const project = join(work, 'my-app');
    mkdirSync(project, { recursive: true });
    const { tarball, files } = await packSandbox(sandboxFolder!);
    expect(
      files.filter(
        (f) =>
          !/^(bin\/[\w-]+\.mjs|dist\/(server\/main\.mjs|keys\.mjs|mock\.mjs|docs\/[\w.]+)|generated\/openapi\.yaml|scripts\/mock\/(in-prism\.mjs|prism-guard\.cjs)|package\.json|README\.md|LICENSE)$/.test(
            f,
          ),
      ),
      'only the bins, the compiled commands, the docs page, the contract, the front and the guard the mock loads into Prism, package.json, README and LICENSE',
    ).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'README.md',
        'dist/docs/index.html',
        'dist/server/main.mjs',
        'dist/keys.mjs',
        'dist/mock.mjs',
        'scripts/mock/in-prism.mjs',
        'scripts/mock/prism-guard.cjs',
      ]),
    );
    // Its guide stands alone: no link the tarball cannot follow (a relative one), and each bin is in it.
    const readme = readFileSync(join(sandboxDir, 'README.md'), 'utf8');
    expect(readme.match(/\]\((?!https?:\/\/)[^)]*\)/g) ?? [], 'relative links in the sandbox README').toEqual([]);
    for (const bin of Object.keys(sandboxPackage.bin)) expect(readme).toContain(`npx ${bin}`);
    // Both READMEs install the tarball npm pack writes.
    for (const guide of [readme, readFileSync(join(repoRoot, 'README.md'), 'utf8')]) expect(guide).toContain(`npm install ./${basename(tarball)}`);

    expect((await run(npm, ['init', '-y'], project)).code).toBe(0);
    expect((await run(npm, ['pkg', 'set', 'type=commonjs'], project)).code).toBe(0);
    const buildAddon = process.env.PIX_PACK_BUILD_ADDON === '1';
    const started = Date.now();
    const installed = await run(npm, ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', ...(buildAddon ? [] : ['--ignore-scripts'])], project);
    if (installed.code !== 0 && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH/.test(installed.stderr)) {
      console.warn(`NOTICE: npm could not reach the registry for the sandbox's dependencies: the sandbox package test is skipped.\n${installed.stderr}`);
      context.skip();
    }
    expect(installed.code, installed.stderr).toBe(0);
    const addon = join('build', 'Release', 'better_sqlite3.node');
    if (!buildAddon) {
      mkdirSync(join(project, 'node_modules', 'better-sqlite3', 'build', 'Release'), { recursive: true });
      copyFileSync(join(repoRoot, 'node_modules', 'better-sqlite3', addon), join(project, 'node_modules', 'better-sqlite3', addon));
    }
    console.log(
      `${sandboxPackage.name} installed in an empty project in ${((Date.now() - started) / 1000).toFixed(1)} s (${buildAddon ? 'addon built' : "install scripts skipped, the repository's addon reused"})`,
    );

    /** Each bin starts in the project as it is: its usage on --help, exit 2 and one line for a flag it lacks. */
    const everyBinStarts = async (type: string) => {
      for (const bin of Object.keys(sandboxPackage.bin)) {
        const help = await runBin(project, bin, ['--help']);
        expect(help.code, `${bin} --help in a ${type} project: ${help.stderr}`).toBe(0);
        expect(help.stdout, bin).toMatch(new RegExp(`^(Usage: )?${bin} `));
        const wrong = await runBin(project, bin, ['--no-such-flag']);
        expect(wrong.code, `${bin} --no-such-flag in a ${type} project`).toBe(2);
        expect(wrong.stderr.split('\n')[0], bin).toMatch(/--no-such-flag/);
        expect(wrong.stderr, bin).not.toMatch(/\n\s+at /);
      }
    };
    await everyBinStarts('commonjs');

    // The sandbox: a first start prints the development key, which works; the docs are served.
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const first = startBin(project, 'pix-sandbox', ['--port', String(port)]);
    const [key] = await waitFor(first, API_KEY, 'the development key');
    await waitFor(first, /"msg":"listening"/, 'the listening line');
    expect(first.output()).toContain('Empty database: created the development company');
    expect((await fetch(`${base}/client`, { headers: { 'X-API-KEY': key } })).status).toBe(200);
    expect((await fetch(`${base}/client`, { headers: { 'X-API-KEY': `${key}x` } })).status).toBe(401);
    const docs = await fetch(`${base}/docs/`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toMatch(/<html/i);
    await stop(first);
    expect(first.output(), 'stopped as the server stops').toContain('"msg":"shutting down"');
    expect(readdirSync(join(project, 'pix-sandbox-data'))).toContain('payments.db');

    // A second start keeps the data: no new key, the first one still works; the keys command's key too.
    const second = startBin(project, 'pix-sandbox', ['--port', String(port)]);
    await waitFor(second, /"msg":"listening"/, 'the second start');
    expect(second.output()).not.toMatch(API_KEY);
    expect((await fetch(`${base}/client`, { headers: { 'X-API-KEY': key } })).status).toBe(200);
    const made = await runBin(project, 'pix-keys', ['create', '--company', 'Minha Loja', '--json']);
    expect(made.code, made.stderr).toBe(0);
    const { apiKey } = JSON.parse(made.stdout) as { apiKey: string };
    expect((await fetch(`${base}/client`, { headers: { 'X-API-KEY': apiKey } })).status).toBe(200);
    const list = await runBin(project, 'pix-keys', ['list']);
    expect(list.stdout).toContain('Minha Loja');
    // --data-dir names another sandbox's database: not this one.
    const elsewhere = await runBin(project, 'pix-keys', ['--data-dir', 'elsewhere', 'list']);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(elsewhere.stdout).not.toContain('Minha Loja');
    expect(readdirSync(join(project, 'elsewhere'))).toContain('payments.db');
    await stop(second);

    const site = await runBin(project, 'pix-sandbox', ['docs', '--out', 'site']);
    expect(site.code, site.stderr).toBe(0);
    expect(readdirSync(join(project, 'site')).sort()).toEqual(['decisions.html', 'index.html', 'integrating.html', 'openapi.json', 'openapi.yaml']);

    // The mock: the contract's example, and the answer Prefer asks for.
    const mockPort = await freePort();
    const mock = startBin(project, 'pix-mock', ['--port', String(mockPort)]);
    await waitFor(mock, /Ctrl\+C stops it/, 'the mock');
    expect(mock.output(), "the installed mock names no clone's command").not.toContain('npm run');
    const answer = await fetch(`http://127.0.0.1:${mockPort}/client`, { headers: { 'X-API-KEY': 'sk_test' } });
    expect(answer.status).toBe(200);
    expect(Array.isArray(await answer.json())).toBe(true);
    const preferred = await fetch(`http://127.0.0.1:${mockPort}/client`, { headers: { 'X-API-KEY': 'sk_test', Prefer: 'code=401' } });
    expect(preferred.status).toBe(401);
    expect(preferred.headers.get('content-type')).toContain('application/problem+json');
    await stop(mock);

    // A part missing: each command says what to install, without a stack.
    const modules = join(project, 'node_modules');
    for (const [bin, dependency] of [
      ['pix-sandbox', 'better-sqlite3'],
      ['pix-keys', 'better-sqlite3'],
      ['pix-mock', '@stoplight/prism-cli'],
    ] as const) {
      renameSync(join(modules, dependency), join(modules, `${dependency}.away`));
      try {
        const args = bin === 'pix-keys' ? ['list'] : ['--port', String(await freePort())];
        const refused = await runBin(project, bin, args);
        expect(refused.code, bin).toBe(1);
        expect(refused.stderr, bin).toContain(`npm install ${dependency}@${sandboxPackage.dependencies[dependency]}`);
        expect(refused.stderr, bin).not.toMatch(/\n\s+at /);
      } finally {
        renameSync(join(modules, `${dependency}.away`), join(modules, dependency));
      }
    }

    // The bins are ES modules of their own (.mjs): a module project runs them just the same.
    expect((await run(npm, ['pkg', 'set', 'type=module'], project)).code).toBe(0);
    await everyBinStarts('module');
    const moduleStart = startBin(project, 'pix-sandbox', ['--port', String(port)]);
    await waitFor(moduleStart, /"msg":"listening"/, 'the start in a module project');
    expect((await fetch(`${base}/client`, { headers: { 'X-API-KEY': key } })).status).toBe(200);
    await stop(moduleStart);
  });
});

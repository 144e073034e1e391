/**
 * What a user installs is what is tested: the project packed as `npm pack` packs it, the tarball
 * installed into a new project made by the integrator's guide's own steps (`npm init -y`, which
 * npm 11 makes `"type": "commonjs"`, `npm pkg set type=module`, `npm install "$PIX_TOOLKIT_TGZ"`,
 * run by bash in an empty folder outside the repository), and there
 * - the integrator's guide's client blocks type-check and the first runs against the compiled reference
 *   server as the guide says, saved as `main.mjs` and compiled from `main.ts` (a product, a
 *   development payment link, a sandbox payment, read back PAID);
 * - calls on the wrong base URL do not compile (the installed declarations, not the sources);
 * - the install pulls the client's two dependencies and nothing of the server's, and warns of nothing;
 * - the installed `pix-conformance` (`npx pix-conformance`, and the README's QA block as it stands: `--profile own` with a second
 *   company's key and a webhook receiver, then the seed profile) runs the whole suite against the compiled
 *   server with only Node and the package: a clean run (exit 0); and `npx pix-conformance` writes its
 *   JUnit report where the user asked (a run of one operation's checks: the whole suite once is enough), its `--help`;
 * On the other tested Node lines the whole test runs again (`npm run test:node -- <major>`, which CI runs).
 *
 * The package is built with `npm run build:client` and `build:conformance` and packed with
 * `--ignore-scripts`, so that the build's output does not mix with `npm pack --json`'s; `prepack`
 * runs the same builds for a plain `npm pack`, as checked below.
 * npm may reach the registry for the two dependencies and TypeScript (the cache is tried first);
 * without either, the test is skipped with a NOTICE.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { configVariables } from '../../server/config.js';
import { createCompanyKey, listening, printedKey, repoRoot, startBuiltServer, freePort, useChildProcesses } from '../../server/test-support/processes.js';
import { runBash } from '../support/bash.js';
import { fencedBlocks } from '../support/markdown.js';

const folder = useChildProcesses('pix-pack-');
const repoPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** This process's environment without vitest's and npm's own variables (the child is a user's shell, not this test run), and `env` on top. */
function cleanEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|npm_|NODE_ENV$|TEST$|INIT_CWD$|CONFORMANCE_)/.test(name)));
  return { ...clean, NO_COLOR: '1', ...env };
}

function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: cleanEnv(env), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) + (error && typeof error.code !== 'number' ? `\n${error.message}` : '') });
    });
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

/** The calls the types must refuse, one per line, each with the error tsc must report there. */
const mustNotCompile: Array<[string, { line: string; code: string }]> = [
  ['a {base_url} operation on {base_url_alt}', { line: "await pix.alt.POST('/charge/payment-link', { body: { total: 500 } });", code: 'TS2345' }],
  [
    'a {base_url_alt} operation on {base_url}',
    { line: "await pix.base.POST('/product', { body: { name: 'n', description: 'd', price: 1, sku: 's', displayId: 'i' } });", code: 'TS2345' },
  ],
  ['an unknown body field', { line: "await pix.base.POST('/charge/payment-link', { body: { total: 500, amount: 500 } });", code: 'TS2353' }],
  [
    'a field the answer does not have',
    { line: "void (await pix.base.POST('/charge/payment-link', { body: { total: 500 } })).data?.data.status;", code: 'TS2339' },
  ],
];

const tsconfig = {
  compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, outDir: 'out', types: ['node'] },
};

describe('the packed package', () => {
  test('prepack builds the client, so a plain npm pack packs what this test packs', () => {
    expect(repoPackage.scripts.prepack).toContain('npm run build:client');
    expect(repoPackage.scripts.prepack).toContain('npm run build:conformance');
    expect(Object.keys(repoPackage.dependencies).sort()).toEqual(['openapi-fetch', 'standardwebhooks']);
  });

  test('installed in an empty project: the guide client blocks compile and run against the reference server; wrong calls do not compile', {
    timeout: 360_000,
  }, async (context) => {
    const work = join(folder(), 'work');
    // Made by the guide's block (`mkdir my-shop && cd my-shop`).
    const project = join(work, 'my-shop');
    mkdirSync(work, { recursive: true });

    for (const script of ['build:client', 'build:conformance']) {
      const built = await run(npm, ['run', '-s', script], repoRoot);
      expect(built.code, built.stdout + built.stderr).toBe(0);
    }
    const packed = await run(npm, ['pack', '--ignore-scripts', '--json', '--pack-destination', work], repoRoot);
    expect(packed.code, packed.stderr).toBe(0);
    const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; size: number; files: Array<{ path: string }> }>;
    const files = info!.files.map((f) => f.path);
    console.log(`${repoPackage.name}: ${(info!.size / 1024 / 1024).toFixed(2)} MB packed`);
    expect(info!.size, "QA's package stays under 1 MB packed").toBeLessThan(1024 * 1024);
    expect(
      files.filter(
        (f) =>
          !/^(dist\/(client|conformance)\/|bin\/pix-conformance\.mjs$|generated\/openapi(\.base_url|\.base_url_alt)?\.yaml$|docs\/conformance\.md$|package\.json$|README\.md$|LICENSE$)/.test(
            f,
          ),
      ),
      'only the client and conformance builds, the conformance bin, the bundled contract and its documents per base URL, the conformance guide, package.json, README and LICENSE',
    ).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/client/index.mjs',
        'dist/client/types/client/index.d.ts',
        'dist/client/types/generated/openapi.d.ts',
        'dist/conformance/cli.mjs',
        'bin/pix-conformance.mjs',
        'generated/openapi.yaml',
        'generated/openapi.base_url.yaml',
        'generated/openapi.base_url_alt.yaml',
        // The guide the README links to travels with the command (issue 35).
        'docs/conformance.md',
        'LICENSE',
      ]),
    );

    // The guide's install steps as they stand: the clone's block names the tarball npm pack wrote
    // (made above; not packed again), the project's block runs in an empty folder, by bash.
    const guide = readFileSync(join(repoRoot, 'docs', 'integrating.md'), 'utf8');
    const [cloneBlock, projectBlock, ...moreShell] = fencedBlocks(guide, '## TypeScript client', 'sh');
    expect(moreShell).toEqual([]);
    expect(cloneBlock).toContain('npm pack');
    expect(/export PIX_TOOLKIT_TGZ="\$PWD\/(\S+\.tgz)"/.exec(cloneBlock!)?.[1], 'the guide names the tarball npm pack writes').toBe(info!.filename);
    const installStarted = Date.now();
    const made = await runBash(projectBlock!, { cwd: work, env: cleanEnv({ PIX_TOOLKIT_TGZ: join(work, info!.filename) }), timeoutMs: 180_000 });
    console.log(`${repoPackage.name} installed by the guide's block in ${((Date.now() - installStarted) / 1000).toFixed(1)} s`);
    if (made.code !== 0 && /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH/.test(made.stderr)) {
      console.warn(`NOTICE: npm could not reach the registry for the client's dependencies: the packed-package test is skipped.\n${made.stderr}`);
      context.skip();
    }
    expect(made.code, made.stdout + made.stderr).toBe(0);
    // This machine's npm configuration warns of its own settings ("Unknown user config"); nothing else may warn.
    expect(made.stderr.split('\n').filter((line) => /\bwarn\b/i.test(line) && !/Unknown (user|global|project) config/.test(line))).toEqual([]);
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))).toMatchObject({ type: 'module' });
    const dev = repoPackage.devDependencies;
    const installed = await run(
      npm,
      ['install', '-D', `typescript@${dev.typescript}`, `@types/node@${dev['@types/node']}`, '--prefer-offline', '--no-audit', '--no-fund'],
      project,
    );
    expect(installed.code, installed.stderr).toBe(0);
    const modules = readdirSync(join(project, 'node_modules'));
    expect(modules).toEqual(expect.arrayContaining(['openapi-fetch', 'standardwebhooks', repoPackage.name]));
    for (const serverOnly of ['hono', 'better-sqlite3', '@stoplight', 'pg', 'pino', 'tsx', 'ajv'])
      expect(modules, `${serverOnly} is not the client's`).not.toContain(serverOnly);

    // The integrator's guide's blocks as they stand: the first is a program, the second a webhook endpoint (compiled only).
    const blocks = fencedBlocks(guide, '## TypeScript client', 'ts');
    expect(blocks).toHaveLength(2);
    writeFileSync(join(project, 'main.mjs'), blocks[0]!);
    writeFileSync(join(project, 'main.ts'), blocks[0]!);
    writeFileSync(join(project, 'webhook.ts'), blocks[1]!);
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ ...tsconfig, files: ['main.ts', 'webhook.ts'] }));
    const tsc = join(project, 'node_modules', '.bin', 'tsc');
    const compiled = await run(tsc, ['-p', '.'], project);
    expect(compiled.code, compiled.stdout + compiled.stderr).toBe(0);

    const preamble = [
      "import { createPixClient } from 'pix-payments-toolkit/client';",
      "const pix = createPixClient({ baseUrl: 'http://localhost:3000', baseUrlAlt: 'http://localhost:3000', apiKey: 'sk_x' });",
    ];
    writeFileSync(join(project, 'wrong.ts'), [...preamble, ...mustNotCompile.map(([, { line }]) => line), 'export {};', ''].join('\n'));
    writeFileSync(
      join(project, 'tsconfig.wrong.json'),
      JSON.stringify({ ...tsconfig, compilerOptions: { ...tsconfig.compilerOptions, noEmit: true }, files: ['wrong.ts'] }),
    );
    const refused = await run(tsc, ['-p', 'tsconfig.wrong.json'], project);
    const errors = [...refused.stdout.matchAll(/^wrong\.ts\((\d+),\d+\): error (TS\d+)/gm)].map(([, line, code]) => `${line} ${code}`);
    expect(errors, refused.stdout).toEqual(mustNotCompile.map(([, { code }], i) => `${preamble.length + 1 + i} ${code}`));

    const port = await freePort();
    // A fast webhook retry, so that the README's own-implementation run sees its refused delivery come again within seconds.
    const server = startBuiltServer({ DATABASE_PATH: join(work, 'payments.db'), PORT: String(port), WEBHOOK_RETRY_SCHEDULE: '0.5,0.5', WEBHOOK_POLL_MS: '50' });
    await listening(server);
    const base = `http://localhost:${port}`;
    // As the guide says to run it: `PIX_API_KEY=sk_… node main.mjs`, and compiled from main.ts.
    for (const program of ['main.mjs', 'out/main.js']) {
      const ran = await run(process.execPath, [program], project, { PIX_BASE_URL: base, PIX_BASE_URL_ALT: base, PIX_API_KEY: printedKey(server) });
      expect(ran.code, `${program}: ${ran.stdout}${ran.stderr}`).toBe(0);
      expect(ran.stdout).toMatch(new RegExp(`^charge (char_\\w+) for 7980 cents: ${base}/pay/\\1$`, 'm'));
      expect(ran.stdout).toMatch(/^charge char_\w+ is PAID$/m);
    }

    // QA's way in: the README's block as it stands, beside the tarball, then the installed command's other uses.
    const readmeQa = fencedBlocks(readFileSync(join(repoRoot, 'README.md'), 'utf8'), '## Where to go next', 'sh').find((b) =>
      b.includes('npx pix-conformance'),
    );
    expect(readmeQa, "the README's QA block").toBeDefined();
    // It leads with the command for your own implementation (the one-liner for a service you do not
    // own was a trap for your own), and both run as pasted: the first with a second company's key
    // (made as the README says) and its webhook receiver, which the server reaches on loopback.
    expect(readmeQa!.indexOf('npx pix-conformance --profile own')).toBeGreaterThanOrEqual(0);
    expect(readmeQa!.indexOf('npx pix-conformance --profile own')).toBeLessThan(readmeQa!.lastIndexOf('npx pix-conformance --base-url'));
    const tarball = /npm install \.\/(\S+\.tgz)/.exec(readmeQa!)?.[1];
    expect(tarball, 'the README installs the tarball npm pack writes').toBe(info!.filename);
    copyFileSync(join(work, info!.filename), join(project, info!.filename));
    const { apiKey: otherApiKey } = await createCompanyKey({ DATABASE_PATH: join(work, 'payments.db') }, 'B');
    const readmeRun = await runBash(readmeQa!, {
      cwd: project,
      env: cleanEnv({ PIX_API_KEY: printedKey(server)!, PIX_OTHER_API_KEY: otherApiKey, PIX_BASE_URL: base }),
      timeoutMs: 180_000,
    });
    expect(readmeRun.code, readmeRun.stdout + readmeRun.stderr).toBe(0);
    // Two runs, in the README's order: the strongest profile with nothing skipped for a missing flag, then the seed profile.
    expect([...readmeRun.stdout.matchAll(/^Profile (\w+) · /gm)].map((m) => m[1])).toEqual(['reference', 'seed']);
    expect(readmeRun.stdout.match(/^Checks: \d+ passed, 0 failed, /gm)).toHaveLength(2);
    // Only the second run (one key, no receiver) says checks did not run; the first ran them all (--strict would fail it).
    expect(readmeRun.stderr.match(/^conformance: \d+ checks? did not run: /gm)).toHaveLength(1);

    const help = await run(npx, ['--no-install', 'pix-conformance', '--help'], project);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('--base-url URL');
    // The whole suite ran clean above (the README's block); its report, written where asked, for one operation's checks.
    const suite = await run(
      npx,
      ['--no-install', 'pix-conformance', '--base-url', base, '--only', 'createClient', '--junit', 'reports/conformance.xml'],
      project,
      { CONFORMANCE_API_KEY: printedKey(server)! },
    );
    expect(suite.code, suite.stdout + suite.stderr).toBe(0);
    expect(suite.stdout).toMatch(/Checks: [1-9]\d* passed, 0 failed/);
    expect(readFileSync(join(project, 'reports', 'conformance.xml'), 'utf8')).toMatch(/<testsuites [^>]*failures="0"/);
  });
});

/**
 * The integrator's package, packages/sandbox (`pix-payments-sandbox`), as a stranger gets it: built
 * (scripts/build-sandbox.mjs, what its prepack runs) and packed as `npm pack -w packages/sandbox`
 * packs it, installed from the tarball alone into an empty CommonJS project and an empty ES module
 * project (`npm init -y`) outside the repository, and there each bin run by npx:
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
          !/^(bin\/[\w-]+\.mjs|dist\/(server\/main\.mjs|keys\.mjs|mock\.mjs|docs\/[\w.]+)|generated\/openapi\.yaml|scripts\/mock\/prism-guard\.cjs|package\.json|README\.md|LICENSE)$/.test(
            f,
          ),
      ),
      'only the bins, the compiled commands, the docs page, the contract, the guard the mock loads into Prism, package.json, README and LICENSE',
    ).toEqual([]);
    expect(files).toEqual(
      expect.arrayContaining(['README.md', 'dist/docs/index.html', 'dist/server/main.mjs', 'dist/keys.mjs', 'dist/mock.mjs', 'scripts/mock/prism-guard.cjs']),
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

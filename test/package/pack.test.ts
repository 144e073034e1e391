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
// long-running: about 90 s (packs and installs QA's package, compiles and runs the guide's client, the README's conformance runs); test/support/sequencer.ts starts it early
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { createCompanyKey, listening, printedKey, repoRoot, startBuiltServer, freePort, useChildProcesses } from '../../server/test-support/processes.js';
import { runBash } from '../support/bash.js';
import { fencedBlocks } from '../support/markdown.js';
import { cleanEnv, npm, npx, repoPackage, run } from './package-support.js';

const folder = useChildProcesses('pix-pack-');

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
    // One thing is changed from the page: the receiver's port, the README's 8099, is a free one, so
    // that this run cannot collide with another on the machine (each Node line's, or a reader's own).
    const receiverFlag = '--webhook-receiver 127.0.0.1:8099';
    expect(readmeQa, 'the README names its receiver as this test expects').toContain(receiverFlag);
    const readmeRun = await runBash(readmeQa!.replace(receiverFlag, `--webhook-receiver 127.0.0.1:${await freePort()}`), {
      cwd: project,
      // The run shares two cores with every other test file: one answer can wait a second for the
      // CPU, which is this machine's load, not the server's time. --profile own's budget is judged
      // in faults.test.ts; here the variable the command reads widens it, and the block stays as pasted.
      env: cleanEnv({ PIX_API_KEY: printedKey(server)!, PIX_OTHER_API_KEY: otherApiKey, PIX_BASE_URL: base, CONFORMANCE_MAX_RESPONSE_TIME: '30000' }),
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

/**
 * The README's "Where to go next", run literally: each shell block is taken from README.md as it
 * stands and run by bash against the compiled server started as `npm start` starts it, with only
 * what the README asks a person to set (the key `npm start` printed, as `PIX_API_KEY`); but for the
 * QA block, which test/package/pack.test.ts runs where the tarball is installed.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { freePort, listening, printedKey, repoRoot, startBuiltServer, useChildProcesses } from '../../server/test-support/processes.js';
import { loadBundledContract } from '../../lib/contract/bundled.js';
import { fencedBlocks } from '../support/markdown.js';
import { runBash } from '../support/bash.js';

const missing = ['bash', 'curl', 'jq'].filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);
if (missing.length > 0)
  console.warn(`NOTICE: ${missing.join(', ')} not installed: the README's front-door blocks are not run (apt-get install ${missing.join(' ')}).`);

const folder = useChildProcesses('pix-front-door-');
const blocks = () => fencedBlocks(readFileSync(join(repoRoot, 'README.md'), 'utf8'), '## Where to go next', 'sh');

describe.skipIf(missing.length > 0)('README "Where to go next"', () => {
  test('has one block for integrators, QA, docs readers, operators and contributors', () => {
    const all = blocks();
    expect(all).toHaveLength(5);
    expect(all[0]).toContain('/charge/payment-link');
    expect(all[1]).toContain('conformance');
    expect(all[2]).toContain('/docs/openapi.json');
    expect(all[3]).toContain('keys -- create');
    expect(all[4]).toContain('test:operation');
  });

  test('its blocks, run by bash in order against the compiled server, each succeed', { timeout: 180_000 }, async () => {
    const port = await freePort();
    const databasePath = join(folder(), 'front-door', 'payments.db');
    const server = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(port) });
    await listening(server);
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PIX_API_KEY: printedKey(server),
      PIX_BASE_URL: `http://localhost:${port}`,
      DATABASE_PATH: databasePath,
    };
    const [integrator, qa, reader, operator, contributor] = blocks();

    const charge = await runBash(integrator!, { env, cwd: repoRoot, timeoutMs: 30_000 });
    expect(charge.code, charge.stderr).toBe(0);
    const answer = JSON.parse(charge.stdout) as { status: number; data: { id: string; devMode: boolean; total: number } };
    expect(answer).toMatchObject({ status: 201, data: { devMode: true, total: 1990 } });
    expect(answer.data.id).toMatch(/^char_/);

    // The QA block installs the packed tarball: test/package/pack.test.ts runs it, as it stands, in
    // the empty project it installs the package in (packing here too would race its build).
    expect(qa).toContain('npx pix-conformance');

    // The docs reader's block lists the paths of the contract the served page links.
    const paths = await runBash(reader!, { env, cwd: repoRoot, timeoutMs: 30_000 });
    expect(paths.code, paths.stderr).toBe(0);
    expect(paths.stdout.trim().split('\n')).toEqual(Object.keys(loadBundledContract().paths as object).sort());

    // The contributor's block is the contributing guide's own, which its test runs as written
    // (scripts/test-operation/test-operation.test.ts): the same command, not a second run of it.
    const guide = readFileSync(join(repoRoot, 'docs', 'contributing.md'), 'utf8');
    const command = contributor!.trim().split('#')[0]!.trim();
    expect(guide.split('\n').some((line) => line.trim().startsWith(command))).toBe(true);

    const keys = await runBash(operator!, { env, cwd: repoRoot, timeoutMs: 30_000 });
    expect(keys.code, keys.stderr).toBe(0);
    const key = /\bsk_[A-Za-z0-9_-]+/.exec(keys.stdout)?.[0];
    expect(key, keys.stdout).toBeDefined();
    const clients = await fetch(`http://localhost:${port}/client`, { headers: { 'X-API-KEY': key! } });
    expect(clients.status).toBe(200);
  });
});

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

/**
 * The section's blocks by whom they are for, each told by what it holds, so a block added, split or
 * moved is placed by its content, not by a count: every block is one reader's, and each reader has one.
 */
const roles = {
  integrator: (block: string) => block.includes('/charge/payment-link'),
  qa: (block: string) => block.includes('npx pix-conformance'),
  reader: (block: string) => block.includes('/docs/openapi.json'),
  operator: (block: string) => block.includes('keys -- create'),
  contributor: (block: string) => block.includes('test:operation'),
} as const;
type Role = keyof typeof roles;

function blocksByRole(): Record<Role, string> {
  const byRole: Partial<Record<Role, string>> = {};
  for (const block of blocks()) {
    const matching = (Object.keys(roles) as Role[]).filter((role) => roles[role](block));
    expect(matching, `a block for exactly one reader:\n${block}`).toHaveLength(1);
    expect(byRole[matching[0]!], `a second block for ${matching[0]}`).toBeUndefined();
    byRole[matching[0]!] = block;
  }
  return byRole as Record<Role, string>;
}

describe.skipIf(missing.length > 0)('README "Where to go next"', () => {
  test('has one block for each of integrators, QA, docs readers, operators and contributors, and no other', () => {
    expect(Object.keys(blocksByRole()).sort()).toEqual(Object.keys(roles).sort());
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
    const { integrator, qa, reader, operator, contributor } = blocksByRole();

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

/**
 * Smoke test of `npm run bench`: one short round end to end, as a child process. It checks that
 * the harness works (every target started, every scenario measured, the targets evaluated), not
 * how fast anything is: the speed targets are the bench's own verdict (exit code 1), not a test's.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import type { Results } from './report.js';
import { scenarios } from './scenarios.js';
import { repoRoot } from './targets.js';

const folder = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function runBench(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const tsx = join(repoRoot, 'node_modules', '.bin', 'tsx');
    execFile(
      tsx,
      [join(repoRoot, 'scripts', 'bench', 'run.ts'), ...args],
      { cwd: repoRoot, timeout: 110_000, maxBuffer: 10 * 1024 * 1024 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
      },
    );
  });
}

test('one short round measures every scenario on every target and evaluates the targets', { timeout: 120_000 }, async () => {
  const out = join(folder, 'results.json');
  // Small client scales: the smoke test checks the harness, not the history's cost.
  const { code, stdout, stderr } = await runBench(['--duration', '1', '--warmup', '0', '--rounds', '1', '--client-scales', '200,400', '--out', out]);
  // 0: every target holds, 1: one fails; 2 (or a kill) would be a broken harness.
  expect([0, 1], `exit code ${code}\n${stderr}`).toContain(code);
  expect(stdout).toContain('Targets');

  const results = JSON.parse(readFileSync(out, 'utf8')) as Results;
  expect(results.rounds).toHaveLength(1);
  expect(results.medians.smallArray.reqPerSec).toBeGreaterThan(0);
  const plan = scenarios([200, 400]);
  expect(Object.keys(results.medians.scenarios)).toEqual(plan.map((scenario) => scenario.name));
  let writes = 0;
  for (const scenario of plan) {
    const figures = results.medians.scenarios[scenario.name]!;
    const ratios = results.ratios.scenarios[scenario.name]!;
    const write = scenario.write;
    for (const target of [
      'reference',
      'sameBytes',
      ...(write ? (['durableWrite'] as const) : []),
      ...(scenario.withPrism ? (['prism'] as const) : []),
    ] as const) {
      expect(figures[target]?.reqPerSec, `${target} ${scenario.name}`).toBeGreaterThan(0);
    }
    if (write) {
      writes++;
      expect(Number.isFinite(ratios.referenceToDurableWrite), `reference / durable write, ${scenario.name}`).toBe(true);
    } else {
      expect(figures.durableWrite, `durable write of a read, ${scenario.name}`).toBeUndefined();
      expect(ratios.referenceToDurableWrite, `reference / durable write of a read, ${scenario.name}`).toBeUndefined();
    }
  }
  expect(writes).toBe(2);
  expect(stdout).toContain('bare Hono, same bytes written durably (limit)');
  expect(stdout).toContain('reference / durable write');
  expect(results.medians.startup.referenceMs).toBeGreaterThan(0);
  expect(results.medians.startup.prismMs).toBeGreaterThan(0);
  expect(results.qr.referenceMsPerPng).toBeGreaterThan(0);
  expect(results.targets.length).toBeGreaterThanOrEqual(11);
  for (const target of results.targets) {
    expect(typeof target.pass, target.name).toBe('boolean');
    expect(Number.isFinite(target.measured), target.name).toBe(true);
  }
});

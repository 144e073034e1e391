/**
 * `npm run test:operation -- <operationId>`: everything that judges one operation, in under a
 * minute: npm test's lint and type check; on SQLite, in one vitest run, the tests named after
 * the operation (its handler's, the store's for the store methods it calls) and the
 * operation-wide tests (marked `@operation-wide`: those that enumerate the contract's operations,
 * lists or decisions) but their rows for other operations; then the conformance checks of the
 * operation (and of the creates whose links read it back) against the reference server in this
 * process. What it runs comes from plan.ts.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { createVitest } from 'vitest/node';
import { createTestServer } from '../../server/test-support/harness.js';
import { startWebhookWorker } from '../../server/webhooks/worker.js';
import { buildDocsIfChanged } from '../docs/build.js';
import { runInProcess } from '../../conformance/test-support/in-process.js';
import type { Outcome } from '../../conformance/engine/types.js';
import { type OperationPlan, planOperation, repoRoot, resourceTestFile, UnknownOperationError } from './plan.js';
import { scopeVariable } from './scope.js';

interface Step {
  name: string;
  ok: boolean;
  seconds: number;
  note?: string;
}

/**
 * Runs one step. The steps run side by side and the operation-wide tests take longest, so the
 * others yield the CPU to them (`background`: a lower scheduling priority), which ends the loop
 * when those tests end rather than later.
 */
function spawnStep(command: string, args: readonly string[], env: NodeJS.ProcessEnv, { background = false } = {}): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: repoRoot, env, stdio: 'inherit' });
    if (background && child.pid !== undefined) {
      try {
        setPriority(child.pid, 10);
      } catch {
        // Not allowed here: the step runs at the same priority, only slower.
      }
    }
    child.once('error', () => resolve(1));
    child.once('close', (code) => resolve(code ?? 1));
  });
}

/**
 * The tests named after the operation (only those: vitest's `-t`, per file) and the operation-wide
 * files but their tests named after other operations only (`widePattern`), in one vitest run on the SQLite projects: one set of workers and one module graph
 * per worker for both, instead of two vitest processes side by side.
 */
async function runTests(plan: OperationPlan): Promise<boolean> {
  const vitest = await createVitest('test', { watch: false, project: 'sqlite*' });
  try {
    // Its reporters, as `vitest run` starts them.
    await vitest.standalone();
    const named = new RegExp(plan.namePattern);
    const wide = plan.widePattern ? new RegExp(plan.widePattern) : undefined;
    const files: { file: string; testNamePattern?: RegExp | undefined }[] = [
      ...plan.testFiles.map((file) => ({ file, testNamePattern: named })),
      ...plan.wideTestFiles.map((file) => ({ file, testNamePattern: wide })),
    ];
    const specifications = files.map(({ file, testNamePattern }) => {
      const moduleId = join(repoRoot, file);
      const project = vitest.projects.find((candidate) => candidate.matchesTestGlob(moduleId));
      if (!project) throw new Error(`${file} is in no SQLite project of vitest.config.ts`);
      return project.createSpecification(moduleId, testNamePattern ? { testNamePattern } : undefined);
    });
    const result = await vitest.runTestSpecifications(specifications);
    return result.unhandledErrors.length === 0 && result.testModules.length === specifications.length && result.testModules.every((module) => module.ok());
  } finally {
    await vitest.close();
  }
}

async function timed(name: string, work: () => Promise<{ ok: boolean; note?: string }>): Promise<Step> {
  const started = Date.now();
  const { ok, note } = await work();
  return { name, ok, seconds: (Date.now() - started) / 1000, ...(note ? { note } : {}) };
}

/** The operation's conformance checks against the reference server in this process (as conformance/faults does). */
async function conformance(plan: OperationPlan): Promise<{ ok: boolean; note: string }> {
  const server = await createTestServer();
  const worker = startWebhookWorker(server.deps, { pollMs: 50, scheduleSeconds: [0.3, 0.3, 0.3], fetch });
  try {
    const report = await runInProcess(server, { runId: 'testop', only: [plan.operation.operationId, ...plan.linkedFrom] });
    const counts = new Map<Outcome, number>();
    for (const result of report.results) counts.set(result.outcome, (counts.get(result.outcome) ?? 0) + 1);
    for (const result of report.results.filter((r) => r.outcome === 'fail')) {
      const messages = result.findings.filter((f) => f.outcome === 'fail').map((f) => f.message);
      console.error(`  conformance ${result.operationId} › ${result.check}: ${messages.join('; ')}`);
    }
    // A skip is no failure, but it says what was not judged (a body with nothing to draw, a check that needs a record the run lacks).
    for (const result of report.results.filter((r) => r.outcome === 'skip'))
      console.log(`  conformance ${result.operationId} › ${result.check} skipped: ${result.skipReason ?? 'no reason given'}`);
    const note = [...counts].map(([outcome, n]) => `${n} ${outcome}`).join(', ');
    return { ok: report.results.length > 0 && !counts.has('fail'), note: report.results.length > 0 ? note : 'no check ran' };
  } finally {
    await worker.stop();
    await server.close();
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const operationId = argv[0];
  if (!operationId || argv.length > 1) {
    console.error('Usage: npm run test:operation -- <operationId>');
    return 2;
  }
  let plan: OperationPlan;
  try {
    plan = planOperation(operationId);
  } catch (error) {
    if (!(error instanceof UnknownOperationError)) throw error;
    console.error(error.message);
    return 2;
  }
  // npm test runs every operation-wide file itself; its test of this command (test-operation.test)
  // runs only the first few, which proves the command without running them all twice.
  const wideLimit = Number(process.env.TEST_OPERATION_WIDE_LIMIT) || undefined;
  const wideCount = plan.wideTestFiles.length;
  if (wideLimit !== undefined) plan = { ...plan, wideTestFiles: plan.wideTestFiles.slice(0, wideLimit) };
  const { operation } = plan;
  console.log(`${operationId}: ${operation.method.toUpperCase()} ${operation.path} on {${operation.server}}, handled in ${plan.handlerFile}`);
  console.log(`  store methods it calls: ${plan.storeMethods.join(', ') || 'none directly'}`);
  if (plan.linkedFrom.length > 0) console.log(`  conformance also runs what reads it back: ${plan.linkedFrom.join(', ')}`);
  console.log(`  tests named after it (-t ${plan.namePattern}): ${plan.testFiles.join(', ') || 'none'}`);
  console.log(`  operation-wide tests, but their rows for operations other than ${plan.scope.join(', ')}: ${plan.wideTestFiles.join(', ') || 'none'}`);
  const resourceTests = resourceTestFile(plan);
  if (!resourceTests || !plan.testFiles.includes(resourceTests))
    console.warn(
      `NOTICE: no test in ${resourceTests ?? plan.handlerFile.replace(/\.ts$/, '.test.ts')} is named after ${operationId}: name its group "${operation.method.toUpperCase()} ${operation.path}".`,
    );

  // The tests on SQLite only, whatever TEST_DATABASE_URL says (vitest.config.ts reads it, and
  // its workers inherit this process's environment).
  delete process.env.TEST_DATABASE_URL;
  // The tests that walk every operation inside one test walk the scope (scope.ts); lint and type check ignore it.
  process.env[scopeVariable] = plan.scope.join(',');
  const env = { ...process.env };
  // The docs page the tests read, made once here rather than by the test files at once.
  buildDocsIfChanged();
  const steps = await Promise.all([
    // npm test's own lint and type check, whole: a handler that type-checks badly, or a file the
    // code lint or the import rules refuse, fails there whatever the tests say.
    timed('lint', async () => ({ ok: (await spawnStep('npm', ['run', '-s', 'lint'], env, { background: true })) === 0 })),
    timed('type check', async () => ({ ok: (await spawnStep('npm', ['run', '-s', 'typecheck'], env, { background: true })) === 0 })),
    plan.testFiles.length === 0 || plan.wideTestFiles.length === 0
      ? Promise.resolve<Step>({
          name: 'tests on SQLite',
          ok: false,
          seconds: 0,
          note: plan.testFiles.length === 0 ? 'no test is named after it' : 'no test file is marked @operation-wide',
        })
      : timed('tests on SQLite', async () => ({
          ok: await runTests(plan),
          note: `${plan.testFiles.length} named after it, ${plan.wideTestFiles.length}${plan.wideTestFiles.length < wideCount ? ` of ${wideCount} (TEST_OPERATION_WIDE_LIMIT)` : ''} operation-wide`,
        })),
  ]);
  steps.push(await timed('conformance checks', () => conformance(plan)));

  console.log(`\n${operationId}:`);
  for (const step of steps) console.log(`  ${step.ok ? 'ok  ' : 'FAIL'} ${step.name} (${step.seconds.toFixed(1)} s)${step.note ? `: ${step.note}` : ''}`);
  return steps.every((step) => step.ok) ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));

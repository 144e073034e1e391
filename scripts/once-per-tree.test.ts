/**
 * scripts/once-per-tree.mjs (`npm run lint`, `npm run typecheck`) in a scratch git checkout whose
 * step counts its runs in a file outside the tree: it runs again after any change git sees, not
 * after a change git ignores; a failure, or a change made while it ran, records nothing; two runs
 * at once do the work once; outside a checkout it runs every time.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { repoRoot } from './build-stamp.mjs';

let root: string;
let outside: string;

/** The step's runs so far (each appends a line to a file outside the tree). */
const runs = () => readFileSync(join(outside, 'runs'), 'utf8').split('\n').filter(Boolean).length;

function step(): { child: ChildProcess; done: Promise<{ code: number; stdout: string }> } {
  const child = spawn(process.execPath, ['scripts/once-per-tree.mjs', 'check'], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, OUTSIDE: outside },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    stdout += chunk;
  });
  return { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ code: code ?? 1, stdout }))) };
}
const runStep = () => step().done;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'once-per-tree-'));
  outside = mkdtempSync(join(tmpdir(), 'once-per-tree-outside-'));
  writeFileSync(join(outside, 'runs'), '');
  mkdirSync(join(root, 'scripts'));
  for (const file of ['once-per-tree.mjs', 'build-stamp.mjs']) copyFileSync(join(repoRoot, 'scripts', file), join(root, 'scripts', file));
  mkdirSync(join(root, 'node_modules'));
  for (const dependency of ['proper-lockfile', 'graceful-fs', 'retry', 'signal-exit'])
    symlinkSync(join(repoRoot, 'node_modules', dependency), join(root, 'node_modules', dependency));
  // The step: counts its run, fails when $OUTSIDE/fail exists, and edits a file of the tree when $OUTSIDE/edit does.
  writeFileSync(
    join(root, 'check.mjs'),
    [
      "import { appendFileSync, existsSync } from 'node:fs';",
      "import { join } from 'node:path';",
      'const outside = process.env.OUTSIDE;',
      "appendFileSync(join(outside, 'runs'), 'run\\n');",
      "if (existsSync(join(outside, 'edit'))) appendFileSync('source.txt', 'edited while it ran\\n');",
      "process.exit(existsSync(join(outside, 'fail')) ? 3 : 0);",
      '',
    ].join('\n'),
  );
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'scratch', private: true, scripts: { check: 'node check.mjs' } }));
  writeFileSync(join(root, '.gitignore'), 'node_modules\n*.log\n');
  writeFileSync(join(root, 'source.txt'), 'one\n');
  execFileSync('git', ['init', '-q'], { cwd: root });
  execFileSync('git', ['add', '.'], { cwd: root });
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('once-per-tree', () => {
  test('runs once per state of the files git sees', async () => {
    // Each row: what is done to the tree, then whether the step runs again.
    const rows: Array<[string, () => void, boolean]> = [
      ['a first run', () => {}, true],
      ['nothing changed', () => {}, false],
      ['a tracked file changed', () => appendFileSync(join(root, 'source.txt'), 'two\n'), true],
      ['an untracked file added', () => writeFileSync(join(root, 'new.txt'), 'new\n'), true],
      ['an ignored file added', () => writeFileSync(join(root, 'ignored.log'), 'x'), false],
      ['a tracked file deleted', () => rmSync(join(root, 'source.txt')), true],
      ['the deleted file back as it was', () => writeFileSync(join(root, 'source.txt'), 'one\ntwo\n'), true],
    ];
    for (const [change, make, again] of rows) {
      const before = runs();
      make();
      const ran = await runStep();
      expect(ran.code, change).toBe(0);
      expect(runs() - before, change).toBe(again ? 1 : 0);
      if (!again) expect(ran.stdout, change).toMatch(/^check: passed on these files already \(node_modules\/\.cache\/once-per-tree\/check-\w+\.json;/m);
    }
  });

  test('a failure, or a change made while it ran, records nothing', async () => {
    writeFileSync(join(outside, 'fail'), '');
    expect((await runStep()).code).toBe(3);
    expect((await runStep()).code).toBe(3);
    expect(runs()).toBe(2);
    rmSync(join(outside, 'fail'));
    writeFileSync(join(outside, 'edit'), '');
    expect((await runStep()).code).toBe(0);
    rmSync(join(outside, 'edit'));
    expect((await runStep()).code).toBe(0);
    expect((await runStep()).code).toBe(0);
    // The run that edited the tree recorded nothing: the next ran on the edited tree, the last did not.
    expect(runs()).toBe(4);
  });

  test('two runs at once do the work once, both passing', async () => {
    const [first, second] = await Promise.all([runStep(), runStep()]);
    expect([first.code, second.code]).toEqual([0, 0]);
    expect(runs()).toBe(1);
    expect([first.stdout, second.stdout].filter((out) => out.includes('passed on these files already'))).toHaveLength(1);
  });

  test('outside a git checkout it runs every time', async () => {
    rmSync(join(root, '.git'), { recursive: true, force: true });
    for (let i = 0; i < 2; i++) expect((await runStep()).code).toBe(0);
    expect(runs()).toBe(2);
  });
});

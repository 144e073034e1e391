import { expect, test } from 'vitest';
import type { ProgressEvent } from '../engine/types.js';
import { ProgressPrinter, type ProgressMode } from './progress.js';
import { sampleReport } from './sample-report.js';

const events: ProgressEvent[] = [
  { kind: 'start', operations: 3 },
  { kind: 'check', operationId: 'getCharge', check: 'ignored_auth', outcome: 'pass' },
  { kind: 'check', operationId: 'listClients', check: 'ignored_auth', outcome: 'fail' },
  { kind: 'check', operationId: 'getCharge', check: 'status_code_conformance', outcome: 'info' },
  { kind: 'done', report: sampleReport() },
];

function run(mode: ProgressMode): string {
  let out = '';
  let clock = 0;
  const printer = new ProgressPrinter(
    (t) => (out += t),
    mode,
    () => (clock += 100),
  );
  events.forEach(printer.onProgress);
  return out;
}

const cases: Array<[ProgressMode, { want: string }]> = [
  [
    'plain',
    { want: 'Checking 3 operations…\n  ignored_auth\n  status_code_conformance\nDone: 1 passed, 3 failed, 1 info, 2 skipped (7 checks on 3 operations).\n' },
  ],
  ['none', { want: '' }],
];
test.each(cases)('%s progress', (mode, { want }) => {
  expect(run(mode)).toBe(want);
});

test('tty progress rewrites one line and clears it at the end', () => {
  const out = run('tty');
  expect(out).toContain('\r\x1b[2K  2 findings: 1 ✓  1 ✗  0 i  listClients › ignored_auth');
  expect(out.endsWith('\r\x1b[2KDone: 1 passed, 3 failed, 1 info, 2 skipped (7 checks on 3 operations).\n')).toBe(true);
});

/**
 * How long each operation's answers took in a run: p50, p95 and the slowest, from the time every
 * recorded exchange took (what the HAR file shows per request). Printed after the matrix, in the
 * HTML report and as JUnit properties of each operation, whatever `--max-response-time` is.
 */
import type { Exchange, RunReport } from '../engine/types.js';

export interface OperationTiming {
  operationId: string;
  count: number;
  p50: number;
  p95: number;
  max: number;
}

/** The nearest-rank percentile of sorted values (p in 0–100). */
function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(Math.max(rank, 1), sorted.length) - 1]!;
}

/** Per operation of `operations` (in that order) that has exchanges: its count, p50, p95 and max in milliseconds. */
export function operationTimings(exchanges: readonly Exchange[], operations: readonly string[]): OperationTiming[] {
  const byOp = new Map<string, number[]>();
  for (const e of exchanges) {
    const list = byOp.get(e.operationId) ?? [];
    list.push(e.ms);
    byOp.set(e.operationId, list);
  }
  const timings: OperationTiming[] = [];
  for (const operationId of operations) {
    const times = byOp.get(operationId);
    if (!times || times.length === 0) continue;
    const sorted = [...times].sort((a, b) => a - b);
    timings.push({ operationId, count: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), max: sorted.at(-1)! });
  }
  return timings;
}

const ms = (n: number) => `${Math.round(n)} ms`;

/** The timings as a table for the terminal: one line per operation. */
export function formatTimings(report: Pick<RunReport, 'timings'>): string {
  const timings = report.timings ?? [];
  if (timings.length === 0) return '';
  const width = Math.max(...timings.map((t) => t.operationId.length), 'operation'.length);
  const pad = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - s.length));
  const lpad = (s: string, n: number) => ' '.repeat(Math.max(0, n - s.length)) + s;
  return [
    `Response times (${timings.reduce((s, t) => s + t.count, 0)} answers)`,
    // Indented: the matrix's rows start with an operation's id, and readers of the output find them so.
    `  ${pad('operation', width)}  ${lpad('n', 5)}  ${lpad('p50', 8)}  ${lpad('p95', 8)}  ${lpad('max', 8)}`,
    ...timings.map((t) => `  ${pad(t.operationId, width)}  ${lpad(String(t.count), 5)}  ${lpad(ms(t.p50), 8)}  ${lpad(ms(t.p95), 8)}  ${lpad(ms(t.max), 8)}`),
  ].join('\n');
}

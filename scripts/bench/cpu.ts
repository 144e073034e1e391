/**
 * The CPU a target spends per request (issue 38): its own user + system time, read from
 * /proc/<pid>/stat before and after a load run at a fixed offered rate, over the answers of that
 * run. The load generator's CPU is its own process's, and waiting on the disk costs none, so the
 * figure depends neither on autocannon's ceiling nor on the speed of fsync.
 *
 * /proc/<pid>/stat counts every thread of the process (libuv's pool, V8's helpers) in clock ticks
 * (`getconf CLK_TCK`, 100 on Linux: 10 ms a tick), so a run must last long enough for the
 * target to spend many ticks; each run's tick count is kept with its figures for that reason.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { HarnessError } from './harness-error.js';

let ticksPerSecond: number | undefined;

/** The kernel's clock ticks per second (`getconf CLK_TCK`), read once. */
export function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    let raw: string;
    try {
      raw = execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch (error) {
      throw new HarnessError(`cannot run \`getconf CLK_TCK\` for the CPU figures (Linux only): ${(error as Error).message}`);
    }
    const value = Number(raw);
    if (!Number.isInteger(value) || value <= 0) throw new HarnessError(`\`getconf CLK_TCK\` printed "${raw}", not a positive whole number`);
    ticksPerSecond = value;
  }
  return ticksPerSecond;
}

/**
 * utime + stime of a /proc/<pid>/stat line, in clock ticks. The command name (field 2) is in
 * brackets and may hold spaces or brackets itself, so fields are counted after its last `)`:
 * utime and stime are fields 14 and 15 of the line, the 12th and 13th after the name.
 */
export function parseCpuTicks(stat: string): number {
  const afterName = stat
    .slice(stat.lastIndexOf(')') + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(afterName[11]);
  const stime = Number(afterName[12]);
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) throw new HarnessError(`no utime and stime in a /proc stat line: ${stat.slice(0, 200)}`);
  return utime + stime;
}

/** The process's user + system CPU so far, in clock ticks. */
export function readCpuTicks(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    throw new HarnessError(`cannot read /proc/${pid}/stat for the CPU figures (Linux only): ${(error as Error).message}`);
  }
  return parseCpuTicks(stat);
}

/** µs of CPU per request, from the ticks a run cost and the answers it got. */
export function cpuMicrosPerRequest(ticks: number, requests: number, hz: number = clockTicksPerSecond()): number {
  if (requests <= 0) throw new HarnessError('CPU per request of a run without answers');
  return (ticks * 1_000_000) / hz / requests;
}

/**
 * The offered rate of a scenario's measured runs: half the slowest target's maximum (found in the
 * full-speed warm-up), the same for the reference and every floor, so that none is saturated.
 * autocannon spreads a rate over its connections in whole requests per second, so with more than
 * one connection it is rounded down to a multiple of them (then every connection has the same
 * rate and the same number of requests); it is at least 1 request per second.
 */
export function fixedRate(maxima: readonly number[], connections: number): number {
  if (maxima.length === 0 || maxima.some((max) => !(max > 0))) throw new HarnessError(`no rate from the maxima ${maxima.join(', ')}`);
  const half = Math.min(...maxima) / 2;
  if (half < connections) return Math.max(1, Math.floor(half));
  return Math.floor(half / connections) * connections;
}

/** A floor's CPU per request over the reference's: the share of the reference's cost the floor's work is. */
export function cpuRatio(floorMicros: number, referenceMicros: number): number {
  return floorMicros / referenceMicros;
}

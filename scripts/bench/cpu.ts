/**
 * The CPU a target spends per request (issue 38): the time its threads spent on a CPU, read from
 * /proc/<pid>/task/<tid>/schedstat of each thread before and after a load run at a fixed offered
 * rate, over the answers of that run. The load generator's CPU is its own process's, and waiting
 * on the disk costs none, so the figure depends neither on autocannon's ceiling nor on the speed
 * of fsync.
 *
 * The first field of a thread's schedstat is its time on the CPU in nanoseconds, user and kernel
 * alike (proc(5)), where /proc/<pid>/stat's utime and stime count whole clock ticks of 10 ms: a
 * short run at a slow rate could cost a target less than one tick and read as no CPU at all. The
 * figure is summed over the process's threads, each read on its own. A thread that exits takes its
 * time with it, but a Node process's threads (the main one, libuv's pool, V8's workers) live as
 * long as the process, so nothing is lost over a run. A thread running at the moment it is read
 * has its current slice counted only at its next switch or tick; a target is idle once the last
 * answer of a run is sent, so little if anything is read late.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { HarnessError } from './harness-error.js';

/**
 * A thread's time on the CPU, in ns: the first of the three whole numbers of a
 * /proc/<pid>/task/<tid>/schedstat (time on the CPU, time waiting to run, slices run).
 */
export function parseSchedstatNs(schedstat: string): number {
  const match = /^(\d+) \d+ \d+\n?$/.exec(schedstat);
  const ns = Number(match?.[1]);
  if (!match || !Number.isSafeInteger(ns))
    throw new HarnessError(`not a schedstat line (three whole numbers, the first ns on the CPU): "${schedstat.slice(0, 200)}"`);
  return ns;
}

const gone = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ESRCH';
};

/**
 * The process's time on the CPU so far, in ns: the sum over its threads. A thread that exits
 * between the listing of the threads and the reading of its own file is skipped (its time is gone
 * with it either way); a process with no thread left to read is an error. `proc` is where procfs
 * is, for the tests.
 */
export function readCpuNs(pid: number, proc = '/proc'): number {
  const tasks = `${proc}/${pid}/task`;
  let threads: string[];
  try {
    threads = readdirSync(tasks);
  } catch (error) {
    throw new HarnessError(`cannot read ${tasks} for the CPU figures (Linux only): ${(error as Error).message}`);
  }
  let ns = 0;
  let read = 0;
  for (const thread of threads) {
    const file = `${tasks}/${thread}/schedstat`;
    let schedstat: string;
    try {
      schedstat = readFileSync(file, 'utf8');
    } catch (error) {
      if (gone(error)) continue;
      throw new HarnessError(`cannot read ${file} for the CPU figures: ${(error as Error).message}`);
    }
    try {
      ns += parseSchedstatNs(schedstat);
    } catch (error) {
      throw new HarnessError(`${file}: ${(error as Error).message}`);
    }
    read++;
  }
  if (read === 0) throw new HarnessError(`no thread of process ${pid} left to read in ${tasks} (has it exited?)`);
  return ns;
}

/**
 * The time on the CPU so far of a process and of its descendants, in ns: the target as a whole
 * where it is more than one process (`npm run mock`: the script and Prism, its child, which runs
 * the front). Each process's children are listed in /proc/<pid>/task/<tid>/children (proc(5));
 * a child that exits between the listing and its reading is skipped (its time is gone with it).
 */
export function readTreeCpuNs(pid: number, proc = '/proc'): number {
  let ns = readCpuNs(pid, proc);
  for (const child of childrenOf(pid, proc)) {
    try {
      ns += readTreeCpuNs(child, proc);
    } catch (error) {
      if (existsSync(`${proc}/${child}/task`)) throw error;
    }
  }
  return ns;
}

/** The pids of a process's children, from the `children` file of each of its threads. */
function childrenOf(pid: number, proc: string): number[] {
  const tasks = `${proc}/${pid}/task`;
  const children: number[] = [];
  for (const thread of readdirSync(tasks)) {
    let listed: string;
    try {
      listed = readFileSync(`${tasks}/${thread}/children`, 'utf8');
    } catch (error) {
      if (gone(error)) continue;
      throw new HarnessError(`cannot read ${tasks}/${thread}/children for the CPU figures: ${(error as Error).message}`);
    }
    for (const child of listed.trim().split(/\s+/)) if (child !== '') children.push(Number(child));
  }
  return children;
}

/** µs of CPU per request, from the ns a run cost and the answers it got. */
export function cpuMicrosPerRequest(ns: number, requests: number): number {
  if (requests <= 0) throw new HarnessError('CPU per request of a run without answers');
  return ns / 1_000 / requests;
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

/**
 * Peak resident memory of a target during one load run. Linux keeps the peak (VmHWM) per process;
 * writing 5 to /proc/<pid>/clear_refs resets it to the current RSS, so reset-before and
 * read-after gives the peak of exactly that run at no cost to the target. Where clear_refs cannot
 * be written, VmRSS is sampled every 100 ms instead (it can miss a short spike).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { HarnessError } from './harness-error.js';

export interface PeakRssProbe {
  /** The peak since the probe started, in MB (MiB). */
  stop(): number;
}

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch (error) {
    throw new HarnessError(`cannot read /proc/${pid}/status for the peak RSS (Linux only): ${(error as Error).message}`);
  }
  const match = new RegExp(`^${field}:\\s*(\\d+)\\s*kB`, 'm').exec(status);
  if (!match?.[1]) throw new HarnessError(`no ${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

const kbToMb = (kb: number) => kb / 1024;

export function startPeakRss(pid: number): PeakRssProbe {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return { stop: () => kbToMb(statusKb(pid, 'VmHWM')) };
  } catch {
    let peakKb = statusKb(pid, 'VmRSS');
    const sampler = setInterval(() => {
      try {
        peakKb = Math.max(peakKb, statusKb(pid, 'VmRSS'));
      } catch {
        // The process ended; the load run reports that.
      }
    }, 100);
    return {
      stop: () => {
        clearInterval(sampler);
        return kbToMb(Math.max(peakKb, statusKb(pid, 'VmRSS')));
      },
    };
  }
}

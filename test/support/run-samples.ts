/**
 * Runs TypeScript samples one after another in this one process (started by `tsx` in the
 * reader's project, so that its tsconfig resolves what the samples import), as a reader runs
 * them one `tsx` after another: each is given the variables the ones before it printed
 * (`export NAME=value`, set in the environment before it starts), and what it prints is kept
 * apart. One process instead of one per sample: the samples' imports are loaded and compiled
 * once (test/docs/code-samples.story.test.ts).
 *
 * Usage: `tsx run-samples.ts <sample.mts>...`. Prints one line per sample run, in order: `runMark`
 * and the run as JSON, `{ "file", "stdout", "error"? }`; it stops after the first sample that throws.
 */
import { pathToFileURL } from 'node:url';
import { format } from 'node:util';

export interface SampleRun {
  file: string;
  /** What the sample printed with console.log (as a process's stdout would hold it). */
  stdout: string;
  /** The error it threw (its stack), if it did. */
  error?: string;
}

/** What starts each line of a sample's run in this process's output. */
export const runMark = '@@ sample run ';

async function main(files: readonly string[]): Promise<void> {
  const write = process.stdout.write.bind(process.stdout);
  const log = console.log;
  for (const file of files) {
    let stdout = '';
    console.log = (...args: unknown[]) => {
      stdout += `${format(...args)}\n`;
    };
    let error: string | undefined;
    try {
      await import(pathToFileURL(file).href);
    } catch (thrown) {
      error = thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown);
    } finally {
      console.log = log;
    }
    write(`${runMark}${JSON.stringify({ file, stdout, ...(error !== undefined ? { error } : {}) } satisfies SampleRun)}\n`);
    if (error !== undefined) return;
    for (const [, name, value] of stdout.matchAll(/^export ([A-Z][A-Z0-9_]*)=(\S+)$/gm)) process.env[name!] = value!;
  }
}

// Run as a program (`tsx run-samples.ts …`), not when a test imports `runMark`.
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));

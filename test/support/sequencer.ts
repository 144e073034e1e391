/**
 * The order test files start in: the long files first, longest first, so that the two workers
 * finish together instead of one running the last long file alone. vitest's own order runs the
 * projects one after the other by name (`postgres`, `postgres:isolated`, `sqlite`,
 * `sqlite:isolated`), which left the longest files of all (the packed packages, the conformance
 * command's runs) to the end of a run, one or two at a time.
 *
 * A file that runs for half a minute or more says so in a line of its own, `// long-running: about
 * N s` (N measured by a full run on CI's machine, with the reason after it); those start first, by
 * N. The other files keep vitest's order: a project's files together (a worker goes from one
 * shared-module file to the next without loading the modules again), the longest of an earlier
 * run on this machine first, or else the largest.
 */
import { readFileSync } from 'node:fs';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const marker = /^\s*\/\/ long-running: about (\d+) s\b/m;

/** The seconds a file's marker gives, or undefined for a file without one. */
export function markedSeconds(text: string): number | undefined {
  const seconds = marker.exec(text)?.[1];
  return seconds === undefined ? undefined : Number(seconds);
}

export default class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = new Map(files.map((file) => [file, markedSeconds(readFileSync(file.moduleId, 'utf8'))]));
    const long = files.filter((file) => seconds.get(file) !== undefined).sort((a, b) => seconds.get(b)! - seconds.get(a)!);
    return [...long, ...(await super.sort(files.filter((file) => seconds.get(file) === undefined)))];
  }
}

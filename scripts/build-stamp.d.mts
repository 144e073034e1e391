/** The repository's root folder (ends with a slash). */
export const repoRoot: string;
/** The source files under `dir` (relative to the repository), tests left out, as repository-relative paths. */
export function sourcesUnder(dir: string): string[];
/**
 * Whether the build `stamp` records is still current: every one of `outputs` exists, every input
 * it recorded has the same content, and it recorded each of `inputs` (a file added since is not).
 */
export function upToDate(stamp: string, inputs: readonly string[], outputs: readonly string[]): boolean;
/** The contents of `inputs` as a stamp records them: each input's hash, by name. */
export function contentsOf(inputs: readonly string[]): Record<string, string>;
/** Records the contents of `inputs` in `stamp` (after a build), or `recorded` when given (read before the build). */
export function writeStamp(stamp: string, inputs: readonly string[], recorded?: Record<string, string>): void;

// The types of scripts/bundle-node.mjs, for the tests that build as the build does.

export interface BundleNodeOptions {
  /** The command's entry module, relative to the repository. */
  entry: string;
  /** The bundle to write, relative to the repository (or absolute). */
  outfile: string;
  /** Packages left as imports. */
  external?: string[];
  /** A TypeScript module, relative to the repository, whose `precompiledValidatorsModule()` gives the validators to make ahead. */
  validators?: string;
  /** Whether the source map holds the sources themselves (true unless told). */
  sourcesContent?: boolean;
  /** esbuild plugins added to the build's own. */
  plugins?: import('esbuild').Plugin[];
  /** Whether a source map is written (true unless told). */
  sourcemap?: boolean;
  /** Leaves out comments and indentation, and refuses a character past Latin-1. */
  compact?: boolean;
  /** The command as a CommonJS script beside `outfile` (`.cjs` for `.mjs`), which `outfile` runs with V8's code cache. */
  codeCache?: boolean;
}

export function bundleNodeCommand(options: BundleNodeOptions): Promise<string[]>;

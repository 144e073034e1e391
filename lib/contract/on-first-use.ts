import { createRequire } from 'node:module';

/**
 * A CommonJS package loaded when it is first asked for, not when the module naming it is: the
 * compiled server needs Ajv and js-yaml only to compile a validator its build did not make or to
 * read a contract from a file, so loading them at every start was time spent for nothing (they
 * were a tenth of its start-up's CPU).
 *
 * `bundled` is `() => require('<package>')`, written with the package's name in the caller's own
 * module: esbuild bundles such a `require()` and runs the package's code only when it is called.
 * From source (an ES module, where `require` is not defined) the package is required from `from`
 * (the caller's `import.meta.url`) instead.
 */
export function onFirstUse<T>(bundled: () => unknown, name: string, from: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= (typeof require === 'function' ? bundled() : createRequire(from)(name)) as T;
    return loaded;
  };
}

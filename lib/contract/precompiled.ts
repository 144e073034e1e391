import type { ErrorObject } from 'ajv';

/**
 * A validator of one schema: true when `data` is valid, else false with `errors` set. Compiled by
 * Ajv at run time, or defined by Ajv's standalone code, made at build time.
 */
export interface Validate {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** Validators of the bundled contract made at build time, by schema pointer, and the option they were made with. */
export interface PrecompiledValidators {
  useDefaults: boolean;
  validators: Readonly<Record<string, Validate>>;
}

/**
 * None, from source: tsx and vitest compile every validator at run time. The compiled server's
 * build (scripts/bundle-node.mjs) puts its own module in place of this one, holding the
 * standalone code of every validator the server uses (scripts/server-validators.ts).
 */
export const precompiled: PrecompiledValidators | undefined = undefined;

/**
 * Validators made at build time for contracts other than the bundled one, by the key of their
 * content and option (lib/contract/content-key.ts): the conformance command's build makes its
 * seed view's (scripts/conformance-validators.ts). None from source.
 */
export const precompiledViews: Readonly<Record<string, PrecompiledValidators>> = {};

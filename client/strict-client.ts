/**
 * openapi-fetch's client with one difference: each call's options are typed by the operation
 * itself, not inferred from the call. openapi-fetch infers them (to pick the answer type of
 * `parseAs`), and an inferred type only has to contain the operation's, so a body with a field
 * the contract does not have compiles; here it does not. Answers are JSON (`parseAs` is not
 * offered): every success of this contract is.
 */
import type { Client, FetchOptions, FetchResponse, Middleware } from 'openapi-fetch';
import type { HttpMethod } from './served-paths.js';

// openapi-typescript-helpers has these, but it is openapi-fetch's dependency, not ours: an installed
// client must not rely on how a package manager lays out a dependency's dependencies.
// biome-ignore lint/complexity/noBannedTypes: `{} extends Pick<T, K>` is how a type asks whether K is optional.
type RequiredKeysOf<T> = { [K in keyof T]-?: {} extends Pick<T, K> ? never : K }[keyof T];
/** The paths that have `M` (a method a path lacks is `?: never`, so not required). */
type PathsWithMethod<Paths, M extends HttpMethod> = { [Path in keyof Paths]: Paths[Path] extends { [K in M]: unknown } ? Path : never }[keyof Paths];
type MediaType = `${string}/${string}`;

type Options<Operation> = Omit<FetchOptions<Operation>, 'parseAs'>;
/** The options argument: required when the operation has a required part (a body, a path parameter). */
type OptionsArg<Operation> = RequiredKeysOf<Options<Operation>> extends never ? [options?: Options<Operation>] : [options: Options<Operation>];

/** The operation of `M` on `Path`. */
type Operation<Paths, Path extends keyof Paths, M extends HttpMethod> = M extends keyof Paths[Path] ? NonNullable<Paths[Path][M]> : never;

type Method<Paths extends {}, M extends HttpMethod> = <Path extends PathsWithMethod<Paths, M>>(
  path: Path,
  ...options: OptionsArg<Operation<Paths, Path, M>>
) => Promise<FetchResponse<Operation<Paths, Path, M>, Record<never, never>, MediaType>>;

export interface StrictClient<Paths extends {}> {
  GET: Method<Paths, 'get'>;
  PUT: Method<Paths, 'put'>;
  POST: Method<Paths, 'post'>;
  DELETE: Method<Paths, 'delete'>;
  PATCH: Method<Paths, 'patch'>;
  use(...middleware: Middleware[]): void;
  eject(...middleware: Middleware[]): void;
}

/** The same client, seen through the stricter call types. */
export function strict<Paths extends {}>(client: Client<Paths>): StrictClient<Paths> {
  // The one cast of the client: the call types differ only in how options are typed (above), which
  // the compiler cannot compare across generic signatures; at run time it is the same object.
  return client as StrictClient<Paths>;
}

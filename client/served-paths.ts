/**
 * The contract's `paths`, split by base URL. openapi-typescript writes one `paths` for the whole
 * contract, which forgets that `POST /client` lives on `{base_url_alt}` while `GET /client` lives
 * on `{base_url}`; the generated route table (generated/client-routes.ts) still knows, and these
 * types are derived from it, so a call on the wrong base URL does not compile.
 */
import type { routes } from '../generated/client-routes.js';
import type { paths } from '../generated/openapi.js';

export type Route = (typeof routes)[keyof typeof routes];
export type OperationId = keyof typeof routes;
/** A server variable of the contract: `base_url` or `base_url_alt`. */
export type ServerName = Route['server'];

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
type MethodsOn<Server extends ServerName, Path> = Extract<Route, { server: Server; path: Path }>['method'];
type Absent<Server extends ServerName, Path> = Exclude<HttpMethod, MethodsOn<Server, Path>>;

/**
 * The paths `server` serves, each with only the methods it serves there. A method served on the
 * other base URL becomes `?: never`, as openapi-typescript marks a method a path lacks, which is
 * what openapi-fetch reads to refuse it.
 */
export type ServedPaths<Server extends ServerName> = {
  [Path in Extract<Route, { server: Server }>['path']]: Omit<paths[Path], Absent<Server, Path>> & { [Method in Absent<Server, Path>]?: never };
};

/**
 * A conformance run against the reference server in this process (no socket): the options every
 * such run shares (both of the server's companies, the reference profile, a webhook receiver on a
 * free port), with `over` on top, and requests handed to the server's `app.fetch`, through `wrap`
 * when a test breaks them. Used by the fault deployments' test, the contract-view test and
 * `npm run test:operation`.
 */
import type { TestServer } from '../../server/test-support/harness.js';
import { runConformance } from '../engine/run.js';
import type { RunDeps } from '../engine/context.js';
import type { ConformanceOptions, RunReport } from '../engine/types.js';

type FetchLike = (request: Request) => Promise<Response>;

/** The in-process target's base URL: any host, since no request leaves the process. */
export const inProcessBase = 'http://reference.test';

export function inProcessOptions(server: TestServer, over: Partial<ConformanceOptions> = {}): ConformanceOptions {
  return {
    baseUrl: inProcessBase,
    baseUrlAlt: inProcessBase,
    apiKey: server.apiKey,
    secondApiKey: server.other.apiKey,
    profile: 'reference',
    readOnly: false,
    stateless: false,
    timeoutMs: 10_000,
    runId: 'inprocess',
    webhookReceiver: { host: '127.0.0.1', port: 0 },
    webhookWaitMs: 5_000,
    ...over,
  };
}

export function runInProcess(
  server: TestServer,
  over: Partial<ConformanceOptions> = {},
  { wrap = (inner) => inner, ...deps }: Omit<RunDeps, 'fetch'> & { wrap?: (inner: FetchLike) => FetchLike } = {},
): Promise<RunReport> {
  const fetchFn = wrap((request) => Promise.resolve(server.app.fetch(request)));
  return runConformance(inProcessOptions(server, over), { ...deps, fetch: (input, init) => fetchFn(new Request(input as string, init)) });
}

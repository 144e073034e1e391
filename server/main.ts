import './map-stacks.js';
import { createAdaptorServer } from '@hono/node-server';
import { createApp } from './app.js';
import { Server as HttpServer } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { ConnectionsPerAddress, refuseClientError } from './http/connections.js';
import { anonymousSpender } from './http/rate-limit.js';
import type { RateLimitFields } from './deps.js';
import { NODE_MAX_HEADER_BYTES, NODE_MAX_HEADERS_COUNT } from './http/request-limits.js';
import { createCompanyWithKey, createDeps, describeStore, openStore } from './bootstrap.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { startWebhookWorker, type WebhookWorker } from './webhooks/worker.js';
import { OperationCatalog } from './http/operations.js';
import {
  DEVELOPMENT_COMPANY,
  keysCommand,
  listen,
  listenProblem,
  localOrigin,
  noCompanyLine,
  secondWriterLine,
  settleDeploymentMode,
  startUpLines,
  type StartState,
} from './start-up.js';
import { takeWriterLock } from './store/sqlite/writer-lock.js';
import { drainLog, dropLog, flushLog } from './http/access-log.js';

/** How long a stop may take (requests under way, the worker, the store) before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;
/** How long the last log lines may wait for a reader that reads nothing. */
const LOG_DRAIN_MS = 1_000;
/** A second signal's exit code, as a shell reports a process that signal ended (128 + its number). */
const SIGNAL_EXIT_CODES: Record<'SIGINT' | 'SIGTERM', number> = { SIGINT: 130, SIGTERM: 143 };

type FetchCallback = ReturnType<typeof createApp>['fetch'];

/** `npm start`: the reference server on PORT, both base URLs on one port. */
async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`Configuration error: ${error.message}`);
      process.exit(2);
    }
    throw error;
  }
  // The port first: a port in use (say, a second `npm start`) stops the start before the
  // database is opened, so nothing is created or migrated and no key is printed for nothing.
  // Requests that arrive before the app is ready wait for it.
  let handle: FetchCallback | undefined;
  let ready: (fetch: FetchCallback) => void = () => {};
  const appReady = new Promise<FetchCallback>((resolve) => (ready = resolve));
  // Issue 34: one client address holds at most this many connections; a request on one past it
  // is answered 429 here, before the app, and the connection is closed.
  const connections = new ConnectionsPerAddress(config.connectionsPerAddress);
  const server = createAdaptorServer({
    fetch: (request, env) =>
      connections.refusal(env?.incoming?.socket, () => new URL(request.url).pathname) ??
      (handle ? handle(request, env) : appReady.then((fetch) => fetch(request, env))),
    hostname: config.host,
    // D34: slow or endless requests are closed (408) instead of holding a connection; header
    // sections between our 16 KiB limit and Node's are answered with a 431 problem.
    serverOptions: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      // Node checks the timeouts this often (30 s by default): often enough to honour them.
      connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
      maxHeaderSize: NODE_MAX_HEADER_BYTES,
    },
  });
  // D34: Node keeps every header field (not an option of createServer), so that requestLimits
  // sees a request with too many and answers it with a 431 problem naming the count.
  if (server instanceof HttpServer) server.maxHeadersCount = NODE_MAX_HEADERS_COUNT;
  // Issue 34: a connection on which nothing moves for IDLE_TIMEOUT_MS (a client that stopped
  // reading its answer) is destroyed, and what its answer held with it.
  server.setTimeout(config.idleTimeoutMs);
  server.prependListener('connection', (socket: Socket) => connections.accept(socket));
  // What Node refuses before Hono sees it (headers past its limit, timeouts, unparsable requests)
  // still gets a Problem, spends the address's quota, and the connection is destroyed (issue 34).
  let spendAnonymous: ((address: string) => Promise<RateLimitFields | undefined>) | undefined;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => void refuseClientError(error, socket, spendAnonymous));
  let port: number;
  try {
    ({ port } = await listen(server, config.port, config.host));
  } catch (error) {
    const problem = listenProblem(error, config);
    if (problem === undefined) throw error;
    console.error(problem);
    process.exit(2);
  }

  // One writer per SQLite file: a second server on the same file would keep its own memory of
  // what it read and answer differently from the first. The OS's lock on `<file>-lock`, held
  // for this process's life, is gone when it ends, however it ends.
  const onSqliteFile = config.databaseUrl === undefined && config.databasePath !== ':memory:';
  const writerLock = onSqliteFile ? takeWriterLock(config.databasePath) : undefined;
  if (onSqliteFile && writerLock === undefined) {
    console.error(secondWriterLine(config.databasePath));
    server.close();
    process.exit(2);
  }
  const deps = createDeps(config, { store: await openStore(config) });
  // D51: the database records the mode of the first server on it; another mode does not start.
  const modeProblem = await settleDeploymentMode(deps.store, config.mode, deps.now());
  if (modeProblem !== undefined) {
    console.error(modeProblem);
    await deps.store.close();
    server.close();
    process.exit(2);
  }
  // An empty database: a development start makes the development company and prints its key
  // once, for whoever started it; a production start never invents a company (D04): it says how
  // to make one with the keys command, and answers 401 until a key exists.
  let state: StartState = 'had companies';
  if ((await deps.store.countCompanies()) === 0) {
    if (config.mode === 'development') {
      const { companyId, apiKey } = await createCompanyWithKey(deps.store, { name: DEVELOPMENT_COMPANY });
      state = 'created the development company';
      // Shown once, on the terminal of whoever started the server, never through the logger.
      process.stdout.write(
        `\nEmpty database: created the development company ${companyId}.\nIts API key (shown only now):\n\n  ${apiKey}\n\n` +
          `Try: curl -H 'X-API-KEY: ${apiKey}' ${config.publicUrl}/client\n\n`,
      );
    } else {
      state = 'no company';
      deps.logger.warn({ keysCommand: keysCommand(config) }, noCompanyLine(config));
    }
  }
  spendAnonymous = anonymousSpender(deps);
  const catalog = new OperationCatalog(deps.validator);
  handle = createApp(deps, catalog).fetch;
  ready(handle);
  // D14: deliveries (and charge expiry) start once the server is up.
  const worker: WebhookWorker = startWebhookWorker(deps);
  // Stopping always stops (issue 39), from before the `listening` line on (a signal that came
  // between that line and its handler killed the process outright): the server stops taking connections, the worker and the
  // store close, and the process exits; past SHUTDOWN_GRACE_MS it exits anyway, and a second
  // signal exits at once. The log never holds the exit up: a reader that is gone (the `| tee` of
  // `npm start 2>&1 | tee` on Ctrl-C) gives the destination up, and one that reads nothing is
  // waited on for a bounded time only.
  let stopping = false;
  const stop = (signal: keyof typeof SIGNAL_EXIT_CODES) => {
    if (stopping) {
      dropLog(deps.logger);
      process.exit(SIGNAL_EXIT_CODES[signal]);
    }
    stopping = true;
    deps.logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      deps.logger.warn({ graceMs: SHUTDOWN_GRACE_MS }, 'shutdown took longer than its grace period; exiting now');
      void drainLog(deps.logger, LOG_DRAIN_MS).then(() => {
        dropLog(deps.logger);
        process.exit(1);
      });
    }, SHUTDOWN_GRACE_MS).unref();
    // The worker stops at once (deliveries in flight are aborted, and sent again after a restart)
    // and lets go of the store before it is closed.
    const workerStopped = worker.stop();
    server.close(() => {
      void workerStopped
        .then(() => deps.store.close())
        .then(() => {
          writerLock?.release();
          return drainLog(deps.logger, LOG_DRAIN_MS);
        })
        .then(() => {
          dropLog(deps.logger);
          process.exit(0);
        });
    });
    // Idle keep-alive connections are not waited on; requests under way are, within the grace period.
    if (server instanceof HttpServer) server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  const origin = localOrigin(config.host, port);
  // A person at a terminal gets plain lines; piped output (a log collector) stays JSON lines,
  // whose `listening` line carries the same URLs.
  if (process.stdout.isTTY) process.stdout.write(startUpLines(config, origin, state));
  deps.logger.info({ port, host: config.host, url: origin, docs: `${origin}/docs/`, database: describeStore(config), mode: config.mode }, 'listening');
  // Supervisors and people wait for this line: it is written now, not with the next burst.
  flushLog(deps.logger);
  // The request validators not compiled by a request yet, now rather than at a first request.
  // The compiled server compiles none: its build made them (scripts/server-validators.ts); the
  // count says whether that held.
  void catalog.warmUp().then(() => deps.logger.debug({ compiledAtRunTime: deps.validator.compiledAtRunTime }, 'request validators ready'));
}

main().catch((error: unknown) => {
  console.error(`Could not start: ${(error as Error).message}`);
  process.exit(1);
});

import { serve } from '@hono/node-server';
import { createApp } from './app.js';
import type { Duplex } from 'node:stream';
import { NODE_MAX_HEADER_BYTES, rawProblemResponse } from './http/request-limits.js';
import { createCompanyWithKey, createDeps, describeStore, openStore } from './bootstrap.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { startWebhookWorker, type WebhookWorker } from './webhooks/worker.js';
import { OperationCatalog } from './http/operations.js';

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
  const deps = createDeps(config, { store: await openStore(config) });
  if ((await deps.store.countCompanies()) === 0) {
    const { companyId, apiKey } = await createCompanyWithKey(deps.store, { name: 'Sandbox Company' });
    // Shown once, on the terminal of whoever started the server, never through the logger.
    process.stdout.write(
      `\nEmpty database: created the development company ${companyId}.\nIts API key (shown only now):\n\n  ${apiKey}\n\n` +
        `Try: curl -H 'X-API-KEY: ${apiKey}' ${config.publicUrl}/client\n\n`,
    );
  }
  const app = createApp(deps);
  let worker: WebhookWorker | undefined;
  const server = serve(
    {
      fetch: app.fetch,
      port: config.port,
      hostname: config.host,
      // D34: slow or endless requests are closed (408) instead of holding a connection; header
      // sections between our 16 KiB limit and Node's are answered with a 431 problem.
      serverOptions: {
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        // Node checks the timeouts this often (30 s by default): often enough to honour them.
        connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs),
        maxHeaderSize: NODE_MAX_HEADER_BYTES,
      },
    },
    (info) => {
      deps.logger.info({ port: info.port, host: config.host, database: describeStore(config), mode: config.mode }, 'listening');
      // D14: deliveries (and charge expiry) start once the server is up.
      worker = startWebhookWorker(deps);
      // The request validators not compiled by a request yet, now rather than at a first request.
      void new OperationCatalog(deps.validator).warmUp();
    },
  );
  // What Node refuses before Hono sees it (headers past its limit, timeouts, unparsable requests)
  // still gets a Problem, then the connection is closed.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (!socket.writable) return void socket.destroy();
    const kind = error.code === 'HPE_HEADER_OVERFLOW' ? 'headersTooLarge' : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'requestTimeout' : 'malformedRequest';
    socket.end(rawProblemResponse(kind));
  });
  const stop = (signal: string) => {
    deps.logger.info({ signal }, 'shutting down');
    // The worker stops at once (deliveries in flight are aborted, and sent again after a restart)
    // and lets go of the store before it is closed.
    const workerStopped = worker?.stop() ?? Promise.resolve();
    server.close(() => {
      void workerStopped.then(() => deps.store.close()).then(() => process.exit(0));
    });
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  console.error(`Could not start: ${(error as Error).message}`);
  process.exit(1);
});

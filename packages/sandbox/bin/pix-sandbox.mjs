#!/usr/bin/env node
// `pix-sandbox`: the stateful sandbox (the reference server on SQLite), started as `npm start`
// starts it in a clone; `pix-sandbox docs --out DIR` writes the docs page to a folder.
import { cpSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { commandLine, defaultDataDir, needSqlite, packageRoot, portFlag, usageError, withDatabase } from './common.mjs';

const name = 'pix-sandbox';
const usage = `Usage: pix-sandbox [--port N] [--host ADDRESS] [--data-dir DIR]
       pix-sandbox docs --out DIR

Starts the Pix Payments sandbox: the reference server of every operation, stateful, on SQLite,
both base URLs on one port, the docs page at /docs/. On an empty database (the first start) it
creates a development company and prints its API key once; later starts keep the records and
the keys. Ctrl+C stops it.

  --port N          port to listen on (default: PORT, else 3000)
  --host ADDRESS    interface to listen on (default: HOST, else 127.0.0.1)
  --data-dir DIR    folder of the database file (payments.db), made if missing
                    (default: ./${defaultDataDir}; DATABASE_PATH names the file itself,
                    DATABASE_URL a PostgreSQL database instead)
  docs --out DIR    writes the docs page (index.html, decisions.html, openapi.yaml,
                    openapi.json) to DIR, for a static host, and exits

The server's other settings are its environment variables, as in a clone: NODE_ENV
(production makes no company and prints no key), PUBLIC_URL, LOG_LEVEL, rate limits, timeouts…
API keys: pix-keys (create, issue, revoke, reset, list), with the same --data-dir.
`;

const { values, positionals } = commandLine(
  name,
  process.argv.slice(2),
  { port: { type: 'string' }, host: { type: 'string' }, 'data-dir': { type: 'string' }, out: { type: 'string' } },
  { positionals: 1 },
);
if (values.help) {
  process.stdout.write(usage);
  process.exit(0);
}

const dist = fileURLToPath(new URL('dist/', packageRoot));
if (positionals[0] !== undefined) {
  if (positionals[0] !== 'docs') usageError(name, `unknown command "${positionals[0]}" (the one command is docs)`);
  const stray = ['port', 'host', 'data-dir'].find((flag) => values[flag] !== undefined);
  if (stray) usageError(name, `docs takes no --${stray}`);
  if (!values.out) usageError(name, 'docs needs --out DIR, the folder to write the page to');
  const out = resolve(values.out);
  cpSync(resolve(dist, 'docs'), out, { recursive: true });
  process.stdout.write(`Docs page written to ${resolve(out, 'index.html')} (with decisions.html, openapi.yaml and openapi.json beside it).\n`);
  process.exit(0);
}
if (values.out !== undefined) usageError(name, '--out is for `pix-sandbox docs --out DIR`');

const env = withDatabase({ ...process.env, PIX_KEYS_COMMAND: process.env.PIX_KEYS_COMMAND ?? 'npx pix-keys' }, values['data-dir']);
if (values.port !== undefined) env.PORT = portFlag(name, values.port);
if (values.host !== undefined) env.HOST = values.host;
if (!env.DATABASE_URL) needSqlite(name);

const main = resolve(dist, 'server', 'main.mjs');
if (!existsSync(main)) {
  process.stderr.write(`${name}: ${main} is missing: this package was packed without its build (npm pack runs it).\n`);
  process.exit(1);
}
// The compiled server runs in this process, as `npm start` runs it (whose heap flags, memory
// tuning for a long-running service, are left to NODE_OPTIONS here): Ctrl+C reaches it once.
Object.assign(process.env, env);
await import(pathToFileURL(main).href);

import type { Server } from 'node:net';
import { defaultDatabasePath, type Config } from './config.js';
import type { DeploymentMode } from './deployment-mode.js';
import { modeChangeHint } from './domain/sandbox.js';
import { hardLinkRefusal, writerLockPath } from './store/sqlite/writer-lock.js';
import type { Store } from './store/types.js';

/**
 * Holds the port: resolves once the server listens, rejects with the listen error (instead of
 * the unhandled 'error' event that would otherwise end the process with a stack).
 */
export function listen(server: Server, port: number, host: string): Promise<{ port: number }> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      const address = server.address();
      resolve({ port: address !== null && typeof address === 'object' ? address.port : port });
    });
  });
}

/**
 * The one line for a listen error a person can fix by choosing another PORT or HOST; undefined
 * for any other error (a bug, reported as such).
 */
export function listenProblem(error: unknown, { port, host }: Pick<Config, 'port' | 'host'>): string | undefined {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'EADDRINUSE':
      return `Could not start: port ${port} on ${host} is already in use (set PORT to another port).`;
    case 'EACCES':
      return `Could not start: no permission to listen on port ${port} on ${host} (set PORT to a port above 1023).`;
    case 'EADDRNOTAVAIL':
      return `Could not start: ${host} is not an address of this machine (set HOST to one of its addresses, or 0.0.0.0 for every interface).`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Could not start: HOST ${host} does not resolve to an address (set HOST to an address of this machine).`;
    default:
      return undefined;
  }
}

/**
 * The one line of a server that finds another server on its SQLite file (it holds the file's
 * writer lock, whatever path or symbolic link led to the file), or finds the file with a second
 * name (a hard link): what is wrong and the ways out.
 */
export function secondWriterLine(databasePath: string): string {
  const hardLinked = hardLinkRefusal(databasePath);
  if (hardLinked !== undefined) return `Could not start: ${hardLinked}`;
  return (
    `Could not start: another server is already running on the SQLite file ${databasePath} (it holds ${writerLockPath(databasePath)}). ` +
    'Two servers on one file would each answer from what they keep in memory and drift apart: stop the other one, ' +
    'give this one a DATABASE_PATH of its own, or run several instances on one PostgreSQL database (DATABASE_URL).'
  );
}

/** Hosts a person reaches as `localhost`: the loopback and every-interface addresses. */
const localHosts = new Set(['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::']);

/** The origin a person on this machine can open: `localhost` for the loopback and every-interface hosts. */
export function localOrigin(host: string, port: number): string {
  const name = localHosts.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}

/** A value as one shell word (single-quoted unless it needs no quotes). */
function shellWord(value: string): string {
  return /^[\w./:@%+=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

import { keysCommandName } from './keys-command.js';

export { keysCommandName };

/**
 * How to make a key for the database the server uses: `npm run keys` reads the same variables,
 * so a database other than the default is named (a DATABASE_URL only by name: it may hold a password).
 */
export function keysCommand(config: Pick<Config, 'databasePath' | 'databaseUrl'>, args = 'create --company "Name"'): string {
  const command = `${keysCommandName()} ${args}`;
  if (config.databaseUrl !== undefined) return `${command}  (with the same DATABASE_URL)`;
  return config.databasePath === defaultDatabasePath ? command : `DATABASE_PATH=${shellWord(config.databasePath)} ${command}`;
}

/** The name of the company a development start makes on an empty database. */
export const DEVELOPMENT_COMPANY = 'Sandbox Company';

/** What the database held at start: companies already, none (a production start), or none and the development company was just made. */
export type StartState = 'had companies' | 'no company' | 'created the development company';

/**
 * What a production start on an empty database logs (a log line, no key): nobody can call the
 * API until a company and its key are made with the keys command.
 */
export function noCompanyLine(config: Pick<Config, 'databasePath' | 'databaseUrl'>): string {
  return `No company yet: every request is answered 401 until one is made. Make a company and its API key with: ${keysCommand(config)}`;
}

/**
 * What a person at a terminal reads once the server is up: where to click and, when no key was
 * printed (the database already had companies, or a production start found none), how to make a key.
 */
export function startUpLines(config: Pick<Config, 'publicUrl' | 'databasePath' | 'databaseUrl'>, origin: string, state: StartState): string {
  const lines = [`Pix sandbox listening on ${origin}  (docs: ${origin}/docs/)`];
  if (config.publicUrl !== origin) lines.push(`Payment pages link to ${config.publicUrl} (PUBLIC_URL).`);
  if (state === 'had companies')
    lines.push(
      `This database already has companies, so no key is shown. Another key for one of them (say, a lost one): ` +
        `${keysCommand(config, `issue --company "${DEVELOPMENT_COMPANY}"`)}; a new company and its key: ${keysCommand(config)}`,
    );
  if (state === 'no company') lines.push(noCompanyLine(config));
  return `${lines.join('\n')}\n\n`;
}

/**
 * D51: a database knows which deployment it serves. The first server to start on it records its
 * mode there; a later one whose NODE_ENV says otherwise does not start (the line it prints, or
 * undefined when the modes agree), so no production database is served, or reset, as a
 * development one by mistake; only `npm run keys -- mode … --change` changes it.
 */
export async function settleDeploymentMode(store: Pick<Store, 'recordDeploymentMode'>, mode: DeploymentMode, now: Date): Promise<string | undefined> {
  const recorded = await store.recordDeploymentMode(mode, now);
  if (recorded === mode) return undefined;
  const wanted = recorded === 'production' ? 'NODE_ENV=production' : 'NODE_ENV unset (or development)';
  const running = mode === 'production' ? 'NODE_ENV=production' : 'NODE_ENV is not production';
  return (
    `Could not start: this database is recorded as a ${recorded} deployment's, and this server would run in ${mode} (${running}). ` +
    `Start it with ${wanted}. ${modeChangeHint(mode)}`
  );
}

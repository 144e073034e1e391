// What the package's three commands share: their command lines (a wrong flag is one clear line
// and exit 2), the sandbox's data folder, and a clear word when a part they need is missing.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

export const packageRoot = new URL('..', import.meta.url);
const require = createRequire(import.meta.url);
const own = JSON.parse(readFileSync(new URL('package.json', packageRoot), 'utf8'));

/** Where the sandbox keeps its SQLite file unless told (--data-dir, DATABASE_PATH or DATABASE_URL): a folder of the current one. */
export const defaultDataDir = 'pix-sandbox-data';

/** `argv` read by `options` (node:util parseArgs); a wrong flag or argument ends the command with one line and exit 2. */
export function commandLine(name, argv, options, { positionals = 0 } = {}) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: positionals > 0, strict: true });
  } catch (error) {
    // Node's own message, without its advice on positionals that start with '-'.
    usageError(name, (error instanceof Error ? error.message : String(error)).replace(/\. To specify a positional argument.*$/s, ''));
  }
  if (parsed.positionals.length > positionals) usageError(name, `unexpected argument "${parsed.positionals[positionals]}"`);
  return parsed;
}

export function usageError(name, message) {
  process.stderr.write(`${name}: ${message}. Run \`${name} --help\` for its options.\n`);
  process.exit(2);
}

/** A port from a flag: `min` (0: any free port, where the command allows it) to 65535. */
export function portFlag(name, raw, min = 0) {
  if (!/^\d{1,5}$/.test(raw) || Number(raw) < min || Number(raw) > 65535) usageError(name, `--port must be an integer from ${min} to 65535, got "${raw}"`);
  return raw;
}

/** The environment with the sandbox's database: DATABASE_URL or DATABASE_PATH as given, else `<data dir>/payments.db`. */
export function withDatabase(env, dataDir) {
  if (dataDir === undefined && (env.DATABASE_URL || env.DATABASE_PATH)) return env;
  return { ...env, DATABASE_PATH: join(resolve(dataDir ?? defaultDataDir), 'payments.db') };
}

/** What to install when `module` cannot be loaded: the version this package was tested with. */
function installLine(module) {
  const version = own.dependencies?.[module];
  return `npm install ${module}${version ? `@${version}` : ''}`;
}

/** better-sqlite3 loaded and its addon working on this Node, or a line saying what to do, and exit 1. */
export function needSqlite(name) {
  let Database;
  try {
    Database = require('better-sqlite3');
  } catch (error) {
    return missing(name, 'better-sqlite3 (the SQLite database the sandbox keeps its records in)', installLine('better-sqlite3'), error);
  }
  try {
    new Database(':memory:').close();
  } catch (error) {
    return missing(
      name,
      `better-sqlite3's native addon for Node ${process.versions.node}`,
      `npm rebuild better-sqlite3 (it compiles with python3, make and a C++ compiler where no prebuilt addon is offered), or ${installLine('better-sqlite3')}`,
      error,
    );
  }
}

/** The path of Prism's command, or a line saying what to install, and exit 1. */
export function needPrism(name) {
  try {
    const manifest = require.resolve('@stoplight/prism-cli/package.json');
    const { bin } = JSON.parse(readFileSync(manifest, 'utf8'));
    const path = join(manifest, '..', typeof bin === 'string' ? bin : bin.prism);
    if (existsSync(path)) return path;
    throw new Error(`${path} is missing`);
  } catch (error) {
    return missing(name, 'Prism (@stoplight/prism-cli, which the mock runs)', installLine('@stoplight/prism-cli'), error);
  }
}

function missing(name, what, todo, error) {
  const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
  process.stderr.write(`${name}: ${what} cannot be loaded (${why}).\nInstall it in this project: ${todo}\n`);
  process.exit(1);
}

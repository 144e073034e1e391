#!/usr/bin/env node
// `pix-keys`: the sandbox's keys command (create, issue, revoke, reset, list), as `npm run keys`
// runs it in a clone, on the database `pix-sandbox` uses (the same --data-dir).
import { commandLine, defaultDataDir, needSqlite, withDatabase } from './common.mjs';

const name = 'pix-keys';
const argv = process.argv.slice(2);
// --data-dir is this command's; the rest is the keys command's own (which refuses what it does not know).
const at = argv.findIndex((word) => word === '--data-dir' || word.startsWith('--data-dir='));
let dataDir;
if (at !== -1) {
  const taken = argv[at] === '--data-dir' ? argv.splice(at, 2) : argv.splice(at, 1);
  ({ 'data-dir': dataDir } = commandLine(name, taken, { 'data-dir': { type: 'string' } }).values);
}
const help = argv.includes('--help') || argv.includes('-h');
if (help) {
  process.stdout.write(
    `pix-keys [--data-dir DIR] <command> [options]: the keys of the sandbox whose data is in DIR\n(default: ./${defaultDataDir}, as pix-sandbox's; DATABASE_PATH or DATABASE_URL name another database).\n\n`,
  );
}
Object.assign(process.env, withDatabase({ ...process.env, PIX_KEYS_COMMAND: process.env.PIX_KEYS_COMMAND ?? `npx ${name}` }, dataDir));
if (!help && !process.env.DATABASE_URL) needSqlite(name);
process.argv.splice(2, Infinity, ...argv);
await import('../dist/keys.mjs');

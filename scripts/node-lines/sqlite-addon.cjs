/**
 * Preloaded (`node --require`) in every process of a test run on another Node line
 * (scripts/node-lines/run.ts sets NODE_OPTIONS and PIX_SQLITE_ADDONS): where a
 * `better_sqlite3.node` built for this process's ABI is in PIX_SQLITE_ADDONS, loading
 * better-sqlite3's addon loads that one instead of the install's (built for the Node that ran
 * `npm ci`). The project's code is not touched; a process on the install's own Node, or one whose
 * ABI has no addon there, loads the install's as usual.
 */
const { existsSync } = require('node:fs');
const { basename, join } = require('node:path');

const dir = process.env.PIX_SQLITE_ADDONS;
const own = dir ? join(dir, `node-v${process.versions.modules}`, 'better_sqlite3.node') : undefined;
if (own && existsSync(own)) {
  const dlopen = process.dlopen;
  process.dlopen = function dlopenOwnSqlite(module, filename, ...rest) {
    return dlopen.call(this, module, basename(filename) === 'better_sqlite3.node' ? own : filename, ...rest);
  };
}

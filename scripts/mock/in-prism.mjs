// Loaded into Prism's process by scripts/mock.mjs (`node --import`, beside mock/prism-guard.cjs):
// the mock's front (front.mjs) runs here, in the process that runs Prism, so that a request is
// parsed and answered once, not parsed by a front, sent to Prism over a second HTTP hop, and its
// answer parsed and sent again. Prism makes one HTTP server (micri's); its request handler is
// caught as the server is made, and the front, listening on the mock's public address, hands it
// each request it lets through. Prism's own server still listens, unused, on its private port
// of 127.0.0.1, where its log says it listens (that line is written with the public address).
// Prism must run its server in this process: the mock starts it with `--multiprocess=false`
// (Prism forks its server off when NODE_ENV is production).
//
// Prism's log goes straight to the mock's own stdout, its private address replaced by the public
// one here, as it is written (Prism writes a line at a time); the line saying Prism listens is
// held until the front listens there, and makes it listen. The mock (scripts/mock.mjs) gives
// what this module needs in MOCK_FRONT (JSON: `spec`, the document Prism mocks, which the front
// reads too; `host` and `port`, the public address; `privateUrl` and `publicUrl`), and is told
// over the IPC channel it opens to Prism:
//   { front: 'listening' }                 the front listens (and the line saying so is written)
//   { front: 'cannot listen', message }    it could not (the address is taken…)
//   { front: 'failed' }                    the readers below could not be loaded (said on stderr)

import http from 'node:http';
import { statSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';
import { createFront } from './front.mjs';
import { refusalRewriter } from './refusals.mjs';
import { loadSpec, safe } from './spec-file.mjs';

const { spec: specPath, host, port, privateUrl, publicUrl } = JSON.parse(process.env.MOCK_FRONT ?? '{}');

const write = process.stdout.write;
let asked = false;
process.stdout.write = function writeShown(chunk, encoding, callback) {
  if (typeof chunk !== 'string' || !chunk.includes(privateUrl)) return write.call(this, chunk, encoding, callback);
  // Integrators only ever see the front's address.
  const shown = chunk.split(privateUrl).join(publicUrl);
  if (asked || !/Prism is listening on /.test(stripAnsi(shown))) return write.call(this, shown, encoding, callback);
  asked = true;
  listen(() => write.call(this, shown));
  return true;
};

/**
 * Prism's request handler: its server's, caught as Prism makes it (again when it reloads the
 * document: it closes its server and makes a new one). Not the front's own server's.
 */
let prismHandler;
let makingFront = false;
const createServer = http.createServer;
http.createServer = function createPrismServer(...args) {
  const listener = args.find((arg) => typeof arg === 'function');
  if (listener !== undefined && !makingFront) prismHandler = listener;
  return Reflect.apply(createServer, this, args);
};

function tell(message) {
  if (process.connected) process.send?.(message);
}

// TypeScript, loaded (and compiled by tsx) while Prism starts, which takes far longer: the size
// bounds of request bodies, the ids of answers (the path's) and the Prefer checks.
const readersLoaded = Promise.all([
  tsImport('./bounds.ts', import.meta.url),
  tsImport('./path-ids.ts', import.meta.url),
  tsImport('./prefer.ts', import.meta.url),
]).then(
  ([bounds, ids, prefer]) => {
    const readers = {
      bodyLimitBytes: bounds.bodyLimitBytes,
      requestBounds: bounds.requestBounds,
      requestShape: bounds.requestShape,
      pathIdRenamer: ids.pathIdRenamer,
      malformedPathIds: ids.malformedPathIds,
      preferChecker: prefer.preferChecker,
    };
    // The contract is read (and the walks compiled) while Prism still starts, too.
    current(readers);
    return readers;
  },
  (error) => {
    console.error(`mock: could not load scripts/mock/bounds.ts, path-ids.ts and prefer.ts: ${error instanceof Error ? error.message : String(error)}`);
    tell({ front: 'failed' });
    return undefined;
  },
);

/** The front, listening on the public address; `said` once it listens. */
function listen(said) {
  readersLoaded.then((readers) => {
    if (!readers) return;
    if (prismHandler === undefined) {
      console.error('mock: Prism made no HTTP server for the front to hand requests to.');
      tell({ front: 'failed' });
      return;
    }
    makingFront = true;
    let server;
    try {
      server = createFront({
        prism: (req, res) => prismHandler(req, res),
        rewrite: Object.assign((request, answer) => current(readers).rewrite(request, answer), {
          refuse: (request, status, detail, errors) => current(readers).rewrite.refuse(request, status, detail, errors),
        }),
        limitBytes: readers.bodyLimitBytes,
        shape: (text) => current(readers).shape(text),
        bodyBounds: (method, target) => current(readers).bounds(method, target),
        pathIds: (method, target) => current(readers).ids(method, target),
        malformedIds: (method, target) => current(readers).malformed(method, target),
        prefer: (method, target, prefer) => current(readers).prefer(method, target, prefer),
      });
    } finally {
      makingFront = false;
    }
    server.on('error', (error) => tell({ front: 'cannot listen', message: error.message }));
    server.listen(port, host, () => {
      said();
      tell({ front: 'listening' });
    });
  });
}

// Prism reloads the spec when it changes; the problem types and titles, the bounds and the ids follow it.
let loaded;
// The document is looked at (stat) at most this often, not several times a request: Prism itself
// takes longer than this to reload it.
const SPEC_CHECK_MS = 250;
let checkedAt = 0;
function current(readers) {
  const now = Date.now();
  if (loaded && now - checkedAt < SPEC_CHECK_MS) return loaded;
  checkedAt = now;
  const mtime = safe(() => statSync(specPath).mtimeMs, 0);
  if (loaded?.mtime !== mtime) {
    const doc = loadSpec(specPath);
    /** One reader of the document; while it cannot be read, `fallback` (Prism reports what is wrong with the document). */
    const read = (make, what, fallback) => {
      try {
        return make(doc);
      } catch (error) {
        console.error(`mock: ${what} of ${specPath} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
        return fallback;
      }
    };
    loaded = {
      mtime,
      rewrite: refusalRewriter(doc),
      // Bodies go to Prism unchecked meanwhile, but for the size limit; answers name the examples' ids.
      bounds: read(readers.requestBounds, 'the size bounds', () => undefined),
      shape: read(readers.requestShape, 'the shape bounds', () => undefined),
      ids: read(readers.pathIdRenamer, 'the path ids', () => undefined),
      malformed: read(readers.malformedPathIds, 'the path ids', () => []),
      prefer: read(readers.preferChecker, 'the documented answers', () => undefined),
    };
  }
  return loaded;
}

function stripAnsi(text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '');
}

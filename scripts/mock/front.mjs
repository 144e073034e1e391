// The HTTP front of the mock: listens where integrators connect, inside Prism's own process
// (in-prism.mjs loads it there), and hands each request to Prism's own request handler: a
// request is parsed once, and Prism's answer is held on its way out (nothing of it is sent until
// Prism has ended it). Answers below 400 go out as Prism made them but for headers that claim
// state the mock does not keep; refusals are rewritten into the contract's Problem
// (refusals.mjs). An example answer to a request with an id in its path (`GET /charge/{id}`, a
// 404 forced with Prefer) names that id (path-ids.ts), not the example's; a path id not of its
// kind's form is the server's 404 (D27, D49), and a `Prefer` naming what the operation lacks a
// 422 listing what it has (prefer.ts).
//
// No request may kill the mock (issue 34): every body is read whole first (at most the contract's
// 1 MiB; past it, a 413 as the reference server gives, the rest drained so its sender reads it).
// A body of any JSON media type (`application/json`, any `type/subtype+json`) is scanned for its
// depth and fields per object on its raw text (lib/contract/json-shape.ts, as the server's):
// Prism crashed on a body nested 5,000 deep, so such a body never reaches it (Prism is given `{}`
// in its place, and says only what it checks before a body: the key, the route, the media type).
// A body of an operation then has its size bounds checked in the server's linear walk (bounds.ts,
// D49). A body within them goes to Prism as it came; a body past them goes to Prism cut to just
// past each bound, so Prism never validates 60,000 items while every other request waits, and the
// refusal lists the bounds broken before what Prism found in the rest. A throw anywhere in the
// front answers its request with a 500 problem and is logged; the front, and Prism with it, goes
// on serving.

import { createServer, ServerResponse, STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import { cut, MAX_ECHO } from '../../lib/problems/field-errors.mjs';
import { instanceOf } from './refusals.mjs';

// Prism's examples carry `Idempotent-Replayed: true`; a stateless mock never replays (D10).
const STATE_CLAIMS = new Set(['idempotent-replayed']);
// Hop-by-hop fields (RFC 9110 §7.6.1) belong to one connection, not to the answer.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
/**
 * Member names Prism may echo in a header as they are: printable ASCII (JSON escapes nothing else
 * Node refuses in a header), without `'` (which ends the name in Prism's "found '…'").
 */
const HEADER_SAFE = /^[\x20-\x26\x28-\x7e]*$/;
/** One media range Prism can parse (content-type's `parse`, which Prism calls on them): `type/subtype`, `; name=value` parameters. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\u000b\\u0020\\u0021\\u0023-\\u005b\\u005d-\\u007e\\u0080-\\u00ff]|\\\\[\\u000b\\u0020-\\u00ff])*"';
const MEDIA_RANGE = new RegExp(`^\\s*${TOKEN}/${TOKEN}\\s*(?:(?:; *${TOKEN} *= *(?:${QUOTED}|${TOKEN}) *)+)?$`);
const NOT_ACCEPTED = /; *q *= *"?0(?:\.0*)?"? *(?:;|$)/i;
/** Prism's findings in `sl-violations` echo the request (a field's name); past this, the problem's `errors` say them. */
const MAX_VIOLATIONS_HEADER = 8 * 1024;
/** The statuses Prism gives before it looks at a body (no key, no route, no method, not JSON): kept for a body the front refused by its shape, as the server checks these first. */
const BEFORE_BODY = new Set([401, 404, 405, 415]);
/** Bytes of a refused body read and dropped (so that its sender reads the refusal) before the connection is cut. */
const DISCARD_BYTES = 16 * 1_048_576;
/** The contract's limit of a request body (D34), when the caller gives none. */
const DEFAULT_LIMIT_BYTES = 1_048_576;

/**
 * @param {{
 *   prism: import('node:http').RequestListener,
 *   rewrite: import('./refusals.mjs').Rewrite,
 *   limitBytes?: number,
 *   shape?: (text: string) => import('./bounds.ts').ShapeBreach | undefined,
 *   bodyBounds?: (method: string, target: string) => import('./bounds.ts').BodyBounds | undefined,
 *   pathIds?: (method: string, target: string) => import('./path-ids.ts').RenameIds | undefined,
 *   malformedIds?: (method: string, target: string) => import('./path-ids.ts').MalformedId[],
 *   prefer?: (method: string, target: string, prefer: string | string[] | undefined) => import('./prefer.ts').PreferRefusal | undefined,
 * }} options `prism`: Prism's own request handler, in this process (in-prism.mjs); `limitBytes`: the most bytes of any request body read (past it, a 413);
 *   `shape`: the first breach of a JSON body's depth and fields bounds, on its raw text (bounds.ts);
 *   `bodyBounds`: the size bounds of the body of the operation a request is for;
 *   `pathIds`: how an example answer to a request comes to name the id of its path (path-ids.ts);
 *   `malformedIds`: the ids of a request's path not of their kind's form (a 404, as the server's);
 *   `prefer`: why a request's `Prefer` names an answer the operation does not have (prefer.ts)
 * @returns {import('node:http').Server} not yet listening
 */
export function createFront({
  prism,
  rewrite,
  limitBytes = DEFAULT_LIMIT_BYTES,
  shape = () => undefined,
  bodyBounds = () => undefined,
  pathIds = () => undefined,
  malformedIds = () => [],
  prefer = () => undefined,
}) {
  return createServer({ ServerResponse: HeldResponse }, (req, res) => guarded(req, res, () => handle(req, res)));

  function handle(req, res) {
    const target = req.url ?? '/';
    const method = req.method ?? 'GET';
    const request = { method, target, headers: req.headers, malformedIds: malformedIds(method, target) };
    // A body refused before it was read whole: the refusal is sent at once and the rest of the
    // body read and dropped, so the client, still sending, reads the answer (a connection closed
    // under it loses the answer: EPIPE); past DISCARD_BYTES more, the connection is cut.
    const refuse = (status, detail, errors) => {
      sendRefusal(res, rewrite.refuse(request, status, detail, errors));
      if (hasBody(req) && !req.complete) discard(req);
    };
    const unservable = prefer(method, target, req.headers.prefer);
    if (unservable) return refuse(422, unservable.detail, unservable.errors);
    if (!hasBody(req)) return pass(req, res, request);
    // A Content-Type Prism cannot parse made it throw while reading the body (a bare 500). Its
    // parameters are dropped when its type is one (as the server reads only the type); one that is
    // not even a type is the server's 415.
    const sent = req.headers['content-type'];
    if (typeof sent === 'string' && !MEDIA_RANGE.test(sent)) {
      const type = sent.split(';')[0].trim().toLowerCase();
      if (!MEDIA_RANGE.test(type)) return refuse(415, `The request body must be application/json; got ${cut(type || sent, MAX_ECHO)}.`);
      req.headers['content-type'] = type;
    }
    // Prism cannot read JSON in another charset (it answered a bare 500); the server refuses it with a 415 (D34).
    const charset = charsetOf(req.headers['content-type']);
    if (isJson(req.headers['content-type']) && charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      return refuse(415, `The request body must be JSON in UTF-8; got charset=${cut(charset, MAX_ECHO)}.`);
    }

    // Every body is read whole (Prism reads every body whole too, up to 10 MB), at most the limit.
    const tooLarge = () => refuse(413, `The request body is larger than ${limitBytes} bytes.`);
    if (Number(req.headers['content-length']) > limitBytes) return tooLarge();
    const chunks = [];
    let size = 0;
    const onData = (chunk) => {
      size += chunk.length;
      if (size > limitBytes) {
        req.off('data', onData);
        req.off('end', onEnd);
        return tooLarge();
      }
      chunks.push(chunk);
    };
    const onEnd = () => guarded(req, res, () => checked(req, res, request, Buffer.concat(chunks)));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () => res.destroy());
  }

  /** A whole body: a JSON one scanned for its shape, then walked for its size bounds, before Prism sees it. */
  function checked(req, res, request, raw) {
    if (!isJson(req.headers['content-type'])) return pass(req, res, request, raw);
    const text = raw.toString('utf8');
    const breach = shape(text);
    // Prism is given an empty object in its place: it still says what it checks before a body
    // (the key, the route, the media type), and the front says what is wrong with the body.
    if (breach) return pass(req, res, request, Buffer.from('{}'), { shape: breach });
    const bounds = bodyBounds(request.method, request.target);
    if (!bounds) return pass(req, res, request, raw);
    const body = parseJson(text);
    // Not JSON: Prism says so, as it would have.
    if (body === undefined) return pass(req, res, request, raw);
    let report;
    try {
      report = bounds.check(body.value);
    } catch (error) {
      console.error(`mock: could not check the size bounds of ${bounds.operationId}: ${messageOf(error)}`);
      return pass(req, res, request, raw);
    }
    const names = new Map();
    const substituted = substituteNames(body.value, names);
    const seen = substituted ? { ...request, names } : request;
    if (report.errors.length === 0 && report.omitted === 0) return pass(req, res, seen, substituted ? Buffer.from(JSON.stringify(body.value)) : raw);
    pass(req, res, { ...seen, bounds: report }, Buffer.from(JSON.stringify(body.value)));
  }

  /**
   * Hands the request to Prism's own handler, in this process, and relays its answer. `request`:
   * what the rewrite reads (with the size bounds the body broke, `bounds`); `body`: the body
   * already read, which Prism reads in place of the request's own stream (a request without a
   * body is handed over as it came); `shape`: the shape breach of a body Prism was given `{}` for.
   */
  function pass(req, res, request, body, { shape: breach } = {}) {
    const headers = { ...req.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    // Prism parses each media range of Accept that no answer matches and throws (outside any
    // handler: the process dies) on one that is not a media type (`Accept: ;;;`, `Accept: a`);
    // those are left out, and Accept too when none is left, which reads as accepting anything.
    if (typeof headers.accept === 'string') {
      // A range of weight 0 ("not this") left Prism with no answer it would send, and a 500.
      const ranges = headers.accept.split(',').filter((range) => MEDIA_RANGE.test(range) && !NOT_ACCEPTED.test(range));
      if (ranges.length > 0) headers.accept = ranges.join(',');
      else delete headers.accept;
    }
    let given = req;
    if (body !== undefined) {
      headers['content-length'] = String(body.length);
      given = bodyOf(req, body);
    }
    given.headers = headers;
    const release = captureAnswer(res, (answer) => guarded(req, res, () => relay(answer)));
    try {
      prism(given, res);
    } catch (error) {
      // Prism's handler catches its own faults; should it throw, the front answers (guarded).
      release();
      throw error;
    }

    function relay(answer) {
      const { status } = answer;
      const bounds = request.bounds;
      const malformed = request.malformedIds.length > 0;
      // An example answer (Prism's own, or one forced with Prefer) names the id of the request's path.
      const rename = isJsonAnswer(res.getHeader('content-type')) ? pathIds(request.method, request.target) : undefined;
      if (status < 400 && !bounds && !rename && !breach && !malformed) {
        for (const name of res.getHeaderNames()) if (!passes(name, res.getHeader(name))) res.removeHeader(name);
        res.end(answer.body);
        return;
      }
      const passed = passedHeaders(res);
      const raw = Buffer.isBuffer(answer.body) ? answer.body : Buffer.from(answer.body);
      const text = raw.toString('utf8');
      const example = () => (rename ? renamedAnswer(raw, rename) : raw);
      // The body was refused by its shape: Prism's answer stands only where the server checks first.
      if (breach && !BEFORE_BODY.has(status)) {
        const { kind: _kind, ...error } = breach;
        // Prism's findings are about the `{}` it was given, not the body.
        const kept = passed.filter(([name]) => name.toLowerCase() !== 'sl-violations');
        return sendRefusal(res, rewrite.refuse(request, 422, undefined, [error]), kept);
      }
      if (status < 400 && !bounds && !malformed) return sendAnswer(res, status, answer.statusMessage, passed, example());
      let refusal;
      try {
        refusal = rewrite(request, { status, headers: res.getHeaders(), text });
      } catch (error) {
        // A rewriting bug must not take the mock down; Prism's own answer is still an answer.
        console.error(`mock: could not rewrite Prism's ${status} answer: ${messageOf(error)}`);
      }
      if (!refusal) return sendAnswer(res, status, answer.statusMessage, passed, example());
      sendRefusal(res, refusal, passed);
    }
  }
}

/**
 * A request Prism reads `body` from, in place of the request's own stream (read whole already):
 * Prism's handler reads a request's method, URL, headers and body stream, nothing else.
 */
function bodyOf(req, body) {
  const stream = new Readable({ read() {} });
  stream.push(body);
  stream.push(null);
  stream.method = req.method;
  stream.url = req.url;
  return stream;
}

/**
 * The front's answers: as Node's, but while `held` is set (`captureAnswer`), what Prism answers
 * (its `writeHead`, `write` and `end`) goes to `held`, not to the client. The field is set on every
 * answer from the start, so that holding an answer does not change the object's shape.
 */
class HeldResponse extends ServerResponse {
  constructor(req, options) {
    super(req, options);
    this.held = undefined;
  }

  writeHead(status, ...rest) {
    if (this.held === undefined) return super.writeHead(status, ...rest);
    this.statusCode = status;
    if (typeof rest[0] === 'string') this.statusMessage = rest.shift();
    const fields = rest[0];
    const pairs = Array.isArray(fields) ? fields : Object.entries(fields ?? {});
    for (const [name, value] of pairs) this.setHeader(name, value);
    return this;
  }

  write(chunk, encoding, callback) {
    if (this.held === undefined) return super.write(chunk, encoding, callback);
    this.held.gather(chunk, encoding);
    if (typeof callback === 'function') process.nextTick(callback);
    else if (typeof encoding === 'function') process.nextTick(encoding);
    return true;
  }

  end(chunk, encoding, callback) {
    if (this.held === undefined) return super.end(chunk, encoding, callback);
    this.held.end(chunk, encoding);
    return this;
  }
}

/**
 * Holds what Prism answers on `res` (its status and header fields set on `res`, its body written
 * or ended) until it has ended, then `done({ status, statusMessage, body })`, with `res` no longer
 * held: nothing is sent until the front has looked at the answer. Prism answers with one `end`
 * (micri's `send`); what it writes before is gathered. Returns what stops holding `res`.
 */
function captureAnswer(res, done) {
  const chunks = [];
  const release = () => {
    res.held = undefined;
  };
  res.held = {
    gather(chunk, encoding) {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? encoding : 'utf8') : Buffer.from(chunk));
    },
    end(chunk, encoding) {
      // The one `end` of Prism's answer (micri's `send` writes it whole, as a string) is kept as it came.
      const whole = chunks.length === 0 && (typeof chunk === 'string' || Buffer.isBuffer(chunk)) && typeof encoding !== 'string';
      if (!whole) this.gather(chunk, encoding);
      release();
      done({ status: res.statusCode, statusMessage: res.statusMessage, body: whole ? chunk : Buffer.concat(chunks) });
    },
  };
  return release;
}

/**
 * Runs one step of answering a request; a bug of the front (a throw) answers that request with a
 * 500 problem and is logged in one line, never ending the mock.
 */
function guarded(req, res, step) {
  try {
    step();
  } catch (error) {
    console.error(`mock: the front failed on ${req.method} ${String(req.url).slice(0, 200)}: ${messageOf(error)}`);
    if (res.headersSent) return res.destroy();
    sendInternalError(res, `The mock's front failed on this request (${messageOf(error)}); the mock goes on serving.`, req.url);
  }
}

/**
 * Member names Prism cannot be given as they are, replaced in place (`mock-name-1`…), and the
 * originals by their stand-ins in `names`; whether any was replaced. Prism names each unknown field
 * in its `sl-violations` header, in full: a name with a character no header may hold (`ключ`, DEL)
 * made Node throw inside Prism and killed the mock, and a megabyte-long one kept Prism logging for
 * 1-2 s while every other request waited. The refusal names the field by its own name
 * (refusals.mjs maps the stand-ins back), cut as the server cuts it. (The body is a few levels
 * deep at most: its shape was scanned.)
 */
function substituteNames(value, names) {
  if (Array.isArray(value)) return value.reduce((changed, item) => substituteNames(item, names) || changed, false);
  if (typeof value !== 'object' || value === null) return false;
  let changed = false;
  for (const name of Object.keys(value)) {
    changed = substituteNames(value[name], names) || changed;
    if (name.length <= MAX_ECHO && HEADER_SAFE.test(name)) continue;
    const standIn = `mock-name-${names.size + 1}`;
    names.set(standIn, name);
    value[standIn] = value[name];
    delete value[name];
    changed = true;
  }
  return changed;
}

/** Reads and drops the rest of a request's body; a body that goes on past `DISCARD_BYTES` has its connection cut. */
function discard(req) {
  let dropped = 0;
  req.removeAllListeners('data');
  req.on('data', (chunk) => {
    dropped += chunk.length;
    if (dropped > DISCARD_BYTES) req.socket.destroy();
  });
  req.resume();
}

/** Whether a request has a body (RFC 9112 §6.3: a Content-Length above 0, or Transfer-Encoding). */
function hasBody(req) {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function messageOf(error) {
  return error instanceof Error ? error.message : String(error);
}

/** A refusal as the answer; `passed`: Prism's header fields, when it answered. */
function sendRefusal(res, refusal, passed = []) {
  const body = JSON.stringify(refusal.problem);
  const kept = passed.filter(([name]) => !['content-type', 'content-length', 'allow'].includes(name.toLowerCase()));
  sendWhole(
    res,
    refusal.status,
    undefined,
    [...kept, ['Content-Type', 'application/problem+json'], ['Content-Length', String(Buffer.byteLength(body))], ...Object.entries(refusal.headers)],
    body,
  );
}

/** An answer relayed whole, its Content-Length the body's. */
function sendAnswer(res, status, statusMessage, passed, body) {
  sendWhole(res, status, statusMessage, [...passed.filter(([name]) => name.toLowerCase() !== 'content-length'), ['Content-Length', String(body.length)]], body);
}

/**
 * Answers with `status`, the header fields `fields` (`[name, value]` pairs, in their order) and
 * `body`, and no other header field: none of those Prism set on `res` before the front answered.
 */
function sendWhole(res, status, statusMessage, fields, body) {
  for (const name of res.getHeaderNames()) res.removeHeader(name);
  for (const [name, value] of fields) res.setHeader(name, value);
  res.writeHead(status, statusMessage ?? STATUS_CODES[status] ?? 'unknown');
  res.end(body);
}

/** A JSON answer with its ids renamed; the answer as it was when it is not JSON after all. */
function renamedAnswer(raw, rename) {
  const body = parseJson(raw.toString('utf8'));
  return body === undefined ? raw : Buffer.from(JSON.stringify(rename(body.value)));
}

/** Whether a Content-Type names a JSON answer (`application/json`, `application/problem+json`, any parameters). */
function isJsonAnswer(contentType) {
  return typeof contentType === 'string' && /^application\/(?:[\w.+-]+\+)?json$/i.test(contentType.split(';')[0].trim());
}

/**
 * Whether a Content-Type names JSON: `application/json` or any `type/subtype+json` (RFC 6839),
 * any parameters. Prism parses `application/json` and `application/*+json` bodies; the front
 * scans every JSON one.
 */
function isJson(contentType) {
  return typeof contentType === 'string' && /^[\w.+-]+\/(?:json|[\w.+-]+\+json)$/i.test(contentType.split(';')[0].trim());
}

/** The `charset` parameter of a Content-Type, lower case and unquoted; undefined without one. */
function charsetOf(contentType) {
  if (typeof contentType !== 'string') return undefined;
  const parameter = contentType
    .split(';')
    .slice(1)
    .map((part) => part.trim().toLowerCase())
    .find((part) => part.startsWith('charset='));
  return parameter?.slice('charset='.length).replace(/"/g, '');
}

/** `{ value }` of a JSON text; undefined when it is none. */
function parseJson(text) {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** The contract's internal-error problem, for a fault of the front itself. */
function sendInternalError(res, detail, target) {
  const body = JSON.stringify({ type: '/problems/internal-error', title: 'Internal server error', status: 500, detail, instance: instanceOf(target ?? '/') });
  sendWhole(
    res,
    500,
    undefined,
    [
      ['Content-Type', 'application/problem+json'],
      ['Content-Length', String(Buffer.byteLength(body))],
    ],
    body,
  );
}

/** Prism's header fields set on `res`, as `[name, value]` pairs in its spelling, but for those that do not {@link passes}. */
function passedHeaders(res) {
  const pairs = [];
  for (const name of res.getRawHeaderNames()) {
    const value = res.getHeader(name);
    if (passes(name.toLowerCase(), value)) pairs.push([name, value]);
  }
  return pairs;
}

/** Whether a header field of Prism's answer is passed on: not hop-by-hop, not a state claim, not an overlong `sl-violations`. */
function passes(lower, value) {
  if (HOP_BY_HOP.has(lower) || STATE_CLAIMS.has(lower)) return false;
  return lower !== 'sl-violations' || String(value).length <= MAX_VIOLATIONS_HEADER;
}

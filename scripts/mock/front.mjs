// The HTTP front of the mock: listens where integrators connect and passes each request to
// Prism on a private port. Answers below 400 stream through untouched but for headers that
// claim state the mock does not keep; refusals are read whole and rewritten into the
// contract's Problem (refusals.mjs). An example answer to a request with an id in its path
// (`GET /charge/{id}`, a 404 forced with Prefer) is read whole too, and names that id
// (path-ids.ts), not the example's.
//
// A JSON body of an operation is read whole first (at most the contract's 1 MiB; past it, a 413
// as the reference server gives) and its size bounds checked in the server's linear walk
// (bounds.ts, D49). A body within them goes to Prism as it came; a body past them goes to
// Prism cut to just past each bound, so Prism never validates 60,000 items while every other
// request waits, and the refusal lists the bounds broken before what Prism found in the rest.

import { Agent, createServer, request as httpRequest } from 'node:http';
import { instanceOf } from './refusals.mjs';

// Prism's examples carry `Idempotent-Replayed: true`; a stateless mock never replays (D10).
const STATE_CLAIMS = new Set(['idempotent-replayed']);
// Hop-by-hop fields (RFC 9110 §7.6.1) belong to one connection, not to the answer.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

/**
 * @param {{
 *   upstream: { host: string, port: number },
 *   rewrite: import('./refusals.mjs').Rewrite,
 *   bodyBounds?: (method: string, target: string) => import('./bounds.ts').BodyBounds | undefined,
 *   pathIds?: (method: string, target: string) => import('./path-ids.ts').RenameIds | undefined,
 * }} options `bodyBounds`: the size bounds of the body of the operation a request is for;
 *   `pathIds`: how an example answer to a request comes to name the id of its path (path-ids.ts)
 * @returns {import('node:http').Server} not yet listening
 */
export function createFront({ upstream, rewrite, bodyBounds = () => undefined, pathIds = () => undefined }) {
  const agent = new Agent({ keepAlive: true });

  return createServer((req, res) => {
    const target = req.url ?? '/';
    const bounds = isJson(req.headers['content-type']) ? bodyBounds(req.method ?? 'GET', target) : undefined;
    if (!bounds) return pass(req, res);
    const tooLarge = () => {
      const refusal = rewrite.refuse(
        { method: req.method ?? 'GET', target, headers: req.headers },
        413,
        `The request body is larger than ${bounds.limitBytes} bytes.`,
      );
      // The rest of the body is not read, so the connection cannot carry another request.
      sendRefusal(res, { ...refusal, headers: { ...refusal.headers, Connection: 'close' } });
    };
    const declared = Number(req.headers['content-length']);
    if (declared > bounds.limitBytes) return tooLarge();
    const chunks = [];
    let size = 0;
    const onData = (chunk) => {
      size += chunk.length;
      if (size > bounds.limitBytes) {
        req.off('data', onData);
        req.off('end', onEnd);
        return tooLarge();
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      const raw = Buffer.concat(chunks);
      const body = parseJson(raw.toString('utf8'));
      // Not JSON: Prism says so, as it would have.
      if (body === undefined) return pass(req, res, raw);
      let report;
      try {
        report = bounds.check(body.value);
      } catch (error) {
        console.error(`mock: could not check the size bounds of ${bounds.operationId}: ${error instanceof Error ? error.message : String(error)}`);
        return pass(req, res, raw);
      }
      if (report.errors.length === 0 && report.omitted === 0) return pass(req, res, raw);
      pass(req, res, Buffer.from(JSON.stringify(body.value)), report);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', () => res.destroy());
  });

  /**
   * Sends the request to Prism and relays its answer. `body`: the body already read (the
   * request's own stream is piped otherwise); `bounds`: the size bounds it broke, for the refusal.
   */
  function pass(req, res, body, bounds) {
    const headers = { ...req.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
    if (body !== undefined) headers['content-length'] = String(body.length);
    let forward;
    try {
      forward = httpRequest({ host: upstream.host, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => relay(answer));
    } catch (error) {
      // Node refuses to send some requests its own parser let in; that must not end the mock.
      return sendProblem(
        res,
        400,
        'Malformed request',
        `The request cannot be passed to Prism (${error instanceof Error ? error.message : String(error)}).`,
        req.url,
      );
    }

    function relay(answer) {
      const status = answer.statusCode ?? 502;
      const passed = passedHeaders(answer.rawHeaders);
      // An example answer (Prism's own, or one forced with Prefer) names the id of the request's path.
      const rename = isJsonAnswer(answer.headers['content-type']) ? pathIds(req.method ?? 'GET', req.url ?? '/') : undefined;
      if (status < 400 && !bounds && !rename) {
        res.writeHead(status, answer.statusMessage, passed);
        answer.pipe(res);
        return;
      }
      const chunks = [];
      answer.on('data', (chunk) => chunks.push(chunk));
      answer.on('error', () => res.destroy());
      answer.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = raw.toString('utf8');
        const example = () => (rename ? renamedAnswer(raw, rename) : raw);
        if (status < 400 && !bounds) return sendAnswer(res, status, answer.statusMessage, passed, example());
        let refusal;
        try {
          refusal = rewrite({ method: req.method ?? 'GET', target: req.url ?? '/', headers: req.headers, bounds }, { status, headers: answer.headers, text });
        } catch (error) {
          // A rewriting bug must not take the mock down; Prism's own answer is still an answer.
          console.error(`mock: could not rewrite Prism's ${status} answer: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (!refusal) return sendAnswer(res, status, answer.statusMessage, passed, example());
        sendRefusal(res, refusal, passed);
      });
    }
    forward.on('error', (error) => {
      if (res.headersSent) return res.destroy();
      sendProblem(res, 502, 'Bad Gateway', `The mock's Prism process did not answer (${error.message}).`, req.url);
    });
    res.on('close', () => {
      if (!res.writableFinished) forward.destroy();
    });
    if (body !== undefined) return forward.end(body);
    req.on('error', () => forward.destroy());
    req.pipe(forward);
  }
}

/** A refusal as the answer; `passed`: Prism's header fields, when it answered. */
function sendRefusal(res, refusal, passed = []) {
  const body = JSON.stringify(refusal.problem);
  const kept = passed.filter(([name]) => !['content-type', 'content-length', 'allow'].includes(name.toLowerCase()));
  res.writeHead(refusal.status, [
    ...kept,
    ['Content-Type', 'application/problem+json'],
    ['Content-Length', String(Buffer.byteLength(body))],
    ...Object.entries(refusal.headers),
  ]);
  res.end(body);
}

/** An answer relayed whole, its Content-Length the body's. */
function sendAnswer(res, status, statusMessage, passed, body) {
  res.writeHead(status, statusMessage, [...passed.filter(([name]) => name.toLowerCase() !== 'content-length'), ['Content-Length', String(body.length)]]);
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

/** Whether a Content-Type names JSON (`application/json`, any parameters): only such a body is read and walked. */
function isJson(contentType) {
  return typeof contentType === 'string' && contentType.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** `{ value }` of a JSON text; undefined when it is none. */
function parseJson(text) {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/** A problem of the mock itself (the contract has no type for it, hence `about:blank`, RFC 9457 §4.2.1). */
// A 400 is the contract's malformed request; a 502 (Prism gone) is the mock's own fault, which the contract has no type for.
function sendProblem(res, status, title, detail, target) {
  const type = status === 400 ? '/problems/malformed-request' : 'about:blank';
  const body = JSON.stringify({ type, title, status, detail, instance: instanceOf(target ?? '/') });
  res.writeHead(status, { 'Content-Type': 'application/problem+json', 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(body);
}

/** Prism's header fields as `[name, value]` pairs in its spelling, without hop-by-hop fields and state claims. */
function passedHeaders(raw) {
  const pairs = [];
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i];
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || STATE_CLAIMS.has(lower)) continue;
    pairs.push([name, raw[i + 1]]);
  }
  return pairs;
}

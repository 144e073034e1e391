// The HTTP front of the mock: listens where integrators connect and passes each request to
// Prism on a private port. Answers below 400 stream through untouched but for headers that
// claim state the mock does not keep; refusals are read whole and rewritten into the
// contract's Problem (refusals.mjs).

import { Agent, createServer, request as httpRequest } from 'node:http';
import { instanceOf } from './refusals.mjs';

// Prism's examples carry `Idempotent-Replayed: true`; a stateless mock never replays (D10).
const STATE_CLAIMS = new Set(['idempotent-replayed']);
// Hop-by-hop fields (RFC 9110 §7.6.1) belong to one connection, not to the answer.
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

/**
 * @param {{ upstream: { host: string, port: number }, rewrite: ReturnType<typeof import('./refusals.mjs').refusalRewriter> }} options
 * @returns {import('node:http').Server} not yet listening
 */
export function createFront({ upstream, rewrite }) {
  const agent = new Agent({ keepAlive: true });

  return createServer((req, res) => {
    const headers = { ...req.headers };
    for (const name of HOP_BY_HOP) delete headers[name];
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
      if (status < 400) {
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
        let refusal;
        try {
          refusal = rewrite({ method: req.method ?? 'GET', target: req.url ?? '/', headers: req.headers }, { status, headers: answer.headers, text });
        } catch (error) {
          // A rewriting bug must not take the mock down; Prism's own answer is still an answer.
          console.error(`mock: could not rewrite Prism's ${status} answer: ${error instanceof Error ? error.message : String(error)}`);
        }
        if (!refusal) {
          res.writeHead(status, answer.statusMessage, passed);
          res.end(raw);
          return;
        }
        const body = JSON.stringify(refusal.problem);
        const kept = passed.filter(([name]) => !['content-type', 'content-length', 'allow'].includes(name.toLowerCase()));
        res.writeHead(refusal.status, [
          ...kept,
          ['Content-Type', 'application/problem+json'],
          ['Content-Length', String(Buffer.byteLength(body))],
          ...Object.entries(refusal.headers),
        ]);
        res.end(body);
      });
    }
    forward.on('error', (error) => {
      if (res.headersSent) return res.destroy();
      sendProblem(res, 502, 'Bad Gateway', `The mock's Prism process did not answer (${error.message}).`, req.url);
    });
    req.on('error', () => forward.destroy());
    res.on('close', () => {
      if (!res.writableFinished) forward.destroy();
    });
    req.pipe(forward);
  });
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

/**
 * Issue 34: no connection outlives its timeouts. Against the compiled server (`npm start`) over raw TCP: a
 * request Node refuses before the app (here the 408 of headers that never finish, and the 400 of
 * bytes that are not HTTP) is answered with a problem carrying the RateLimit fields of the
 * address's anonymous quota, which it spends, and the connection is then destroyed, not left
 * half-closed while the client keeps its side open; and one address holds at most
 * CONNECTIONS_PER_ADDRESS connections, the next one answered 429 and closed, other addresses
 * served meanwhile.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REFUSAL_LINGER_MS } from '../http/connections.js';
import { exchange, get } from '../test-support/raw-http.js';
import { dropChildSchemas, freePort, killAll, listening, printedKey, within, type Running, startBuiltServer } from '../test-support/processes.js';

let folder: string;
let running: Running;
let port: number;
let apiKey: string;
const CAP = 3;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'pix-connections-test-'));
  port = await freePort();
  running = startBuiltServer({
    DATABASE_PATH: join(folder, 'payments.db'),
    PORT: String(port),
    LOG_LEVEL: 'info',
    HEADERS_TIMEOUT_MS: '1000',
    REQUEST_TIMEOUT_MS: '2000',
    RATE_LIMIT_REQUESTS: '1000',
    RATE_LIMIT_ANONYMOUS_REQUESTS: '1000',
    RATE_LIMIT_WINDOW_SECONDS: '3600',
    CONNECTIONS_PER_ADDRESS: String(CAP),
  });
  await listening(running);
  apiKey = printedKey(running);
});
afterAll(async () => {
  if (running) {
    expect(running.child.exitCode, running.stderr()).toBeNull();
    running.child.kill('SIGTERM');
    await within(running.exited, 'the server to exit on SIGTERM');
  }
  await killAll();
  rmSync(folder, { recursive: true, force: true });
  dropChildSchemas();
});

interface Refused {
  /** What the server sent before its FIN. */
  answer: string;
  /** What a write after the answer and the linger met: the server reset it (the socket is gone), or it was taken (half-closed). */
  afterLinger: 'reset' | 'taken';
}

/**
 * Sends `request` and keeps the client's side open after the server's answer and FIN (a client
 * that never closes); once the linger has passed, writes again: a destroyed server socket answers
 * that write with a reset, a half-closed one takes it.
 */
function refused(request: string, localAddress: string): Promise<Refused> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress, allowHalfOpen: true });
    let answer = '';
    let settled = false;
    const done = (afterLinger: Refused['afterLinger']) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ answer, afterLinger });
    };
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? done('reset') : reject(error)));
    socket.on('end', () => {
      setTimeout(() => {
        // Two writes a moment apart: the first draws the reset, the second (or a read) reports it.
        socket.write('X-B: 1\r\n');
        setTimeout(() => socket.write('X-C: 1\r\n'), 200);
        setTimeout(() => done('taken'), 2_000);
      }, REFUSAL_LINGER_MS + 500);
    });
    socket.write(request);
  });
}

function headerOf(answer: string, name: string): string | undefined {
  return new RegExp(`^${name}: (.*)$`, 'im').exec(answer.slice(0, answer.indexOf('\r\n\r\n')))?.[1]?.trim();
}

describe('refusals before the app (issue 34)', () => {
  test('headers that never finish: a 408 problem with the RateLimit fields, then the socket destroyed while the client keeps its side open', async () => {
    const first = await refused('GET / HTTP/1.1\r\nHost: x\r\nX-A: ', '127.0.0.21');
    expect(first.answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(headerOf(first.answer, 'content-type')).toBe('application/problem+json');
    expect(JSON.parse(first.answer.slice(first.answer.indexOf('\r\n\r\n') + 4))).toMatchObject({ status: 408, type: '/problems/request-timeout' });
    expect(headerOf(first.answer, 'ratelimit')).toMatch(/^"anonymous";r=999;t=\d+$/);
    expect(headerOf(first.answer, 'ratelimit-policy')).toBe('"anonymous";q=1000;w=3600');
    expect(first.afterLinger).toBe('reset');
    // The refusal spent the address's quota: the next answer, the app's, counts on from it.
    const next = await exchange(port, get('/client'), { localAddress: '127.0.0.21' });
    expect(next.status).toBe(401);
    expect(next.headers.ratelimit).toMatch(/^"anonymous";r=998;t=\d+$/);
  });

  test('bytes that are not HTTP: a 400 problem with the RateLimit fields, then the socket destroyed', async () => {
    const answer = await refused('NOT HTTP AT ALL\r\n\r\n', '127.0.0.22');
    expect(answer.answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(headerOf(answer.answer, 'ratelimit')).toMatch(/^"anonymous";r=999;t=\d+$/);
    expect(answer.afterLinger).toBe('reset');
  });
});

describe(`at most CONNECTIONS_PER_ADDRESS (${CAP} here) connections per client address (issue 34)`, () => {
  test('one more from that address is a 429 problem with Retry-After and closed; another address is served meanwhile; a closed one frees its place', async () => {
    const held: Socket[] = [];
    try {
      for (let i = 0; i < CAP; i++) {
        const socket = connect({ port, host: '127.0.0.1', localAddress: '127.0.0.23' });
        socket.on('error', () => {});
        await new Promise((resolve) => socket.once('connect', resolve));
        held.push(socket);
      }
      const over = await exchange(port, get('/client', { 'X-API-KEY': apiKey }), { localAddress: '127.0.0.23' });
      expect(over.status).toBe(429);
      expect(over.headers['content-type']).toBe('application/problem+json');
      expect(over.headers['retry-after']).toBe('1');
      expect(JSON.parse(over.body)).toMatchObject({ type: '/problems/rate-limited', detail: expect.stringMatching(/connections open/) });
      expect(over.ended).toBe('closed');
      const other = await exchange(port, get('/client', { 'X-API-KEY': apiKey }), { localAddress: '127.0.0.24' });
      expect(other.status).toBe(200);
      held.pop()!.destroy();
      // Its close is seen by the server in a moment: then the address has a place again.
      let again = over;
      for (let i = 0; i < 50 && again.status !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        again = await exchange(port, get('/client', { 'X-API-KEY': apiKey }), { localAddress: '127.0.0.23' });
      }
      expect(again.status).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});

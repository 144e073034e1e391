/**
 * Request limits of the running server (D11, D34), against the compiled server (`npm start`) on a free port,
 * spoken to over raw TCP so that what Node itself answers (before Hono sees a request) is seen
 * as it is: an over-long URL, a header section over our limit and over Node's, a request whose
 * body or headers never finish, a client that hangs up mid-body, and the rate limit. After
 * each, the process must still be running and serving, and it must stop cleanly on SIGTERM.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { MAX_HEADER_BYTES, MAX_URL_BYTES, NODE_MAX_HEADER_BYTES } from '../http/request-limits.js';
import { exchange, get, type Exchange } from '../test-support/raw-http.js';
import {
  dropChildSchemas,
  freePort,
  killAll,
  listening,
  WAIT_MS,
  within,
  type ChildVars,
  type Running,
  printedKey,
  startBuiltServer,
} from '../test-support/processes.js';

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'pix-limits-test-'));
});
afterAll(async () => {
  await killAll();
  rmSync(folder, { recursive: true, force: true });
  dropChildSchemas();
});

interface Started {
  running: Running;
  port: number;
  apiKey: string;
}

async function startServer(name: string, vars: ChildVars = {}): Promise<Started> {
  const port = await freePort();
  const running = startBuiltServer({
    DATABASE_PATH: join(folder, name, 'payments.db'),
    PORT: String(port),
    LOG_LEVEL: 'info',
    RATE_LIMIT_REQUESTS: '0',
    ...vars,
  });
  await listening(running);
  return { running, port, apiKey: printedKey(running) };
}

/** SIGTERM, and a clean exit: the process survived everything it was sent. */
async function stopCleanly(server: Started): Promise<void> {
  expect(server.running.child.exitCode, server.running.stderr()).toBeNull();
  server.running.child.kill('SIGTERM');
  expect(await within(server.running.exited, 'the server to exit on SIGTERM')).toEqual({ code: 0, signal: null });
}

/** The exchange is an RFC 9457 problem of this status and type (D02, D34). */
function expectProblemAnswer(answer: Exchange, status: number, type: string): void {
  expect(answer.status, answer.raw.slice(0, 300)).toBe(status);
  expect(answer.headers['content-type'], `a ${status} without a problem body:\n${answer.raw.slice(0, 300)}`).toBe('application/problem+json');
  const problem = JSON.parse(answer.body) as Record<string, unknown>;
  expect(problem).toMatchObject({ type, status, title: expect.any(String), detail: expect.any(String) });
}

/** The server is running and answers an ordinary request. */
async function expectServing(server: Started): Promise<void> {
  expect(server.running.child.exitCode, server.running.stderr()).toBeNull();
  const response = await fetch(`http://127.0.0.1:${server.port}/client`, { headers: { 'X-API-KEY': server.apiKey }, signal: AbortSignal.timeout(WAIT_MS) });
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual([]);
}

/** A URL of exactly `bytes` bytes of path and query. */
function urlOf(bytes: number): string {
  return `/client?q=${'q'.repeat(bytes - '/client?q='.length)}`;
}

describe('oversized requests: one server, still serving after each', () => {
  let server: Started;
  beforeAll(async () => {
    server = await startServer('oversized');
  });
  afterAll(async () => {
    await stopCleanly(server);
  });

  const cases: Array<[string, { given: () => string; want: { status: 200 } | { status: number; type: string } }]> = [
    ['a URL of exactly 8 KiB is served', { given: () => get(urlOf(MAX_URL_BYTES), { 'X-API-KEY': server.apiKey }), want: { status: 200 } }],
    [
      'a URL one byte over 8 KiB is a 414 problem',
      { given: () => get(urlOf(MAX_URL_BYTES + 1), { 'X-API-KEY': server.apiKey }), want: { status: 414, type: '/problems/uri-too-long' } },
    ],
    [
      "a URL of 40 KB (under Node's limit) is a 414 problem, before authentication",
      { given: () => get(urlOf(40_000)), want: { status: 414, type: '/problems/uri-too-long' } },
    ],
    [
      'a header section just under 16 KiB is served',
      { given: () => get('/client', { 'X-API-KEY': server.apiKey, 'X-Padding': 'h'.repeat(MAX_HEADER_BYTES - 1_000) }), want: { status: 200 } },
    ],
    [
      'a header over 16 KiB is a 431 problem',
      {
        given: () => get('/client', { 'X-API-KEY': server.apiKey, 'X-Padding': 'h'.repeat(MAX_HEADER_BYTES + 1) }),
        want: { status: 431, type: '/problems/header-fields-too-large' },
      },
    ],
    [
      'a header section of 40 KB in many headers is a 431 problem',
      {
        given: () => get('/client', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`X-Padding-${i}`, 'h'.repeat(1_000)]))),
        want: { status: 431, type: '/problems/header-fields-too-large' },
      },
    ],
  ];
  test.each(cases)('%s, and the server keeps serving', async (_name, { given, want }) => {
    const answer = await exchange(server.port, given());
    if ('type' in want) expectProblemAnswer(answer, want.status, want.type);
    else expect(answer.status, answer.raw.slice(0, 300)).toBe(200);
    await expectServing(server);
  });

  // Today: Node answers `431 Request Header Fields Too Large` with `Connection: close` and no body (not a
  // problem), since the request line counts against its maxHeaderSize (NODE_MAX_HEADER_BYTES). D34 asks for a
  // problem. NEEDED CHANGE (server/main.ts): a `clientError` listener on the server returned by `serve()` that
  // answers HPE_HEADER_OVERFLOW with a problem (see the 431 test below); Node cannot tell a long request line
  // from long headers there (err.rawPacket is only the last chunk), so a 431 problem is what it can answer,
  // and 414 is accepted too.
  test("a URL over Node's header limit is a 414 or 431 problem, and the server keeps serving", async () => {
    const answer = await exchange(server.port, get(urlOf(NODE_MAX_HEADER_BYTES + 4_096)));
    expect(answer.status, answer.raw.slice(0, 300)).toBeOneOf([414, 431]);
    expectProblemAnswer(answer, answer.status!, answer.status === 414 ? '/problems/uri-too-long' : '/problems/header-fields-too-large');
    await expectServing(server);
  });

  // Today: Node's bare `431 Request Header Fields Too Large`, `Connection: close`, no body.
  // NEEDED CHANGE (server/main.ts): `server.on('clientError', (error, socket) => …)` on the server `serve()`
  // returns, answering `error.code === 'HPE_HEADER_OVERFLOW'` with
  // `HTTP/1.1 431 Request Header Fields Too Large` + `Content-Type: application/problem+json` + `Connection: close`
  // and the body of `new ProblemError('headersTooLarge', …).toProblem(...)` (no instance: the target was not
  // read), then `socket.end()`; other parse errors likewise as a 400 `/problems/malformed-request`;
  // ERR_HTTP_REQUEST_TIMEOUT as the 408 (below); `socket.destroy()` when `!socket.writable`.
  test("a header section over Node's limit is a 431 problem, and the server keeps serving", async () => {
    const answer = await exchange(server.port, get('/client', { 'X-API-KEY': server.apiKey, 'X-Padding': 'h'.repeat(NODE_MAX_HEADER_BYTES + 4_096) }));
    expectProblemAnswer(answer, 431, '/problems/header-fields-too-large');
    await expectServing(server);
  });

  test('a body that never finishes holds its own connection only: others are served meanwhile', async () => {
    const stalled = exchange(
      server.port,
      `POST /client HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${server.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"name": "Maria`,
      { hangUpAfterMs: 1_500 },
    );
    for (let i = 0; i < 3; i += 1) await expectServing(server);
    const answer = await stalled;
    // Today nothing is answered within the 30 s request timeout; the client gave up first.
    expect(answer.ended).toBe('open');
    expect(answer.raw).toBe('');
    await expectServing(server);
  });

  // Today the hang-up rejects the body stream with `Error: aborted` (ECONNRESET), which reaches app.onError and
  // is logged as `"msg":"unexpected error"` at level 50 with its stack (and the request line as a 500), as if
  // the server had failed. NEEDED CHANGE (server/http/request-body.ts `readLimited`, or app.onError): a body
  // stream that fails because the client went away (`c.req.raw.signal.aborted`, or the error's code
  // ECONNRESET / message "aborted") is not an unexpected error: log it at info (e.g. "client closed the
  // connection") and answer nothing (the socket is gone); a 400 problem would do too.
  test('a client that hangs up mid-body is not logged as an unexpected error', async () => {
    const before = server.running.stdout().length;
    const answer = await exchange(
      server.port,
      `POST /client HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${server.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"name": "Maria`,
      { hangUpAfterMs: 300 },
    );
    expect(answer.ended).toBe('open');
    await expectServing(server);
    // The hang-up is handled by the time the next request has been answered and logged.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const logged = server.running
      .stdout()
      .slice(before)
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
  });
});

describe('slow requests are closed (D34)', () => {
  // D34: headers within 10 s, the whole request within 30 s. Today those are fixed in server/main.ts
  // (`serverOptions: { headersTimeout: 10_000, requestTimeout: 30_000 }`) and Node checks them only every
  // `connectionsCheckingInterval` (default 30 s): measured today, a request whose headers never finish gets
  // Node's bare `408 Request Timeout` (Connection: close, no body, then FIN) after ~30 s, one whose body never
  // finishes after ~60 s. Too slow to test, and up to 30 s later than D34 says.
  // NEEDED CHANGE: configuration variables HEADERS_TIMEOUT_MS (default 10000) and REQUEST_TIMEOUT_MS (default
  // 30000) in server/config.ts (and `configVariables`), used in server/main.ts as
  // `serverOptions: { maxHeaderSize, headersTimeout: config.headersTimeoutMs, requestTimeout: config.requestTimeoutMs,
  // connectionsCheckingInterval: Math.min(1_000, config.headersTimeoutMs) }` (Node requires headersTimeout <=
  // requestTimeout: validate that in loadConfig). A bare 408 then a clean close is accepted below; a 408 problem
  // would need a `/problems/request-timeout` row in the contract's Problem table and the `clientError` listener.
  const timeouts = { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' };
  let server: Started;
  beforeAll(async () => {
    server = await startServer('slow', timeouts);
  });
  afterAll(async () => {
    await stopCleanly(server);
  });

  /** A 408 (a problem if it has a body) and a clean close, within [timeout, timeout + 2.5 s]. */
  function expectClosedWith408(answer: Exchange, timeoutMs: number): void {
    expect(answer.ended, `no answer within ${answer.ms.toFixed(0)} ms:\n${answer.raw.slice(0, 300)}`).toBe('closed');
    expect(answer.status, answer.raw.slice(0, 300)).toBe(408);
    if (answer.body !== '') {
      expect(answer.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(answer.body)).toMatchObject({
        status: 408,
        type: expect.stringMatching(/^\/problems\//),
        title: expect.any(String),
        detail: expect.any(String),
      });
    }
    expect(answer.ms).toBeGreaterThanOrEqual(timeoutMs - 100);
    expect(answer.ms).toBeLessThanOrEqual(timeoutMs + 2_500);
  }

  test('headers that never finish: 408 and closed after HEADERS_TIMEOUT_MS, the server serving meanwhile', async () => {
    const stalled = exchange(server.port, `GET /client HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${server.apiKey}\r\n`, { waitMs: 4_000 });
    await expectServing(server);
    expectClosedWith408(await stalled, 1_000);
    await expectServing(server);
  });

  test('a body that never finishes: 408 and closed after REQUEST_TIMEOUT_MS, the server serving meanwhile', async () => {
    const stalled = exchange(
      server.port,
      `POST /client HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${server.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"name": "Maria`,
      { waitMs: 5_000 },
    );
    await expectServing(server);
    expectClosedWith408(await stalled, 2_000);
    await expectServing(server);
  });
});

describe('the rate limit (D11)', () => {
  let server: Started;
  beforeAll(async () => {
    server = await startServer('rate-limit', { RATE_LIMIT_REQUESTS: '3', RATE_LIMIT_ANONYMOUS_REQUESTS: '2', RATE_LIMIT_WINDOW_SECONDS: '3600' });
  });
  afterAll(async () => {
    await stopCleanly(server);
  });

  test('the request over the quota is a 429 problem with Retry-After, RateLimit and RateLimit-Policy; the process keeps running', async () => {
    const answers: Exchange[] = [];
    for (let i = 0; i < 5; i += 1) answers.push(await exchange(server.port, get('/client', { 'X-API-KEY': server.apiKey })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429, 429]);
    const limited = answers[3]!;
    expectProblemAnswer(limited, 429, '/problems/rate-limited');
    const retryAfter = Number(limited.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(limited.headers.ratelimit).toBe(`"default";r=0;t=${retryAfter}`);
    expect(limited.headers['ratelimit-policy']).toBe('"default";q=3;w=3600');
    expect(limited.body).not.toContain(server.apiKey);
    // A request without a key spends its address's quota, not the key's: a 401; the process is still up.
    const anonymous = await exchange(server.port, get('/client'));
    expectProblemAnswer(anonymous, 401, '/problems/unauthorized');
    expect(anonymous.headers.ratelimit).toMatch(/^"anonymous";r=1;t=\d+$/);
    expect(server.running.child.exitCode).toBeNull();
  });

  test('a flood of wrong keys from one address: 401, 401, then 429 with Retry-After; another address is not affected, a forwarded header changes nothing', async () => {
    const wrong = { 'X-API-KEY': `sk_${'z'.repeat(24)}_${'A'.repeat(43)}` };
    const flood: Exchange[] = [];
    for (let i = 0; i < 4; i += 1) flood.push(await exchange(server.port, get('/client', wrong), { localAddress: '127.0.0.2' }));
    expect(flood.map((a) => a.status)).toEqual([401, 401, 429, 429]);
    expectProblemAnswer(flood[2]!, 429, '/problems/rate-limited');
    expect(Number(flood[2]!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(flood[2]!.headers.ratelimit).toMatch(/^"anonymous";r=0;t=\d+$/);
    expect(flood[2]!.headers['ratelimit-policy']).toBe('"anonymous";q=2;w=3600');

    const other = await exchange(server.port, get('/client', wrong), { localAddress: '127.0.0.3' });
    expectProblemAnswer(other, 401, '/problems/unauthorized');
    // A client cannot pick another address by saying so: no proxy is trusted here.
    const spoofed = await exchange(server.port, get('/client', { ...wrong, 'X-Forwarded-For': '127.0.0.9', Forwarded: 'for=127.0.0.9' }), {
      localAddress: '127.0.0.2',
    });
    expect(spoofed.status).toBe(429);
    // The docs are no way around it either.
    expect((await exchange(server.port, get('/docs/'), { localAddress: '127.0.0.2' })).status).toBe(429);
    expect(server.running.child.exitCode).toBeNull();
  });
});

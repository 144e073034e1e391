#!/usr/bin/env node
// Sends the mock the bodies that killed it (issue 34, item 4) and says, for each, what the mock
// answered and whether it still answers a normal request within 2 s:
//
//   node scripts/mock/attack.mjs              starts `npm run mock` (scripts/mock.mjs) on a free port
//   node scripts/mock/attack.mjs --url URL    a mock already running at URL (it is not restarted)
//
// The bodies: `"x":` nested 5,000 deep beside valid fields (the front's JSON.stringify threw and
// the front died, leaving Prism orphaned); the same nesting inside `events` (Prism crashed); the
// nesting as `application/vnd.x+json` (which skipped the front's checks); and 9.8 MB of events as
// `application/vnd.x+json` (accepted, and validated by Prism for seconds), which must be a 413;
// and an unknown field named `ключ` (Prism died putting it in a header) or a megabyte long, and
// `Accept: ;;;` (Prism died parsing it).
// A started mock that dies is reported (with whether its Prism outlived it) and started again for
// the next body. Exit status 1 when any body breaks the figure. Only 127.0.0.1 is ever contacted.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PROMPT_MS = 2_000;
const DEPTH = 5_000;
const mockScript = join(dirname(fileURLToPath(import.meta.url)), '..', 'mock.mjs');

const valid = { url: 'https://a.invalid/hooks', name: 'n', events: ['charge.paid'] };
const head = JSON.stringify(valid).slice(0, -1);
const nested = `${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}`;
const nestedEvents = `${JSON.stringify({ url: valid.url, name: valid.name }).slice(0, -1)},"events":${nested}}`;
const huge = `${JSON.stringify({ url: valid.url, name: valid.name }).slice(0, -1)},"events":[${Array(700_000).fill('"charge.paid"').join(',')}]}`;

const bodies = [
  { name: `"x": nested ${DEPTH} deep, application/json`, type: 'application/json', body: `${head},"x":${nested}}` },
  { name: `events nested ${DEPTH} deep, application/json`, type: 'application/json', body: nestedEvents },
  { name: `"x": nested ${DEPTH} deep, application/vnd.x+json`, type: 'application/vnd.x+json', body: `${head},"x":${nested}}` },
  { name: `events nested ${DEPTH} deep, application/vnd.x+json`, type: 'application/vnd.x+json', body: nestedEvents },
  { name: `${(Buffer.byteLength(huge) / 1e6).toFixed(1)} MB of events, application/vnd.x+json`, type: 'application/vnd.x+json', body: huge, want: 413 },
  // Found since: Prism names an unknown field in a header, where Node refuses `ключ` (Prism died)
  // and a megabyte-long name cost it seconds of logging.
  { name: 'an unknown field named "ключ", application/json', type: 'application/json', body: `${head},"ключ":1}`, want: 422 },
  { name: 'an unknown field with a 1 MB name, application/json', type: 'application/json', body: `${head},"${'k'.repeat(1_000_000)}":1}`, want: 422 },
  // Prism parsed each Accept range no answer matched and threw on one that is no media type.
  { name: 'a valid body with Accept: ;;;', type: 'application/json', body: JSON.stringify(valid), headers: { Accept: ';;;' }, want: 201 },
];

const urlArg = process.argv.indexOf('--url');
const given = urlArg > 0 ? process.argv[urlArg + 1] : undefined;
if (given !== undefined && !/^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/?$/.test(given)) {
  console.error('attack: --url must be http://127.0.0.1:PORT (or localhost): this script only sends to this machine.');
  process.exit(2);
}

let mock = given ? { url: given.replace(/\/$/, ''), child: undefined } : await startMock();
let failures = 0;
console.log(`attack: the mock at ${mock.url}; a normal request is GET /webhook, wanted within ${PROMPT_MS} ms after each body.`);
for (const attack of bodies) {
  const answer = await send(mock.url, 'POST', '/webhook', { 'Content-Type': attack.type, 'X-API-KEY': 'any', ...attack.headers }, attack.body, 30_000);
  // A moment for a dying process to be seen dead.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const normal = await send(mock.url, 'GET', '/webhook', { 'X-API-KEY': 'any' }, undefined, PROMPT_MS);
  const died = mock.child && (mock.child.exitCode !== null || mock.child.signalCode !== null);
  const orphan = died && groupAlive(mock.child.pid);
  const ok = normal.status === 200 && normal.ms < PROMPT_MS && !died && (attack.want === undefined || answer.status === attack.want);
  if (!ok) failures++;
  console.log(
    [
      `${ok ? 'ok  ' : 'FAIL'} ${attack.name} (${Buffer.byteLength(attack.body)} bytes):`,
      `answered ${answer.status ?? answer.error} in ${answer.ms} ms${attack.want ? ` (wanted ${attack.want})` : ''};`,
      `then GET /webhook ${normal.status ?? normal.error} in ${normal.ms} ms`,
      died ? `; the mock died (${mock.child.exitCode ?? mock.child.signalCode})${orphan ? ' and its Prism outlived it' : ''}` : '',
    ].join(' '),
  );
  if (died) {
    if (orphan) process.kill(-mock.child.pid, 'SIGKILL');
    mock = await startMock();
  }
}
if (mock.child) await stopMock(mock.child);
console.log(failures === 0 ? 'attack: the mock survived every body.' : `attack: ${failures} of ${bodies.length} bodies broke the figure.`);
process.exit(failures === 0 ? 0 : 1);

// ---------------------------------------------------------------------------------------------

/** One request; `{ status, ms, text }` or `{ error, ms }` (no answer within `timeoutMs`, reset…). */
function send(base, method, path, headers, body, timeoutMs) {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    const req = httpRequest(`${base}${path}`, {
      method,
      headers: body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) },
      timeout: timeoutMs,
    });
    req.on('response', (res) => {
      const chunks = [];
      res.on('data', (chunk) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode, ms: ms(), text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', (error) => resolve({ error: error.message, ms: ms() }));
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    // A server that answers before reading the whole body (a 413) may reset the rest of the upload.
    req.on('error', (error) => resolve({ error: error.code ?? error.message, ms: ms() }));
    req.end(body);
  });
}

async function startMock() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [mockScript], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, MOCK_HOST: '127.0.0.1', MOCK_PORT: String(port), FORCE_COLOR: '0' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stderr.on('end', () => {
    const lines = stderr.trim().split('\n').filter(Boolean);
    // What the mock said when it stopped (its last line), not a whole stack.
    if (lines.length > 0) console.log(`  mock's stderr, last line: ${lines.at(-1)}`);
  });
  process.once('exit', () => groupAlive(child.pid) && process.kill(-child.pid, 'SIGKILL'));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the mock exited at start (${child.exitCode}): ${stderr}`);
    const answer = await send(url, 'GET', '/', {}, undefined, 1_000);
    if (answer.status !== undefined) return { url, child };
    if (Date.now() > deadline) throw new Error(`the mock did not answer on ${url} within 60 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function stopMock(child) {
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, 'exit');
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  }
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

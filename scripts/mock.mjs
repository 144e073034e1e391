#!/usr/bin/env node
// Prism mock of the bundled contract, for integrators: `npm run mock`.
//
//   MOCK_HOST  interface to listen on (default 127.0.0.1)
//   MOCK_PORT  port, an integer 1-65535 (default 4010)
//   MOCK_SPEC  document to mock (default generated/openapi.yaml; mainly for tests of this script)
//
// Prism answers with the contract's own examples. It does not route on `servers`,
// so {base_url} and {base_url_alt} are both served on the one port. Per request
// the `Prefer` header picks the response: `Prefer: code=404, example=<name>`.
// Prism's log goes to stdout (its private address replaced by the public one); a short
// banner with curl examples is printed once the mock is listening. SIGINT/SIGTERM are
// forwarded to Prism and this script exits with Prism's exit status. The two end together: a
// Prism that dies is said in one line ("mock: Prism stopped …") and this script exits with it;
// this script ending, even by SIGKILL, ends Prism (mock/prism-guard.cjs).
//
// Integrators talk to a small HTTP front (mock/front.mjs) on MOCK_HOST:MOCK_PORT, which runs
// inside Prism's own process (mock/in-prism.mjs, loaded with `--import`) and hands the requests it
// lets through to Prism's own request handler: a request is parsed and answered once (a second
// HTTP hop to Prism in a process of its own, and its log relayed through this one, cost more
// than a third of the mock's throughput). Prism's own server listens, unused, on a private port
// of 127.0.0.1; Prism writes its log to this script's stdout, and the front listens once Prism
// says it listens, and says so over the IPC channel this script opens to Prism. Prism finds the
// real violations of an invalid request but answers with the contract's first 401/422 *example*, whatever was wrong (see
// prism-http-server createServer); the front rewrites every refusal into the contract's
// Problem naming what Prism found (mock/refusals.mjs), keeps Prism's `sl-violations` header,
// and drops `Idempotent-Replayed`, which the examples carry but a stateless mock can never
// truthfully send. An example answer to a request with an id in its path names that id, not the
// example's (mock/path-ids.ts); a malformed path id is the server's 404, and a Prefer naming what
// an operation lacks a 422 listing what it has (mock/prefer.ts). Before Prism sees a JSON body
// (any JSON media type), the front checks its size, shape and size bounds (D34, D49) with the
// reference server's own scan and walk (lib/contract/json-shape.ts and bounds.ts, through
// mock/bounds.ts, which mock/in-prism.mjs loads with tsx while Prism starts): Prism is never sent a
// body that could crash it, and only ever a body cut to just past its bounds, so 60,000 event
// names cost milliseconds, not seconds of a blocked mock. A fault of the front (a throw) answers
// its request with a 500 problem and Prism goes on serving. `node scripts/mock/attack.mjs` sends
// the bodies that killed it and checks that it still answers.
//
// `--errors` is on. In mock mode it only acts on violations Prism finds in the
// *response* it is about to send. For a valid request against a correct contract it
// therefore changes nothing; test/mock/mock.test.ts runs every documented status x
// example through this script and asserts no `sl-violations`, so "no violations for
// valid requests" is checked, not assumed. What it buys: if the contract ever serves an
// example that breaks its own schema, integrators get a loud 500 problem instead of
// silently coding against a wrong example.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { createRequire } from 'node:module';
import { constants as osConstants } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadSpec, safe } from './mock/spec-file.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

const DEFAULT_PORT = 4010;
const host = process.env.MOCK_HOST || '127.0.0.1';
const port = parsePort(process.env.MOCK_PORT);
const defaultSpec = join(repoRoot, 'generated', 'openapi.yaml');
const specPath = process.env.MOCK_SPEC ? resolve(process.env.MOCK_SPEC) : defaultSpec;

if (!existsSync(specPath)) {
  console.error(`mock: ${specPath} not found - run \`npm run bundle\` first.`);
  process.exit(1);
}

const prismBin = resolvePrismBin();
const prismHost = '127.0.0.1';
const prismPort = await privatePort();
const prismUrl = `http://${prismHost}:${prismPort}`;
const publicUrl = `http://${urlHost(host)}:${port}`;
// Prism ends with this script whatever ends it (a SIGKILL included): mock/prism-guard.cjs, loaded
// into Prism, ends Prism when the IPC channel to this process closes.
const guard = join(repoRoot, 'scripts', 'mock', 'prism-guard.cjs');
// The front, run inside Prism; Prism must then serve from its own process (not fork its server
// off, as it does when NODE_ENV is production).
const inPrism = pathToFileURL(join(repoRoot, 'scripts', 'mock', 'in-prism.mjs')).href;
const prismArgs = [prismBin, 'mock', specPath, '--host', prismHost, '--port', String(prismPort), '--errors', '--multiprocess=false'];
// Prism writes its log to our own stdout (its private address replaced in it by mock/in-prism.mjs).
const prism = spawn(process.execPath, ['--require', guard, '--import', inPrism, ...prismArgs], {
  cwd: repoRoot,
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  env: { ...process.env, MOCK_FRONT: JSON.stringify({ spec: specPath, host, port, privateUrl: prismUrl, publicUrl }) },
});

// The channel only tells Prism when this process is gone; it must not keep this process alive.
prism.channel?.unref();
// This process ending any other way (an uncaught error) takes Prism with it too.
process.on('exit', () => {
  if (prism.exitCode === null && prism.signalCode === null) prism.kill('SIGTERM');
});

let stopping = false;
let listening = false;
let failed = false;

// The front says when it listens (mock/in-prism.mjs, which writes the line of Prism's saying so).
prism.on('message', (message) => {
  if (message?.front === 'listening') {
    listening = true;
    process.stdout.write(banner(loadSpec(specPath)));
  } else if (message?.front === 'cannot listen') {
    console.error(`mock: cannot listen on ${host}:${port}: ${message.message}`);
    failed = true;
    stop('SIGTERM');
  } else if (message?.front === 'failed') {
    // What failed is said on Prism's stderr.
    failed = true;
    stop('SIGTERM');
  }
});

function stop(signal) {
  stopping = true;
  if (prism.exitCode === null && prism.signalCode === null) prism.kill(signal);
}

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(signal));

prism.on('error', (error) => {
  console.error(`mock: could not start Prism (${prismBin}): ${error.message}`);
  process.exit(1);
});

prism.on('exit', (code, signal) => {
  if (!listening && !stopping && code !== 0) console.error(`mock: Prism exited before listening (${signal ?? `exit code ${code}`}).`);
  // Prism died under the mock (not stopped by it): said in one line, and the mock ends with it.
  if (listening && !stopping) console.error(`mock: Prism stopped (${signal ?? `exit code ${code}`}); the mock stops with it.`);
  // The front failed (to listen): Prism was stopped for it, and that is a failure of the mock.
  if (failed) process.exit(1);
  if (code !== null) process.exit(code);
  // Prism died from a signal: report it the way a shell would (128 + signal number).
  process.exit(128 + (osConstants.signals[signal] ?? 0));
});

// ---------------------------------------------------------------------------

function parsePort(raw) {
  if (raw === undefined || raw === '') return DEFAULT_PORT;
  const value = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || !Number.isSafeInteger(value) || value < 1 || value > 65535) {
    console.error(`mock: MOCK_PORT must be an integer from 1 to 65535, got ${JSON.stringify(raw)}`);
    process.exit(2);
  }
  return value;
}

/** A port of 127.0.0.1 nobody listens on now, for Prism (which cannot be asked to pick one itself). */
function privatePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createNetServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address();
      probe.close(() => resolvePort(free));
    });
  });
}

function resolvePrismBin() {
  const pkgPath = require.resolve('@stoplight/prism-cli/package.json');
  const { bin } = JSON.parse(readFileSync(pkgPath, 'utf8'));
  return join(dirname(pkgPath), typeof bin === 'string' ? bin : bin.prism);
}

// --- banner ------------------------------------------------------------------

function banner(doc) {
  const url = publicUrl;
  const lines = [''];
  const title = doc?.info?.title ? ` of "${doc.info.title}"${doc.info.version ? ` ${doc.info.version}` : ''}` : '';
  lines.push(`  Mock server${title} is up: ${url}`);
  const vars = doc ? serverVariables(doc) : [];
  const varList = vars.length ? vars.map((v) => `{${v}}`).join(' and ') : 'every base URL';
  lines.push(`  ${varList} ${vars.length === 1 ? 'is' : 'are both'} served on this one port: use ${url} for ${vars.length > 1 ? 'each' : 'it'}.`);
  const examples = doc ? safe(() => curlExamples(doc, url), []) : [];
  if (examples.length) {
    lines.push('', '  Try:');
    for (const { comment, command } of examples) lines.push(`    # ${comment}`, `    ${command}`);
  }
  lines.push(
    '',
    '  `Prefer: code=<status>, example=<name>` picks any documented response. A refused request gets a problem',
    "  whose `errors` name what is wrong (Prism's findings, also in the `sl-violations` header). The mock keeps no state.",
    // Installed (the sandbox package's pix-mock), the bundled contract has no sources to change.
    specPath !== defaultSpec
      ? `  Prism reloads when ${specPath} changes. Ctrl+C stops it.`
      : existsSync(join(repoRoot, 'openapi'))
        ? '  Prism reloads when generated/openapi.yaml changes (npm run bundle). Ctrl+C stops it.'
        : '  Ctrl+C stops it.',
    '',
  );
  return `${lines.join('\n')}\n`;
}

function urlHost(h) {
  if (h === '0.0.0.0') return '127.0.0.1';
  if (h === '::') return '[::1]';
  return h.includes(':') && !h.startsWith('[') ? `[${h}]` : h;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** `$ref`-following for local references. */
function deref(doc, value) {
  let current = value;
  for (let i = 0; i < 32 && current && typeof current === 'object' && typeof current.$ref === 'string'; i++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) return undefined;
    current = ref
      .slice(2)
      .split('/')
      .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((node, key) => (node && typeof node === 'object' ? node[key] : undefined), doc);
  }
  return current;
}

function operations(doc) {
  const result = [];
  for (const [path, rawItem] of Object.entries(doc.paths ?? {})) {
    const item = deref(doc, rawItem) ?? {};
    for (const method of METHODS) {
      const op = item[method];
      if (!op || typeof op !== 'object') continue;
      const parameters = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => deref(doc, p)).filter(Boolean);
      result.push({ method, path, op, item, parameters });
    }
  }
  return result;
}

function serverVariables(doc) {
  const names = new Set();
  const collect = (servers) => {
    for (const server of servers ?? []) for (const [, name] of String(server?.url ?? '').matchAll(/\{(\w+)\}/g)) names.add(name);
  };
  collect(doc.servers);
  for (const { op, item } of operations(doc)) {
    collect(item.servers);
    collect(op.servers);
  }
  return [...names];
}

/** First value of an `example` / `examples` pair (parameter, media type or header). */
function exampleOf(doc, holder) {
  if (!holder || typeof holder !== 'object') return undefined;
  if (holder.example !== undefined) return holder.example;
  const first = Object.values(holder.examples ?? {})[0];
  if (first !== undefined) return deref(doc, first)?.value;
  const schema = deref(doc, holder.schema);
  if (schema?.example !== undefined) return schema.example;
  return Array.isArray(schema?.examples) ? schema.examples[0] : undefined;
}

function apiKeyHeader(doc, entry) {
  const security = entry.op.security ?? doc.security ?? [];
  for (const requirement of security) {
    for (const name of Object.keys(requirement ?? {})) {
      const scheme = deref(doc, doc.components?.securitySchemes?.[name]);
      if (scheme?.type === 'apiKey' && scheme.in === 'header') return scheme.name;
    }
  }
  return entry.parameters.find((p) => p.in === 'header' && /^x-api-key$/i.test(p.name))?.name;
}

function requestHeaders(doc, entry) {
  const headers = [];
  const apiKey = apiKeyHeader(doc, entry);
  if (apiKey) {
    const param = entry.parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === apiKey.toLowerCase());
    headers.push([apiKey, String(exampleOf(doc, param) ?? 'my-api-key')]);
  }
  for (const p of entry.parameters) {
    if (p.in !== 'header' || !p.required || headers.some(([name]) => name.toLowerCase() === p.name.toLowerCase())) continue;
    headers.push([p.name, String(exampleOf(doc, p) ?? p.name)]);
  }
  return headers;
}

function concretePath(doc, entry) {
  let path = entry.path.replace(/\{([^}]+)\}/g, (_whole, name) => {
    const param = entry.parameters.find((p) => p.in === 'path' && p.name === name);
    return encodeURIComponent(String(exampleOf(doc, param) ?? name));
  });
  const query = entry.parameters
    .filter((p) => p.in === 'query' && p.required)
    .map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(String(exampleOf(doc, p) ?? ''))}`);
  if (query.length) path += `?${query.join('&')}`;
  return path;
}

function requestBodyExample(doc, entry) {
  const body = deref(doc, entry.op.requestBody);
  const media = body?.content?.['application/json'] ?? Object.values(body?.content ?? {})[0];
  return exampleOf(doc, media);
}

function shellQuote(text) {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

function curl(doc, url, entry, { extraHeaders = [], body } = {}) {
  const parts = ['curl -i'];
  if (entry.method !== 'get') parts.push(`-X ${entry.method.toUpperCase()}`);
  parts.push(shellQuote(`${url}${concretePath(doc, entry)}`));
  for (const [name, value] of [...requestHeaders(doc, entry), ...extraHeaders]) parts.push(`-H ${shellQuote(`${name}: ${value}`)}`);
  if (body !== undefined) parts.push(`-H 'Content-Type: application/json'`, `-d ${shellQuote(JSON.stringify(body))}`);
  return parts.join(' ');
}

function curlExamples(doc, url) {
  const ops = operations(doc);
  const examples = [];
  const label = (entry) => `${entry.method.toUpperCase()} ${entry.path}`;

  const get =
    ops.find((e) => e.method === 'get' && e.path === '/charge/{id}') ??
    ops.find((e) => e.method === 'get' && e.path.includes('{')) ??
    ops.find((e) => e.method === 'get');
  if (get) examples.push({ comment: `${label(get)} (${get.op.summary ?? get.op.operationId ?? 'read'})`, command: curl(doc, url, get) });

  // The POST with the shortest documented request example makes the friendliest one-liner.
  const post = ops
    .filter((e) => e.method === 'post')
    .map((e) => ({ entry: e, body: requestBodyExample(doc, e) }))
    .filter(({ body }) => body !== undefined)
    .sort((a, b) => JSON.stringify(a.body).length - JSON.stringify(b.body).length)[0];
  if (post) {
    examples.push({
      comment: `${label(post.entry)} with a JSON body (${post.entry.op.summary ?? post.entry.op.operationId ?? 'create'})`,
      command: curl(doc, url, post.entry, { body: post.body }),
    });
  }

  // A documented error response with a named example, forced through `Prefer` (404 preferred).
  const candidates = [];
  for (const entry of ops) {
    for (const [status, rawResponse] of Object.entries(entry.op.responses ?? {})) {
      if (!/^[1-5]\d\d$/.test(status) || status.startsWith('2')) continue;
      const response = deref(doc, rawResponse);
      for (const media of Object.values(response?.content ?? {})) {
        const name = Object.keys(media?.examples ?? {})[0];
        if (name) candidates.push({ entry, status, name });
      }
    }
  }
  const rank = (c) => (c.status === '404' ? 0 : 2) + (c.entry === get ? 0 : 1);
  const forced = candidates.sort((a, b) => rank(a) - rank(b))[0];
  if (forced) {
    const body = forced.entry.method === 'get' ? undefined : requestBodyExample(doc, forced.entry);
    examples.push({
      comment: `${label(forced.entry)} forced to its documented ${forced.status} response, example "${forced.name}"`,
      command: curl(doc, url, forced.entry, { extraHeaders: [['Prefer', `code=${forced.status}, example=${forced.name}`]], body }),
    });
  }
  return examples;
}

#!/usr/bin/env node
// Requests per second of the mock through its front (`npm run mock`, scripts/mock.mjs) over Prism
// alone (the same Prism command, no front), for `POST /charge/payment-link` with the contract's
// request example (issue 38's row; the target is a ratio of at least 0.8):
//
//   node scripts/mock/rate.mjs [--seconds 10] [--rounds 2] [--connections 10]
//
// Both are started on free ports of 127.0.0.1 and loaded in turn with autocannon (after a short
// warm-up each), `rounds` times; the medians and their ratio are printed. Every answer must be a
// 2xx, or the run says which were not. Only 127.0.0.1 is ever contacted.

import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { parse } from 'yaml';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const spec = join(repoRoot, 'generated', 'openapi.yaml');
const option = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  const value = at > 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isInteger(value) || value < 1) {
    console.error(`rate: --${name} must be a positive integer`);
    process.exit(2);
  }
  return value;
};
const seconds = option('seconds', 10);
const rounds = option('rounds', 2);
const connections = option('connections', 10);

const body = JSON.stringify(requestExample('/charge/payment-link', 'post'));
const request = { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-API-KEY': 'any' }, body };

const prismBin = (() => {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('@stoplight/prism-cli/package.json');
  const { bin } = JSON.parse(readFileSync(pkgPath, 'utf8'));
  return join(dirname(pkgPath), typeof bin === 'string' ? bin : bin.prism);
})();

const mockPort = await freePort();
const prismPort = await freePort();
const targets = [
  { name: 'through the front', port: mockPort, child: start([join(repoRoot, 'scripts', 'mock.mjs')], { MOCK_PORT: String(mockPort) }) },
  { name: 'Prism alone', port: prismPort, child: start([prismBin, 'mock', spec, '--host', '127.0.0.1', '--port', String(prismPort), '--errors'], {}) },
];
try {
  await Promise.all(targets.map((t) => ready(t)));
  const figures = new Map(targets.map((t) => [t.name, []]));
  for (let round = 1; round <= rounds; round++) {
    for (const target of targets) {
      const reqPerSec = await load(target);
      figures.get(target.name).push(reqPerSec);
      console.log(`round ${round}: ${target.name}: ${reqPerSec.toFixed(0)} req/s`);
    }
  }
  const [front, alone] = targets.map((t) => median(figures.get(t.name)));
  console.log(
    `POST /charge/payment-link, ${connections} connections, ${seconds} s x ${rounds}: through the front ${front.toFixed(0)} req/s, ` +
      `Prism alone ${alone.toFixed(0)} req/s; front / Prism = ${(front / alone).toFixed(2)} (target >= 0.8)`,
  );
} finally {
  for (const { child } of targets) {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(-child.pid, 'SIGTERM');
      await once(child, 'exit');
    }
  }
}

// ---------------------------------------------------------------------------------------------

async function load(target) {
  const result = await autocannon({
    url: `http://127.0.0.1:${target.port}/charge/payment-link`,
    connections,
    duration: seconds,
    warmup: { connections, duration: 2 },
    ...request,
  });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${target.name}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  }
  return result.requests.average;
}

function start(args, env) {
  // Its own process group, so that stopping it stops whatever it started.
  const child = spawn(process.execPath, args, {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, MOCK_HOST: '127.0.0.1', FORCE_COLOR: '0', ...env },
  });
  process.once('exit', () => {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  });
  return child;
}

async function ready(target) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (target.child.exitCode !== null) throw new Error(`${target.name} exited at start (${target.child.exitCode})`);
    try {
      await fetch(`http://127.0.0.1:${target.port}/`, { signal: AbortSignal.timeout(1_000) });
      return;
    } catch {
      if (Date.now() > deadline) throw new Error(`${target.name} did not answer within 60 s`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

function requestExample(path, method) {
  const doc = parse(readFileSync(spec, 'utf8'));
  const deref = (value) => {
    let current = value;
    while (current && typeof current.$ref === 'string') {
      current = current.$ref
        .slice(2)
        .split('/')
        .reduce((node, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
    }
    return current;
  };
  const media = deref(doc.paths[path][method].requestBody).content['application/json'];
  const named = Object.values(media.examples ?? {})[0];
  return named === undefined ? media.example : deref(named).value;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
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

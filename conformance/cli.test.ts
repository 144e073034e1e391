/**
 * The conformance command as a user runs it (bundled as `npx pix-conformance` ships it) as a child process, against
 * a real reference server (the compiled server (`npm start`) on a temporary database and a free port), a
 * closed port, and bad arguments. Every child is killed (its process group) after each test.
 *
 * @full-run-only: it enumerates the contract's operations, but `npm run test:operation` leaves it to `npm test`: the installed command against whole deployments, in processes of its own (half a minute); the checks it runs are judged in the loop by the conformance step and the checks' own tests.
 */
// long-running: about 60 s (the conformance command as a process against the compiled server); test/support/sequencer.ts starts it early
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { listOperations } from '../lib/contract/bundled.js';
import {
  createCompanyKey,
  freePort,
  listening,
  printedKey,
  repoRoot,
  startNode,
  useChildProcesses,
  within,
  startBuiltServer,
} from '../server/test-support/processes.js';
import { conformance, matrixCell, RUN_MS } from './test-support/cli-process.js';
import type { Har } from './report/har.js';
import { junitTotal, shownTotal } from './report/totals-check.js';
import { parseXml } from './report/xml-check.js';
import { checkNames } from './engine/types.js';
import { shortNames } from './report/matrix.js';

const folder = useChildProcesses('conformance-cli-test-');

/** A text as a regular expression matching it literally. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const hasCurl = spawnSync('curl', ['--version']).status === 0;
if (!hasCurl) console.warn('NOTICE: curl is not installed: the curl line the CLI prints for a failure is not run.');

describe('against the reference server', () => {
  test('profile reference: exit 0, the matrix, JUnit, HTML and HAR written, no key shown', { timeout: RUN_MS + 30_000 }, async () => {
    const databasePath = join(folder(), 'ref', 'payments.db');
    const port = await freePort();
    // A fast retry, so that the webhook check sees the delivery its receiver refused come again.
    const server = startBuiltServer({
      DATABASE_PATH: databasePath,
      PORT: String(port),
      WEBHOOK_RETRY_SCHEDULE: '0.5,0.5',
      WEBHOOK_POLL_MS: '50',
    });
    await listening(server);
    const apiKey = printedKey(server);
    const { apiKey: secondApiKey } = await createCompanyKey({ DATABASE_PATH: databasePath }, 'B');

    const junit = join(folder(), 'out', 'junit.xml');
    const html = join(folder(), 'out', 'report.html');
    const har = join(folder(), 'out', 'run.har');
    const base = `http://127.0.0.1:${port}`;
    const run = await conformance([
      '--base-url',
      base,
      '--api-key',
      apiKey!,
      '--second-api-key',
      secondApiKey,
      '--profile',
      'reference',
      '--junit',
      junit,
      '--html',
      html,
      '--har',
      har,
      '--run-id',
      'clitest',
      '--webhook-receiver',
      `127.0.0.1:${await freePort()}`,
    ]);
    const failed = `exit ${run.exit.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;

    expect(run.exit.code, failed).toBe(0);
    const lines = run.stdout.split('\n');
    const headers = lines.flatMap((l, i) => (l.startsWith('operation ') ? [i] : []));
    // Every check's column, in the report's order: derived, so a new check needs no edit here.
    expect(headers.flatMap((at) => lines[at]!.split(/\s+/).slice(1)).join(' '), failed).toBe(checkNames.map((c) => shortNames[c]).join(' '));
    // The deliveries to the suite's own receiver were checked, and passed.
    for (const column of ['wsg', 'wsc', 'wdl']) expect(matrixCell(run.stdout, 'createWebhook', column), `${column}\n${failed}`).toBe('✓');
    // Every operation but the sandbox reset, which a run never sends (x-resets-company, D51).
    for (const { operationId } of listOperations().filter((op) => op.operation['x-resets-company'] !== true))
      expect(
        lines.some((l) => new RegExp(`^${operationId}\\s+[✓✗–i·]`).test(l)),
        operationId,
      ).toBe(true);
    expect(run.stdout).toMatch(/Checks: \d+ passed, 0 failed, \d+ info, \d+ skipped/);
    // The server's default rate limit is on: the run must wait out 429s, not skip what they blocked.
    expect(run.stdout, failed).not.toMatch(/answered 429/);
    expect(run.stdout).toContain('Profile reference · run id clitest');
    expect(run.stdout).toContain(`JUnit report: ${junit}`);
    expect(run.stdout).toContain(`HTML report: ${html}`);
    expect(run.stdout).toContain(`HAR report: ${har}`);

    const xml = readFileSync(junit, 'utf8');
    const root = parseXml(xml);
    expect(root.attrs.failures).toBe('0');
    expect(root.children.map((s) => s.attrs.name)).toEqual(listOperations().map((op) => op.operationId));
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/^<!DOCTYPE html>/);
    expect(page).toContain('Conformance run clitest');
    // One total, in checks (matrix cells with a result), wherever the run is reported.
    const total = shownTotal(run.stdout);
    expect(total.checks).toBeGreaterThan(listOperations().length);
    expect(shownTotal(page)).toEqual(total);
    expect(junitTotal(xml)).toEqual(total);
    expect(run.stderr).toMatch(new RegExp(`^Done: \\d+ passed, 0 failed, \\d+ info, ${total.skipped} skipped \\(${total.checks} checks on `, 'm'));
    // The conformance guide's sample total is this run's, word for word but for its counts (which
    // grow with the contract's operations): the same zeros, a count wherever the run has one.
    const guide = readFileSync(join(repoRoot, 'docs', 'conformance.md'), 'utf8');
    const sample = guide.match(/`(Checks: [^`]+)`/)?.[1];
    expect(sample).toBeDefined();
    const sampleForm = new RegExp(`^${sample!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\b[1-9]\d*\b/g, '[1-9]\\d*')}$`);
    expect(/^Checks: .*$/m.exec(run.stdout)?.[0]).toMatch(sampleForm);
    expect(run.stdout).not.toMatch(/vitest:|findings:/);

    // The HAR file: every request of the run, each operation's, with the key header masked.
    const archive = readFileSync(har, 'utf8');
    const { log } = JSON.parse(archive) as Har;
    expect(log.version).toBe('1.2');
    expect(log.entries.length).toBeGreaterThan(total.checks);
    // Every operation but the sandbox reset, which a run never sends (x-resets-company, D51).
    for (const { operationId } of listOperations().filter((op) => op.operation['x-resets-company'] !== true))
      expect(
        log.entries.some((e) => e.comment === operationId),
        operationId,
      ).toBe(true);
    const keyHeaders = log.entries.flatMap((e) => e.request.headers.filter((h) => h.name === 'X-API-KEY').map((h) => h.value));
    expect(keyHeaders.length).toBeGreaterThan(0);
    for (const value of keyHeaders) expect(value).toMatch(/(^|…)\*{4}$/);

    for (const output of [run.stdout, run.stderr, xml, page, archive]) {
      expect(output).not.toContain(apiKey);
      expect(output).not.toContain(secondApiKey);
    }
  });
});

test('Ctrl-C in the middle of a run: exit 130, the webhook registrations it had made are deleted, the reports say it was interrupted', {
  timeout: RUN_MS + 30_000,
}, async () => {
  const port = await freePort();
  const server = startBuiltServer({ DATABASE_PATH: join(folder(), 'interrupt', 'payments.db'), PORT: String(port) });
  await listening(server);
  const apiKey = printedKey(server);
  const base = `http://127.0.0.1:${port}`;
  const registrations = async () => ((await (await fetch(`${base}/webhook`, { headers: { 'X-API-KEY': apiKey } })).json()) as unknown[]).length;
  const junit = join(folder(), 'interrupt', 'junit.xml');
  // Node with tsx's loader in the same process (not the tsx command, which relays signals to a child of its own).
  const run = startNode(['--import', 'tsx', 'conformance/cli.ts', '--base-url', base, '--run-id', 'interrupted', '--junit', junit], {
    CONFORMANCE_API_KEY: apiKey,
    NO_COLOR: '1',
  });
  await within(
    (async () => {
      while ((await registrations()) === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    })(),
    'a webhook registration of the run',
    RUN_MS,
  );
  run.child.kill('SIGINT');
  const exit = await within(run.exited, 'the interrupted run to end', 30_000);
  expect(exit.code, run.stderr()).toBe(130);
  expect(run.stderr()).toContain('conformance: SIGINT: stopping, deleting what the run created');
  expect(run.stderr()).toMatch(
    /conformance: interrupted: the run stopped before its end; its clean-up deleted the (record|\d+ records) the run had left that the contract lets it delete\n/,
  );
  expect(run.stdout(), 'no matrix of a run that did not end').not.toMatch(/Checks: /);
  expect(await registrations()).toBe(0);
  // The JUnit file CI reads: what the run had found, and an error saying it was interrupted.
  expect(run.stdout()).toBe(`JUnit report: ${junit}\n`);
  const root = parseXml(readFileSync(junit, 'utf8'));
  expect(root.attrs.errors).toBe('1');
  expect(root.children[0]?.children[0]?.children[0]?.attrs.message).toMatch(
    /^the run stopped before its end: interrupted: the run stopped before its end; its clean-up deleted /,
  );
});

test('a target that stops answering in the middle (its proxy killed): exit 2, one line naming the registrations left and how to delete them, the reports written', {
  timeout: RUN_MS + 30_000,
}, async () => {
  const port = await freePort();
  const server = startBuiltServer({ DATABASE_PATH: join(folder(), 'killed', 'payments.db'), PORT: String(port) });
  await listening(server);
  const apiKey = printedKey(server);
  const direct = `http://127.0.0.1:${port}`;
  const registrations = async () =>
    ((await (await fetch(`${direct}/webhook`, { headers: { 'X-API-KEY': apiKey } })).json()) as Array<{ id: string; url: string }>).map((w) => w.id);
  // A pass-through TCP proxy in front of the server, as a load balancer or a tunnel is.
  const sockets = new Set<Socket>();
  const proxy = createNetServer((socket) => {
    const upstream = connect(port, '127.0.0.1');
    for (const s of [socket, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
    socket.pipe(upstream).pipe(socket);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxied = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  const out = join(folder(), 'killed', 'out');
  const files = { junit: join(out, 'junit.xml'), html: join(out, 'report.html'), har: join(out, 'run.har') };
  const running = conformance(['--base-url', proxied, '--run-id', 'killedproxy', '--junit', files.junit, '--html', files.html, '--har', files.har], RUN_MS, {
    CONFORMANCE_API_KEY: apiKey,
  });
  // Killed once the run has a registration on the server: nothing answers at its address any more.
  await within(
    (async () => {
      while ((await registrations()).length === 0) await new Promise((resolve) => setTimeout(resolve, 50));
    })(),
    'a webhook registration of the run',
    RUN_MS,
  );
  proxy.close();
  for (const socket of sockets) socket.destroy();
  const run = await running;
  const failed = `exit ${run.exit.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  expect(run.exit.code, failed).toBe(2);

  const left = await registrations();
  expect(left.length, failed).toBeGreaterThan(0);
  const last = run.stderr.trim().split('\n').at(-1)!;
  expect(last, failed).toMatch(
    new RegExp(
      `^conformance: target unreachable: ${literal(proxied)}/\\S+ and the 4 requests before it got no answer \\(last: connection refused: .*\\); the run stops; (a record it made could not be deleted; to delete it|\\d+ records it made could not be deleted; to delete them), send \\(with the run's API key unless marked\\): DELETE ${literal(proxied)}/webhook/wbhk_`,
    ),
  );
  // The line names registrations left, and nothing else, each as the request that deletes it. A
  // create the server took whose answer the cut lost is left too, but no run can know its id.
  const named = [...last.matchAll(/DELETE (\S+)\/webhook\/(\w+)/g)].map((m) => m[2]!);
  expect(named.length, failed).toBeGreaterThan(0);
  for (const id of named) expect(left, failed).toContain(id);

  // The reports: what the run had found, and why it stopped.
  // The reports' own directory was missing: the first made it, and said so.
  expect(run.stdout, failed).toBe(`JUnit report: ${files.junit} (made the directory ${out})\nHTML report: ${files.html}\nHAR report: ${files.har}\n`);
  const root = parseXml(readFileSync(files.junit, 'utf8'));
  expect(root.attrs.errors).toBe('1');
  expect(root.children[0]?.attrs.name).toBe('run');
  expect(root.children[0]?.children[0]?.children[0]?.attrs.message).toBe(
    `the run stopped before its end: target unreachable: ${last.replace(/^conformance: target unreachable: /, '')}`,
  );
  expect(root.children.slice(1).map((suite) => suite.attrs.name)).toEqual(listOperations().map((op) => op.operationId));
  const page = readFileSync(files.html, 'utf8');
  expect(page).toContain('<strong>The run stopped before its end</strong>: target unreachable: ');
  expect(page).toContain('<strong>Records the run made and could not delete</strong>');
  const { log } = JSON.parse(readFileSync(files.har, 'utf8')) as Har;
  expect(log.comment).toContain('; the run stopped before its end: target unreachable: ');
  expect(log.entries.length).toBeGreaterThan(5);
  expect(log.entries.at(-1)?.response.status).toBe(0);

  // The requests it gave delete them, sent straight to the server.
  for (const id of named) expect((await fetch(`${direct}/webhook/${id}`, { method: 'DELETE', headers: { 'X-API-KEY': apiKey } })).status).toBe(204);
  expect(await registrations()).toEqual([]);
});

test('a target that breaks: exit 1, each failure with its request and response, the echoed key masked', { timeout: RUN_MS + 10_000 }, async () => {
  const apiKey = 'sk_brokenbrokenbrokenbroken_EchoedBackEchoedBackEchoedBack1234';
  // Answers every read 500 and echoes the key it was sent, as a careless service might; its creates
  // refuse what they are sent (422), so it is serving, and the preflight lets the run go on.
  const target = createHttpServer((request, response) => {
    if (request.method === 'POST') {
      response.writeHead(422, { 'content-type': 'application/problem+json' });
      response.end('{"status":422,"detail":"name is required"}');
      return;
    }
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end(`boom for key ${String(request.headers['x-api-key'])}`);
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = target.address() as { port: number };
    const run = await conformance(['--base-url', `http://127.0.0.1:${port}`, '--api-key', apiKey, '--stateless', '--only', 'getCharge,listClients']);
    const failed = `exit ${run.exit.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.exit.code, failed).toBe(1);
    expect(run.stdout).toMatch(/^listClients\s+✗/m);
    expect(run.stdout).toMatch(/Checks: \d+ passed, [1-9]\d* failed/);
    // The same 500 on both operations is one entry naming both, with a curl line for each request.
    expect(run.stdout).toMatch(
      /Failures \(\d+ checks; \d+ findings, \d+ distinct\)\n\n✗ not_a_server_error × \d+ on 2 operations \(getCharge ×\d+, listClients ×\d+\)\n {2}GET \/\S+ → 500: a server error\n/,
    );
    expect(run.stdout).toMatch(
      new RegExp(`→ GET http://127\\.0\\.0\\.1:${port}/client\\n {6}Accept: [^\\n]+\\n {6}X-API-KEY: sk_bro…\\*{4}\\n {4}← 500 \\(\\d+ ms\\)\\n`),
    );
    const curl = `curl -sS -i -g -X GET http://127.0.0.1:${port}/client -H 'Accept: application/json, application/problem+json' -H "X-API-KEY: $PIX_API_KEY"`;
    expect(run.stdout.split('\n').map((l) => l.trim())).toContain(curl);
    // Pasted into a shell with the key in $PIX_API_KEY, it sends the same request: the target echoes the key.
    if (hasCurl) {
      const { stdout } = await promisify(execFile)('bash', ['-c', curl], { env: { PATH: process.env.PATH, PIX_API_KEY: apiKey } });
      expect(stdout).toMatch(/^HTTP\/1\.1 500 /);
      expect(stdout).toContain(`boom for key ${apiKey}`);
    }
    expect(run.stdout).toContain('boom for key sk_bro…****');
    expect(run.stdout + run.stderr).not.toContain(apiKey);
  } finally {
    await new Promise((resolve) => target.close(resolve));
  }
});

describe('exit code 2', () => {
  /**
   * A wrong target, as QA meets one: the run stops before any check with one line naming the
   * cause. Each run is given the longest per-request timeout (120 s), so a stop within 30 s shows
   * it was the preflight's own few seconds that ended it, not a request timing out.
   */
  const wrongTargets: Array<[string, { target: () => Promise<{ url: string; close?: () => Promise<void> }>; want: (url: string) => RegExp }]> = [
    [
      'a port nothing listens on: connection refused',
      {
        target: async () => ({ url: `http://127.0.0.1:${await freePort()}` }),
        want: (url) =>
          new RegExp(
            `^conformance: target unreachable: ${literal(url)} does not answer: connection refused: nothing listens on 127\\.0\\.0\\.1:\\d+ \\(is the service up, the port right\\?\\)$`,
          ),
      },
    ],
    [
      'a name that does not resolve (.invalid): no such host',
      {
        target: async () => ({ url: 'http://pix-conformance-preflight.invalid' }),
        // ENOTFOUND where a resolver answers; EAI_AGAIN on a machine without one.
        want: (url) =>
          new RegExp(
            `^conformance: target unreachable: ${literal(url)} does not answer: (no such host: pix-conformance-preflight\\.invalid does not resolve \\(DNS: ENOTFOUND\\); is the name right\\?|DNS lookup failed for pix-conformance-preflight\\.invalid: EAI_AGAIN \\(is the network or the resolver up\\?\\))$`,
          ),
      },
    ],
    [
      'a host that accepts the connection and never answers: timed out',
      {
        target: async () => {
          const sockets = new Set<Socket>();
          const silent = createNetServer((socket) => sockets.add(socket));
          await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
          const { port } = silent.address() as { port: number };
          const close = () =>
            new Promise<void>((resolve) => {
              for (const socket of sockets) socket.destroy();
              silent.close(() => resolve());
            });
          return { url: `http://127.0.0.1:${port}`, close };
        },
        want: (url) => new RegExp(`^conformance: target unreachable: ${literal(url)} does not answer: timed out: no answer within 5 s$`),
      },
    ],
  ];
  test.each(wrongTargets)('%s: one line, no report, within seconds', async (name, { target, want }) => {
    const { url, close } = await target();
    try {
      const junit = join(folder(), `unreachable-${name.length}.xml`);
      const run = await conformance(['--base-url', url, '--api-key', 'sk_whatever_key', '--timeout-ms', '120000', '--junit', junit]);
      expect(run.exit.code, run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(want(url))]);
      expect(run.stdout).toBe('');
      expect(existsSync(junit)).toBe(false);
      expect(run.ms, 'stopped by the preflight, not by a 120 s request timeout').toBeLessThan(30_000);
    } finally {
      await close?.();
    }
  });

  test('a deployment that answers 500 to everything (its database down): not serving, one line, no report', async () => {
    // Every answer a 500 with a JSON body, as a service whose database is down gives it.
    const target = createHttpServer((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"error":"database unavailable"}');
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = target.address() as { port: number };
      const html = join(folder(), 'not-serving', 'report.html');
      const run = await conformance(['--base-url', `http://127.0.0.1:${port}`, '--html', html], RUN_MS, { CONFORMANCE_API_KEY: 'sk_whatever_key' });
      expect(run.exit.code, run.stderr).toBe(2);
      const body = literal('(body: {"error":"database unavailable"})');
      expect(run.stderr.trim().split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^conformance: the target is not serving: GET /client with the key answered 500 ${body}, and POST /client sent \\{\\} answered 500 ${body}\\. Nothing can be judged while it answers server errors \\(is its database, or a service it needs, down\\?\\); the run stops before any check\\.$`,
          ),
        ),
      ]);
      expect(run.stdout).toBe('');
      expect(existsSync(html)).toBe(false);
    } finally {
      await new Promise((resolve) => target.close(resolve));
    }
  });

  test('a wrong base path, on the reference server: nothing answers like this API there', { timeout: 60_000 }, async () => {
    const port = await freePort();
    const server = startBuiltServer({ DATABASE_PATH: join(folder(), 'base-path', 'payments.db'), PORT: String(port) });
    await listening(server);
    const apiKey = printedKey(server);
    const base = `http://127.0.0.1:${port}`;
    const cases: Array<[string[], RegExp]> = [
      [
        ['--base-url', `${base}/v9`],
        new RegExp(
          `^conformance: nothing answers like this API at ${literal(base)}/v9: is the base path right\\? GET /client with the key answered 404 \\(no such operation there: not an answer the contract has for it\\)\\.$`,
        ),
      ],
      [
        ['--base-url', base, '--base-url-alt', `${base}/alt`],
        new RegExp(
          `^conformance: nothing answers like this API at ${literal(base)}/alt: is the base path right\\? Its creates, each sent \\{\\}, answered POST /client → 404, `,
        ),
      ],
    ];
    for (const [args, want] of cases) {
      const run = await conformance([...args, '--run-id', 'basepath'], RUN_MS, { CONFORMANCE_API_KEY: apiKey });
      expect(run.exit.code, `${args.join(' ')}\n${run.stderr}`).toBe(2);
      expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(want)]);
      expect(run.stdout).toBe('');
    }
    // Nothing was created: the creates sent to find {base_url_alt} carried empty bodies, and the checks never started.
    const clients = (await (await fetch(`${base}/client`, { headers: { 'X-API-KEY': apiKey } })).json()) as unknown[];
    expect(clients).toEqual([]);
  });

  const cases: Array<[string, { given: string[]; want: RegExp; usage: boolean }]> = [
    ['no options at all', { given: [], want: /^conformance: a base URL is required: --base-url URL or CONFORMANCE_BASE_URL$/, usage: true }],
    [
      'an unknown profile',
      {
        given: ['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--profile', 'strict'],
        want: /^conformance: --profile must be seed, reference or own, got "strict"$/,
        usage: true,
      },
    ],
    [
      'a report that cannot be written',
      {
        given: ['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--html', 'package.json/report.html'],
        want: /^conformance: cannot write --html package\.json\/report\.html: package\.json is a file, not a directory$/,
        usage: false,
      },
    ],
    [
      'a HAR file that cannot be written',
      {
        given: ['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--har', 'package.json/run.har'],
        want: /^conformance: cannot write --har package\.json\/run\.har: package\.json is a file, not a directory$/,
        usage: false,
      },
    ],
    [
      'a report in a directory whose parent is missing too: refused, nothing made',
      {
        given: ['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--html', 'no-such-folder/deeper/report.html'],
        want: /^conformance: cannot write --html no-such-folder\/deeper\/report\.html: the directory no-such-folder\/deeper does not exist, nor does no-such-folder \(only the report's own directory is made; create the others first\)$/,
        usage: false,
      },
    ],
    [
      'a report path that is a directory',
      {
        given: ['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--junit', 'conformance'],
        want: /^conformance: cannot write --junit conformance: conformance is a directory; give a file name in it$/,
        usage: false,
      },
    ],
    [
      'an unknown operation',
      {
        given: ['--base-url', 'http://127.0.0.1:9', '--api-key', 'k', '--only', 'nope'],
        want: /^conformance: --only: unknown operationId "nope"; valid: createPaymentLink, /,
        usage: true,
      },
    ],
  ];
  test.each(cases)('bad arguments: %s → the message (then the usage) on stderr', async (_name, { given, want, usage }) => {
    const run = await conformance(given);
    expect(run.exit.code).toBe(2);
    const [first, ...rest] = run.stderr.split('\n');
    expect(first).toMatch(want);
    expect(rest.slice(0, 2)).toEqual(usage ? ['', 'Usage: pix-conformance --base-url URL [options]     (in a clone: npm run -s conformance -- …)'] : ['']);
    expect(run.stdout).toBe('');
    expect(existsSync(join(repoRoot, 'no-such-folder')), 'no directory made for a refused path').toBe(false);
  });
});

test('--help: the usage on stdout, exit 0', async () => {
  const run = await conformance(['--help']);
  expect(run.exit.code).toBe(0);
  expect(run.stdout).toMatch(/^Usage: pix-conformance --base-url URL/);
  expect(run.stdout).toContain(
    "Exit codes: 0 nothing failed; 1 a check failed; 2 bad arguments, a wrong target (no answer, a\nwrong base path, a refused key, no state kept without --stateless) or a flag's checks not run.",
  );
});

/**
 * The suite as a QA engineer meets a live service: the compiled reference server in production
 * mode (D40 refuses webhooks at loopback and private addresses there), run through the
 * commands the README documents, the keys in the environment only.
 */
// long-running: about 70 s (the compiled server in production mode, the conformance command through npm); test/support/sequencer.ts starts it early
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { components } from '../generated/openapi.js';
import { unknownApiKey, malformedApiKey } from './checks/auth.js';
import {
  freePort,
  listening,
  type ChildVars,
  createCompanyKey,
  repoRoot,
  startBuiltServer,
  useChildProcesses,
  type Running,
} from '../server/test-support/processes.js';
import { waitFor } from '../server/test-support/webhook-receiver.js';
import { matrixCell, runToEnd, RUN_MS } from './test-support/cli-process.js';
import { startTlsTunnel, tunnelHostName } from '../server/test-support/tls-tunnel.js';

const folder = useChildProcesses('conformance-production-test-');

/**
 * The compiled server in production mode on an empty database, and a key made for it with the
 * keys command (production makes no company of its own). Each test
 * starts its own: every child is killed after each test.
 */
async function startProduction(name: string, vars: ChildVars = {}): Promise<{ server: Running; base: string; apiKey: string; databasePath: string }> {
  const databasePath = join(folder(), name, 'payments.db');
  const port = await freePort();
  // Retries close together, so refused deliveries are retried during the run.
  const server = startBuiltServer({
    NODE_ENV: 'production',
    DATABASE_PATH: databasePath,
    PORT: String(port),
    WEBHOOK_RETRY_SCHEDULE: '0.2,0.2,0.2',
    WEBHOOK_POLL_MS: '50',
    ...vars,
  });
  await listening(server);
  const { apiKey } = await createCompanyKey({ DATABASE_PATH: databasePath }, 'A');
  return { server, base: `http://127.0.0.1:${port}`, apiKey, databasePath };
}

test('profile reference with --production and --flood, as the README runs it in CI (npm run -s, keys in the environment): 0 failures, webhooks at .invalid deleted when it ends, their failed deliveries harmless, no key in any output', {
  timeout: RUN_MS + 30_000,
}, async () => {
  const { server, base, apiKey, databasePath } = await startProduction('run');
  const { apiKey: secondApiKey } = await createCompanyKey({ DATABASE_PATH: databasePath }, 'B');
  const run = await runToEnd(
    'npm',
    ['run', '-s', 'conformance', '--', '--base-url', base, '--profile', 'reference', '--run-id', 'prodrun', '--production', '--flood'],
    {
      CONFORMANCE_API_KEY: apiKey,
      CONFORMANCE_SECOND_API_KEY: secondApiKey,
    },
  );
  const failed = `exit ${run.exit.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  expect(run.exit.code, failed).toBe(0);
  expect(run.stdout, failed).toMatch(/Checks: \d+ passed, 0 failed, 0 info, \d+ skipped/);
  expect(run.stdout).toMatch(/^createWebhook(\s+[✓·])+$/m);
  // The two checks a run asks for ran, and passed: internal webhook URLs refused, a wrong-key flood limited.
  expect(run.stdout, failed).not.toMatch(/pass --production|pass --flood/);
  for (const output of [run.stdout, run.stderr]) {
    expect(output).not.toContain(apiKey);
    expect(output).not.toContain(secondApiKey);
  }

  // The run may have spent this second's quota of the key (D11): asked again once it says to, as a client would.
  let listed = await fetch(`${base}/webhook`, { headers: { 'X-API-KEY': apiKey } });
  if (listed.status === 429) {
    await listed.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, Number(listed.headers.get('retry-after') ?? '1') * 1000));
    listed = await fetch(`${base}/webhook`, { headers: { 'X-API-KEY': apiKey } });
  }
  expect(listed.status).toBe(200);
  const data = (await listed.json()) as Array<components['schemas']['Webhook']>;
  // The run deleted the registrations it made (at .invalid): nothing of it is retried for hours.
  expect(data, JSON.stringify(data)).toEqual([]);

  // While they were there, their deliveries were tried and failed (the name never resolves), and nothing broke.
  await waitFor('a failed delivery attempt in the log', () => server.stdout().includes('webhook attempt failed'));
  expect((await fetch(`${base}/client`, { headers: { 'X-API-KEY': apiKey } })).status).toBe(200);
  const logged = server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; status?: number });
  expect(logged.filter((line) => line.level >= 50)).toEqual([]);
  expect(logged.filter((line) => (line.status ?? 0) >= 500)).toEqual([]);
});

/**
 * The webhook checks where a QA engineer meets them: a production deployment reaches the run's
 * receiver only through an https name with public addresses (D40; this machine's own are
 * allowed by WEBHOOK_ALLOWED_NETWORKS here), so the run gets `--webhook-receiver` for where it
 * listens and `--webhook-url` for the tunnel's address, as the README shows.
 */
describe('profile reference with --webhook-receiver behind an https tunnel', async () => {
  const named = await tunnelHostName();
  if ('reason' in named) console.warn(`NOTICE: ${named.reason}; the production webhook run is skipped.`);
  test.skipIf('reason' in named)('the webhook checks pass against the production deployment, 0 failures', { timeout: RUN_MS + 30_000 }, async (context) => {
    const receiverPort = await freePort();
    const tunnel = await startTlsTunnel((named as { host: string }).host, receiverPort, folder());
    if ('reason' in tunnel) {
      console.warn(`NOTICE: ${tunnel.reason}; the production webhook run is skipped.`);
      return context.skip(tunnel.reason);
    }
    try {
      // The host name resolves to this machine, which no production deployment sends to unless its operator allows it (D40).
      const { base, apiKey } = await startProduction('webhooks', {
        NODE_EXTRA_CA_CERTS: tunnel.certificatePath,
        WEBHOOK_ALLOWED_NETWORKS: (named as { addresses: string[] }).addresses.join(','),
      });
      const webhookUrl = `${tunnel.origin}/hooks/conformance`;
      const run = await runToEnd(
        'npm',
        [
          'run',
          '-s',
          'conformance',
          '--',
          '--base-url',
          base,
          '--profile',
          'reference',
          '--run-id',
          'prodhooks',
          '--webhook-receiver',
          `127.0.0.1:${receiverPort}`,
          '--webhook-url',
          webhookUrl,
        ],
        { CONFORMANCE_API_KEY: apiKey },
      );
      const failed = `exit ${run.exit.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
      expect(run.exit.code, failed).toBe(0);
      expect(run.stdout, failed).toMatch(/Checks: \d+ passed, 0 failed, 0 info, \d+ skipped/);
      for (const column of ['wsg', 'wsc', 'wdl']) expect(matrixCell(run.stdout, 'createWebhook', column), `${column}\n${failed}`).toBe('✓');
      expect(run.stdout + run.stderr).not.toContain(apiKey);
    } finally {
      await tunnel.close();
    }
  });
});

/**
 * The receiver's own address (http, loopback) given to a production deployment without a tunnel:
 * D40 refuses the registration, so no webhook check can run. That must not be a quiet skip with
 * exit 0 (a CI job would believe webhooks were checked): the last line says why and what to do.
 */
test('--webhook-receiver without a tunnel: the webhook checks are not run, the last line says to use --webhook-url, exit 2', {
  timeout: RUN_MS + 30_000,
}, async () => {
  const { base, apiKey } = await startProduction('receiver-refused');
  const receiverPort = await freePort();
  const run = await runToEnd(
    'npm',
    [
      'run',
      '-s',
      'conformance',
      '--',
      '--base-url',
      base,
      '--run-id',
      'prodrefused',
      '--only',
      'createWebhook',
      '--webhook-receiver',
      `127.0.0.1:${receiverPort}`,
    ],
    { CONFORMANCE_API_KEY: apiKey },
  );
  const failed = `exit ${run.exit.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
  expect(run.exit.code, failed).toBe(2);
  expect(run.stdout, failed).toMatch(/Checks: \d+ passed, 0 failed, /);
  for (const column of ['wsg', 'wsc', 'wdl']) expect(matrixCell(run.stdout, 'createWebhook', column), `${column}\n${failed}`).toBe('–');
  const last = run.stderr.trim().split('\n').at(-1) ?? '';
  expect(last, failed).toContain(
    `conformance: --webhook-receiver was given, but webhook_signature, webhook_schema, webhook_delivery did not run: the target refused to register the receiver at http://127.0.0.1:${receiverPort}/prodrefused (422: `,
  );
  expect(last, failed).toMatch(
    /\): a production deployment sends webhooks only to https at a public name \(D40\); put a tunnel or a TLS-terminating proxy in front of the receiver and give its https address as --webhook-url$/,
  );
  expect(run.stdout + run.stderr).not.toContain(apiKey);
});

// The time a refused key takes (about 1.2–1.8 s here, the issue asks under 3 s) is measured, not asserted:
// a timed test flakes on a loaded machine. What is asserted is that nothing else ran: one line, no matrix.
describe('a refused key ends the run: exit 2, one line on stderr, no suite run', () => {
  const line = (what: string, flag: string) => `conformance: the target refused ${what} (401 on GET /client); check ${flag}.`;
  const cases: Array<[string, (apiKey: string) => string[], string]> = [
    ['a well-formed key no one issued', () => ['--api-key', unknownApiKey()], line('the API key', '--api-key / CONFORMANCE_API_KEY')],
    ['garbage', () => ['--api-key', malformedApiKey], line('the API key', '--api-key / CONFORMANCE_API_KEY')],
    [
      'a good key and a garbage second key',
      (apiKey) => ['--api-key', apiKey, '--second-api-key', malformedApiKey],
      line('the second API key', '--second-api-key / CONFORMANCE_SECOND_API_KEY'),
    ],
  ];
  test.each(cases)('%s', async (name, keys, want) => {
    const { base, apiKey } = await startProduction(name.replace(/\W+/g, '-'));
    // The package's command itself (bin/pix-conformance.mjs: conformance/cli.ts under tsx, in one process).
    const run = await runToEnd(join(repoRoot, 'bin', 'pix-conformance.mjs'), ['--base-url', base, '--profile', 'reference', ...keys(apiKey)]);
    expect(run.exit.code, run.stderr).toBe(2);
    expect(run.stderr.split('\n')).toEqual([want, '']);
    expect(run.stdout).toBe('');
    console.info(`refused key (${name}): exit 2 after ${Math.round(run.ms)} ms`);
  });
});

test('the package bin entry is a runnable command in a clone too: npx pix-conformance', async () => {
  const { base } = await startProduction('bin');
  const conformanceHelp = await runToEnd('npx', ['--no-install', 'pix-conformance', '--help']);
  expect(conformanceHelp.exit.code, conformanceHelp.stderr).toBe(0);
  expect(conformanceHelp.stdout).toMatch(/^Usage: pix-conformance --base-url URL/);
  const refused = await runToEnd('npx', ['--no-install', 'pix-conformance', '--base-url', base], { CONFORMANCE_API_KEY: malformedApiKey });
  expect(refused.exit.code, refused.stderr).toBe(2);
  // Given through the environment, as the usage asks: the message names the variable too, not only a flag that was not used.
  expect(refused.stderr).toContain('conformance: the target refused the API key (401 on GET /client); check --api-key / CONFORMANCE_API_KEY.\n');
});

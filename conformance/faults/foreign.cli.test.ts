/**
 * The way a QA engineer meets a foreign service: `npm run conformance` (the CLI, its own process)
 * with the default `seed` profile, over HTTP, against a server process behind a proxy that gives
 * every answer the foreign deployment's seed-legal shapes (foreign.ts). The run must pass.
 *
 * @full-run-only: it enumerates the contract's operations, but `npm run test:operation` leaves it to `npm test`: the command against deliberately broken deployments, in processes of its own; the loop judges the operation's checks in process.
 */
// long-running: about 30 s (the conformance command against a server process behind a proxy); test/support/sequencer.ts starts it early
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import {
  createCompanyKey,
  freePort,
  listening,
  printedKey,
  repoRoot,
  tsx,
  useChildProcesses,
  within,
  startBuiltServer,
} from '../../server/test-support/processes.js';
import { matrixCell } from '../test-support/cli-process.js';
import { foreignDeployment } from './foreign.js';
import { listOperations } from '../../lib/contract/bundled.js';
import { infoLineCap } from '../report/failures.js';

const folder = useChildProcesses('conformance-foreign-test-');
const RUN_MS = 60_000;

/** Serves `handle` on a free port of 127.0.0.1, as a real service would be reached. */
async function serve(handle: (request: Request) => Promise<Response>): Promise<{ url: string; close: () => Promise<void> }> {
  const hopByHop = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);
  const server = createServer((incoming: IncomingMessage, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) if (!hopByHop.has(name) && typeof value === 'string') headers.set(name, value);
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      handle(new Request(`http://proxy.invalid${incoming.url ?? '/'}`, { method: incoming.method ?? 'GET', headers, ...(body ? { body } : {}) }))
        .then(async (response) => {
          const out: Record<string, string> = {};
          response.headers.forEach((value, name) => {
            if (!hopByHop.has(name) && name !== 'content-encoding') out[name] = value;
          });
          outgoing.writeHead(response.status, out);
          outgoing.end(Buffer.from(await response.arrayBuffer()));
        })
        .catch((error: unknown) => {
          outgoing.writeHead(502, { 'content-type': 'text/plain' });
          outgoing.end(String(error));
        });
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The CLI to its end, with the parent's environment minus vitest's own (the CLI starts a vitest of its own). */
async function conformanceCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^(VITEST|CONFORMANCE_)/.test(name) && name !== 'NODE_ENV' && name !== 'TEST') env[name] = value;
  const child = spawn(tsx, ['conformance/cli.ts', ...args], {
    cwd: repoRoot,
    env: { ...env, NO_COLOR: '1' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  try {
    return { code: await within(exited, 'the conformance CLI', RUN_MS), stdout, stderr };
  } catch (error) {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    throw new Error(`${(error as Error).message}\nstdout:\n${stdout}\nstderr:\n${stderr}`);
  }
}

test('the CLI in the seed profile passes a service answering seed-legal shapes that differ from every decision (UUID ids, extra fields, punctuated tax numbers, ...)', {
  timeout: RUN_MS + 30_000,
}, async () => {
  const databasePath = join(folder(), 'foreign', 'payments.db');
  const port = await freePort();
  const server = startBuiltServer({ DATABASE_PATH: databasePath, PORT: String(port) });
  await listening(server);
  const apiKey = printedKey(server);
  const { apiKey: secondApiKey } = await createCompanyKey({ DATABASE_PATH: databasePath }, 'B');

  const origin = `http://127.0.0.1:${port}`;
  const foreign = foreignDeployment.wrap(async (request) => {
    const url = new URL(request.url);
    const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
    return fetch(`${origin}${url.pathname}${url.search}`, { method: request.method, headers: request.headers, ...(body ? { body } : {}), redirect: 'manual' });
  });
  const proxy = await serve(foreign);
  try {
    const run = await conformanceCli(['--base-url', proxy.url, '--api-key', apiKey, '--second-api-key', secondApiKey, '--run-id', 'foreigncli']);
    const output = `exit ${run.code}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
    expect(run.stdout, output).toContain('Profile seed');
    expect(run.stdout, output).toMatch(/Checks: \d+ passed, 0 failed, [1-9]\d* info, \d+ skipped/);
    expect(run.code, output).toBe(0);
    // The departures are reported as info, each naming its decision.
    expect(run.stdout, output).toMatch(/^i createPaymentLink › .*\(departs from D01\)$/m);
    // The update names the subscription by the id this service gave it (not the contract's `subs_` form): sent and accepted.
    expect(matrixCell(run.stdout, 'updateSubscription', 'pos'), output).toBe('✓');
    // The paging parameters (D48) broken one at a time: refused, as the service behind the proxy does.
    expect(matrixCell(run.stdout, 'listClients', 'neg'), output).toBe('✓');
    // Grouped: the same departure on every invalid request is one line with its count (947 findings
    // were 38 lines when this was written), so every group is shown, none left to the HTML page.
    const [, findings, distinct] =
      /^Departures from the contract's decisions, not failures under profile seed \((\d+) findings, (\d+) distinct\)$/m.exec(run.stdout) ?? [];
    expect(Number(findings), output).toBeGreaterThan(500);
    expect(Number(distinct), output).toBeLessThanOrEqual(infoLineCap(listOperations().length));
    expect(run.stdout, output).not.toContain('more in the HTML or JUnit report');
    expect(run.stdout, output).toMatch(/^i content_type_conformance × \d+ on \d+ operations \(createPaymentLink ×\d+, .*\): POST \/\S+ → 400: /m);
  } finally {
    await proxy.close();
  }
});

/**
 * The docs' samples, run the way a reader runs them: the page as the reference server serves it
 * (`/docs/` of the compiled server, started as `npm start` starts it on an empty database, so
 * with a fresh company and nothing else), its samples taken from the page in the page's order
 * (scripts/docs/page-order.ts), pasted into one bash after another with only what the page asks a
 * reader to export (the addresses and the printed key): no record made by the test, every id
 * the one an earlier sample made. Every sample must answer the status the page documents for
 * success, twice in a row (the second run finds the first run's records and must still work:
 * fresh idempotency keys, the webhook registration deleted last). Then the TypeScript samples
 * run the same way, one after another in one `tsx` (test/support/run-samples.ts), each given the
 * ids the earlier ones printed.
 *
 * And the page's links to the contract it renders (openapi.yaml, openapi.json) are followed from
 * the served page: both are the bundled contract.
 *
 * Skipped with a NOTICE where bash, curl or jq is missing.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { bundledContractPath, type JsonObject, listOperations, loadBundledContract } from '../../lib/contract/bundled.js';
import { addressVariable, apiKeyVariable, idVariables, newKeyCommand } from '../../scripts/docs/code-samples.js';
import { type PageOperation, pageDefinition, pageOperations } from '../../scripts/docs/page-order.js';
import { freePort, killAll, listening, printedKey, repoRoot, startBuiltServer, tsx } from '../../server/test-support/processes.js';
import { runBashFromNode, runBashOnTerminal } from '../support/bash.js';
import { runMark, type SampleRun } from '../support/run-samples.js';

// `script` (util-linux) gives the samples a terminal, as a reader's.
const missing = ['bash', 'curl', 'jq', 'script'].filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);
if (missing.length > 0)
  console.warn(
    `NOTICE: ${missing.join(', ')} not installed: the docs' samples are not run (apt-get install ${missing.map((t) => (t === 'script' ? 'util-linux' : t)).join(' ')}).`,
  );

const contract = loadBundledContract();
let folder = '';
let base = '';
let apiKey = '';
let html = '';
let page: PageOperation[] = [];

/** A GET on a connection of its own (the server may have closed an idle one the test's fetch would reuse). */
function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string; text: string }> {
  return new Promise((resolve, reject) => {
    request(new URL(path, base), { agent: false, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']), text }));
    })
      .on('error', reject)
      .end();
  });
}

/** The company's webhook registrations. */
const registrations = async () => JSON.parse((await get('/webhook', { 'X-API-KEY': apiKey })).text) as unknown[];

/** What the page asks a reader to export, and nothing else of this process's environment. */
const readerEnv = (): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  [apiKeyVariable]: apiKey,
  [addressVariable('base_url')]: base,
  [addressVariable('base_url_alt')]: base,
});

/** The 2xx the page documents for an operation. */
function documentedStatus(op: PageOperation): number {
  const spec = pageDefinition(html);
  const operation = ((spec.paths as Record<string, JsonObject>)[op.path]?.[op.method] ?? {}) as JsonObject;
  return Number(Object.keys((operation.responses ?? {}) as JsonObject).find((status) => /^2\d\d$/.test(status)));
}

/** A line printed before each sample, so that each one's output on the screen can be told apart. */
const mark = (operationId: string) => `@@ sample ${operationId} @@`;

/** Each sample's output on the screen, by operationId. */
function perSample(output: string): Map<string, string> {
  const parts = new Map<string, string>();
  const pieces = output.split(/^@@ sample (\w+) @@$/m);
  for (let i = 1; i < pieces.length; i += 2) parts.set(pieces[i]!, pieces[i + 1] ?? '');
  return parts;
}

/** The status of the last answer a sample printed (curl's -i or -D: `HTTP/1.1 201 Created`). */
const lastStatus = (output: string) => Number([...output.matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)].at(-1)?.[1]);

/** The curl samples of the page, in its order, as one script a reader pastes piece by piece. */
const curlScript = () =>
  page
    .map((op) => {
      const source = op.samples.find((s) => s.label === 'curl')?.source ?? '';
      // Right after the sample before it: a sample whose output does not end its line would glue the
      // mark to it (as it glues the next sample's status line on a reader's screen), and the mark would be lost.
      return `printf '%s\\n' '${mark(op.operationId)}'\n${source}`;
    })
    .join('\n');

describe.skipIf(missing.length > 0)('the docs page served by the reference server', () => {
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'pix-docs-story-'));
    const port = await freePort();
    const server = startBuiltServer({ DATABASE_PATH: join(folder, 'payments.db'), PORT: String(port) });
    await listening(server);
    apiKey = printedKey(server);
    base = `http://localhost:${port}`;
    const docs = await get('/docs/');
    expect(docs.status).toBe(200);
    html = docs.text;
    page = pageOperations(pageDefinition(html));
  }, 120_000);

  afterAll(async () => {
    await killAll();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  test('has a curl and a TypeScript sample for every operation of the contract', () => {
    expect(page.map((op) => op.operationId).sort()).toEqual(
      listOperations(contract)
        .map((op) => op.operationId)
        .sort(),
    );
    for (const op of page) expect(op.samples.map((s) => s.label)).toEqual(['curl', 'TypeScript']);
  });

  test('its order is a story: every id a sample reads, an earlier sample sets; the registration is deleted last', () => {
    const ids = idVariables(contract).map((id) => id.variable);
    const set = new Set<string>();
    for (const op of page) {
      const source = op.samples[0]!.source;
      const own = [...source.matchAll(/^([A-Z][A-Z0-9_]*)=\$\(/gm)].map((m) => m[1]!);
      const read = [...source.matchAll(/\$([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!).filter((name) => ids.includes(name) && !own.includes(name));
      expect(
        read.filter((name) => !set.has(name)),
        `${op.operationId} reads an id no earlier sample set`,
      ).toEqual([]);
      for (const [, name] of source.matchAll(/^([A-Z][A-Z0-9_]*)=\$\(/gm)) set.add(name!);
    }
    expect(set.size).toBeGreaterThanOrEqual(6);
    // Deletions last: the registration's delete, then the reset of the company (x-resets-company), which ends the story.
    const resetting = new Set(
      listOperations(contract)
        .filter((op) => op.operation['x-resets-company'] === true)
        .map((op) => op.operationId),
    );
    const resets = page.filter((op) => resetting.has(op.operationId));
    const deletions = [...page.filter((op) => op.method === 'delete'), ...resets].map((op) => page.indexOf(op));
    expect(deletions).toEqual(Array.from({ length: deletions.length }, (_, i) => page.length - deletions.length + i));
    expect(deletions.length).toBeGreaterThanOrEqual(1);
  });

  test('its curl samples run in its order, twice in a row (on a terminal, then from Node), for one fresh company, each answering its documented status', {
    timeout: 120_000,
  }, async () => {
    const runs: Array<Map<string, string>> = [];
    const file = join(folder, 'samples.sh');
    writeFileSync(file, curlScript());
    for (const run of [1, 2]) {
      // The first run on a terminal, as a reader's; the second as a Node program runs the
      // samples, whose stderr is a socket (issue 39: the samples must not open /dev/stderr).
      const options = { env: readerEnv(), timeoutMs: 60_000 };
      const { code, output } = run === 1 ? (await runBashOnTerminal(file, options))! : await runBashFromNode(file, options);
      const outputs = perSample(output);
      expect(code, `run ${run} stopped after ${[...outputs.keys()].at(-1)}:\n${output}`).toBe(0);
      expect([...outputs.keys()]).toEqual(page.map((op) => op.operationId));
      for (const op of page)
        expect(lastStatus(outputs.get(op.operationId)!), `run ${run}, ${op.operationId}:\n${outputs.get(op.operationId)}`).toBe(documentedStatus(op));
      runs.push(outputs);
    }
    // Each create sample printed the id it keeps, of its kind; the second run made new records.
    const kept = (outputs: Map<string, string>) =>
      Object.fromEntries([...[...outputs.values()].join('\n').matchAll(/^([A-Z][A-Z0-9_]*_ID)=(\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
    const [first, second] = runs.map(kept);
    for (const { variable, pattern } of idVariables(contract).filter(({ variable }) => variable in first!)) {
      expect(first![variable], variable).toMatch(pattern);
      expect(second![variable], `${variable}: the second run made a record of its own`).not.toBe(first![variable]);
    }
    // A fresh Idempotency-Key each run: the second payment link is a new charge, not a replay of the first.
    const payment = page.find((op) => op.samples[0]!.source.includes(newKeyCommand))!;
    expect(runs[1]!.get(payment.operationId)).not.toMatch(/^idempotent-replayed: true/im);
    // Nothing left behind that can be deleted.
    expect(await registrations()).toEqual([]);
  });

  test('its TypeScript samples run in its order with tsx, each given the ids the earlier ones printed', { timeout: 240_000 }, async () => {
    const project = join(folder, 'typescript');
    mkdirSync(project, { recursive: true });
    // A reader's project where `pix-payments-toolkit/client` resolves (here to the client's source, as tsx reads tsconfig paths).
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', paths: { 'pix-payments-toolkit/client': [join(repoRoot, 'client', 'index.ts')] } },
      }),
    );
    const files = page.map((op, index) => {
      const file = join(project, `${String(index).padStart(2, '0')}-${op.operationId}.mts`);
      writeFileSync(file, op.samples.find((s) => s.label === 'TypeScript')!.source);
      return file;
    });
    // One tsx for all of them (test/support/run-samples.ts), as one after another: each starts
    // with the variables the ones before it printed, and its output is its own.
    const ran = spawnSync(tsx, [join(repoRoot, 'test', 'support', 'run-samples.ts'), ...files], {
      cwd: project,
      env: readerEnv(),
      encoding: 'utf8',
      timeout: 180_000,
    });
    expect(ran.status, ran.stderr).toBe(0);
    const runs = ran.stdout
      .split('\n')
      .filter((line) => line.startsWith(runMark))
      .map((line) => JSON.parse(line.slice(runMark.length)) as SampleRun);
    for (const [index, op] of page.entries()) {
      const run = runs[index];
      expect(run?.file, `${op.operationId} did not run:\n${ran.stderr}`).toBe(files[index]);
      expect(run!.error, `${op.operationId} threw:\n${run!.error}\n${run!.stdout}`).toBeUndefined();
      expect(Number(/^(\d{3}) /.exec(run!.stdout)?.[1]), `${op.operationId}:\n${run!.stdout}`).toBe(documentedStatus(op));
    }
    expect(runs).toHaveLength(page.length);
    // The create samples printed the ids the samples after them read.
    expect(runs.some((run) => /^export [A-Z][A-Z0-9_]*_ID=\S+$/m.test(run.stdout))).toBe(true);
    expect(await registrations()).toEqual([]);
  });

  test('links the contract it renders, and its links serve the bundled contract', async () => {
    const links = [...html.matchAll(/<a href="([^"]+\.(yaml|json))"[^>]*\bdownload\b/g)].map((m) => m[1]!);
    expect(new Set(links)).toEqual(new Set(['openapi.yaml', 'openapi.json']));
    // Each href as the browser resolves it against the page's address.
    const [yaml, json] = await Promise.all(['openapi.yaml', 'openapi.json'].map((href) => get(new URL(href, `${base}/docs/`).pathname)));
    expect([yaml!.status, json!.status]).toEqual([200, 200]);
    expect(yaml!.type).toMatch(/yaml/);
    expect(yaml!.text).toBe(readFileSync(bundledContractPath, 'utf8'));
    expect(json!.type).toMatch(/json/);
    expect(JSON.parse(json!.text)).toEqual(contract);
  });
});

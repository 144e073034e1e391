/**
 * Drift between the source contract and what is generated from it:
 * generated/openapi.yaml must be exactly what `npm run bundle` writes, and
 * generated/openapi.d.ts exactly what `npm run generate` writes, and
 * generated/client-routes.ts exactly what `npm run generate:routes` writes. The commands
 * are read from package.json's scripts, so the check runs what the scripts run.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clientRoutesSource } from '../../scripts/client-routes.js';
import { type JsonObject, parseContract } from '../../lib/contract/bundled.js';
import { binDir, contractRoot, generatedBundlePath, generatedRoutesPath, generatedTypesPath, repoRoot } from './support.js';

const redocly = join(binDir, 'redocly');
const openapiTypescript = join(binDir, 'openapi-typescript');
const tsx = join(binDir, 'tsx');
const timeout = 120_000;

/** Arguments of an npm script that runs `tool` once, without shell syntax. */
function scriptArgs(script: string | undefined, tool: string): string[] {
  if (script === undefined) throw new Error('script missing from package.json');
  const words = script.trim().split(/\s+/);
  if (words[0] !== tool) throw new Error(`script does not start with ${tool}: ${script}`);
  const shell = words.find((w) => /[|&;<>$`'"\\]/.test(w));
  if (shell !== undefined) throw new Error(`script uses shell syntax (${shell}), which this test does not interpret: ${script}`);
  return words.slice(1);
}

/** `args` with the value of `--output` / `-o` replaced by `output`. */
function withOutput(args: readonly string[], output: string): string[] {
  const at = args.findIndex((a) => a === '--output' || a === '-o');
  if (at === -1 || at + 1 >= args.length) throw new Error(`no --output in ${args.join(' ')}`);
  return [...args.slice(0, at + 1), output, ...args.slice(at + 2)];
}

const packageJsonPath = existsSync(join(contractRoot, 'package.json')) ? join(contractRoot, 'package.json') : join(repoRoot, 'package.json');
const scripts = (JSON.parse(readFileSync(packageJsonPath, 'utf8')) as { scripts?: Record<string, string> }).scripts ?? {};

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a node_modules/.bin tool from the contract root; never rejects. */
function run(bin: string, args: string[], cwd = contractRoot): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      bin,
      args,
      {
        cwd,
        timeout,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) + (error && typeof error.code !== 'number' ? `\n${error.message}` : '') });
      },
    );
  });
}

/** Undefined when `actual` and `expected` are the same bytes, else where they first differ. */
function byteDrift(actual: Buffer, expected: Buffer): string | undefined {
  if (actual.equals(expected)) return undefined;
  const a = actual.toString('utf8').split('\n');
  const e = expected.toString('utf8').split('\n');
  const line = a.findIndex((text, i) => text !== e[i]);
  const at = line === -1 ? Math.min(a.length, e.length) : line;
  return `first difference at line ${at + 1}: fresh bundle has ${JSON.stringify(a[at] ?? '<end of file>')}, committed file has ${JSON.stringify(e[at] ?? '<end of file>')} (${actual.length} vs ${expected.length} bytes)`;
}

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'contract-drift-'));
});
afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('scriptArgs and withOutput (self-check)', () => {
  const cases: Array<[string, { given: { script: string | undefined; tool: string; output?: string }; want: string[] | RegExp }]> = [
    [
      'bundle script, output replaced',
      {
        given: { script: 'redocly bundle openapi/openapi.yaml --output generated/openapi.yaml', tool: 'redocly', output: '/tmp/x.yaml' },
        want: ['bundle', 'openapi/openapi.yaml', '--output', '/tmp/x.yaml'],
      },
    ],
    [
      'generate script with flags after the input',
      {
        given: {
          script: 'openapi-typescript generated/openapi.yaml --redocly scripts/r.yaml --default-non-nullable false --output generated/openapi.d.ts',
          tool: 'openapi-typescript',
        },
        want: ['generated/openapi.yaml', '--redocly', 'scripts/r.yaml', '--default-non-nullable', 'false', '--output', 'generated/openapi.d.ts'],
      },
    ],
    [
      '-o short flag',
      {
        given: { script: 'openapi-typescript in.yaml -o out.d.ts --alphabetize', tool: 'openapi-typescript', output: 'tmp.d.ts' },
        want: ['in.yaml', '-o', 'tmp.d.ts', '--alphabetize'],
      },
    ],
    ['another tool', { given: { script: 'npx redocly bundle a.yaml', tool: 'redocly' }, want: /does not start with redocly/ }],
    ['chained commands', { given: { script: 'redocly bundle a.yaml -o b.yaml && echo done', tool: 'redocly' }, want: /shell syntax/ }],
    ['no --output to replace', { given: { script: 'redocly bundle a.yaml', tool: 'redocly', output: 'x' }, want: /no --output/ }],
    ['missing script', { given: { script: undefined, tool: 'redocly' }, want: /script missing/ }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const derive = (): string[] => {
      const args = scriptArgs(given.script, given.tool);
      return given.output === undefined ? args : withOutput(args, given.output);
    };
    if (want instanceof RegExp) expect(derive).toThrow(want);
    else expect(derive()).toEqual(want);
  });
});

describe('byteDrift (self-check)', () => {
  const base = Buffer.from('openapi: 3.1.0\ninfo:\n  title: T\n');
  const cases: Array<[string, { given: Buffer; want: RegExp | undefined }]> = [
    ['identical bytes', { given: Buffer.from(base), want: undefined }],
    [
      'changed line',
      { given: Buffer.from('openapi: 3.1.0\ninfo:\n  title: U\n'), want: /line 3: fresh bundle has " {2}title: U", committed file has " {2}title: T"/ },
    ],
    ['extra line', { given: Buffer.from(`${base.toString()}paths: {}\n`), want: /line 4/ }],
    [
      'missing trailing newline',
      { given: base.subarray(0, base.length - 1), want: /line 4: fresh bundle has "<end of file>", committed file has "" \(31 vs 32 bytes\)/ },
    ],
    ['CRLF line endings', { given: Buffer.from(base.toString().replace(/\n/g, '\r\n')), want: /line 1/ }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => {
    const drift = byteDrift(given, base);
    if (want === undefined) expect(drift).toBeUndefined();
    else expect(drift).toMatch(want);
  });
});

describe('generated/ is up to date', () => {
  test(
    'generated/openapi.yaml is byte-identical to a fresh `npm run bundle` into a temporary file (else run `npm run bundle`)',
    async () => {
      expect(existsSync(generatedBundlePath), `${generatedBundlePath} is missing: run \`npm run bundle\``).toBe(true);
      const fresh = join(work, 'openapi.yaml');
      const result = await run(redocly, withOutput(scriptArgs(scripts.bundle, 'redocly'), fresh));
      expect(result.code, `redocly bundle failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
      const drift = byteDrift(readFileSync(fresh), readFileSync(generatedBundlePath));
      expect(drift, `generated/openapi.yaml is stale (${drift ?? ''}): run \`npm run bundle\``).toBeUndefined();
    },
    timeout,
  );

  test(
    'the drift check fails against a modified copy of the bundle',
    async () => {
      // The check compares bytes: the bundle as committed serves as well as a fresh one.
      const fresh = generatedBundlePath;
      const modified = join(work, 'modified.yaml');
      writeFileSync(modified, readFileSync(fresh, 'utf8').replace(/^openapi: .*$/m, 'openapi: 3.1.1'));
      expect(byteDrift(readFileSync(fresh), readFileSync(fresh))).toBeUndefined();
      expect(byteDrift(readFileSync(fresh), readFileSync(modified))).toMatch(/line 1/);
    },
    timeout,
  );

  test(
    'generated/openapi.d.ts passes `npm run generate` with --check (else run `npm run generate`)',
    async () => {
      expect(existsSync(generatedTypesPath), `${generatedTypesPath} is missing: run \`npm run generate\``).toBe(true);
      const result = await run(openapiTypescript, [...scriptArgs(scripts.generate, 'openapi-typescript'), '--check']);
      expect(result.code, `generated/openapi.d.ts is stale: run \`npm run generate\`\n${result.stdout}\n${result.stderr}`).toBe(0);
    },
    timeout,
  );

  test(
    'the --check fails against a modified copy of freshly generated types',
    async () => {
      const copy = join(work, 'openapi.d.ts');
      const args = scriptArgs(scripts.generate, 'openapi-typescript');
      const generated = await run(openapiTypescript, withOutput(args, copy));
      expect(generated.code, `openapi-typescript failed:\n${generated.stdout}\n${generated.stderr}`).toBe(0);
      // That an unmodified file passes --check is the test above's (on generated/openapi.d.ts itself).
      writeFileSync(copy, `${readFileSync(copy, 'utf8')}\nexport type Drift = true;\n`);
      const modified = await run(openapiTypescript, [...withOutput(args, copy), '--check']);
      expect(modified.code, 'a modified copy must fail --check').not.toBe(0);
      expect(`${modified.stdout}${modified.stderr}`).toMatch(/not up-to-date/);
    },
    timeout,
  );

  test(
    'generated/client-routes.ts is byte-identical to a fresh `npm run generate:routes` into a temporary file (else run `npm run generate:routes`)',
    async () => {
      expect(existsSync(generatedRoutesPath), `${generatedRoutesPath} is missing: run \`npm run generate:routes\``).toBe(true);
      const fresh = join(work, 'client-routes.ts');
      const result = await run(tsx, withOutput(scriptArgs(scripts['generate:routes'], 'tsx'), fresh));
      expect(result.code, `the route table script failed:\n${result.stdout}\n${result.stderr}`).toBe(0);
      const drift = byteDrift(readFileSync(fresh), readFileSync(generatedRoutesPath));
      expect(drift, `generated/client-routes.ts is stale (${drift ?? ''}): run \`npm run generate:routes\``).toBeUndefined();
    },
    timeout,
  );

  test('the route table follows the contract: an operation moved to the other base URL changes it', () => {
    const text = readFileSync(generatedBundlePath, 'utf8');
    const moved = parseContract(text);
    // POST /product names the contract's own server ({base_url}) over its path's ({base_url_alt}).
    const createProduct = (moved.paths as Record<string, Record<string, JsonObject>>)['/product']?.post;
    expect(createProduct, 'the self-check could not find createProduct').toBeDefined();
    createProduct!.servers = structuredClone(moved.servers);
    const fresh = Buffer.from(clientRoutesSource(parseContract(text)));
    expect(byteDrift(fresh, readFileSync(generatedRoutesPath))).toBeUndefined();
    expect(clientRoutesSource(parseContract(text))).toContain("createProduct: { method: 'post', path: '/product', server: 'base_url_alt',");
    expect(clientRoutesSource(moved)).toContain("createProduct: { method: 'post', path: '/product', server: 'base_url',");
  });
});

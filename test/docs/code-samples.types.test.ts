/**
 * The docs' TypeScript samples compile against the typed client, as a reader's project would
 * compile them: each sample written to a file of its own, its `pix-payments-toolkit/client`
 * import mapped to client/index.ts, and type-checked strictly (tsc's API, one program for all of
 * them, so the client's types are read once). A sample whose body or path does not fit the
 * contract's types, or that calls an operation on the wrong base URL, fails here.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { listOperations, loadBundledContract } from '../../lib/contract/bundled.js';
import { decorateForDocs } from '../../scripts/docs/decorate.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const contract = loadBundledContract();
const docsSpec = decorateForDocs(contract, readFileSync(join(repoRoot, 'openapi', 'DECISIONS.md'), 'utf8'));
const samples = listOperations(docsSpec).map((op) => ({
  operationId: op.operationId,
  source: (op.operation['x-codeSamples'] as Array<{ lang: string; source: string }>).find((s) => s.lang === 'TypeScript')?.source ?? '',
}));

const folder = mkdtempSync(join(tmpdir(), 'pix-ts-samples-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A reader's strict project, with the package's import mapped to the client's source. */
const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2023.d.ts'],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  noUncheckedIndexedAccess: true,
  noEmit: true,
  skipLibCheck: true,
  types: ['node'],
  typeRoots: [join(repoRoot, 'node_modules', '@types')],
  paths: { 'pix-payments-toolkit/client': [join(repoRoot, 'client', 'index.ts')] },
  allowImportingTsExtensions: true,
};

/** The first sample with its call moved to the other base URL's client, which must not compile. */
const wrongBaseUrl = samples[0]!.source.replace(/pix\.(base|alt)\./, (_m, client: string) => `pix.${client === 'base' ? 'alt' : 'base'}.`);

/** Errors of each file (the samples by operationId, and `wrong`); one program, so the client's types are read once. */
const diagnostics = (() => {
  let result: Map<string, string[]> | undefined;
  return () => {
    if (result) return result;
    const files = [...samples, { operationId: 'wrong', source: wrongBaseUrl }].map(({ operationId, source }) => {
      const file = join(folder, `${operationId}.mts`);
      writeFileSync(file, source);
      return { operationId, file };
    });
    const program = ts.createProgram(
      files.map((f) => f.file),
      options,
    );
    result = new Map(
      files.map(({ operationId, file }) => [
        operationId,
        ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
      ]),
    );
    return result;
  };
})();

describe('the TypeScript code samples', () => {
  // Reading the client's and the contract's types takes seconds: once, before the checks.
  beforeAll(() => void diagnostics(), 60_000);

  test('one per operation of the contract', () => {
    expect(samples.map((s) => s.operationId).sort()).toEqual(
      listOperations(contract)
        .map((op) => op.operationId)
        .sort(),
    );
    for (const { operationId, source } of samples) expect(source, operationId).toContain("from 'pix-payments-toolkit/client'");
  });

  test.each(samples.map((s) => [s.operationId, s] as const))('%s compiles against the typed client', (operationId, { source }) => {
    expect(diagnostics().get(operationId), source).toEqual([]);
  });

  test('a sample on the wrong base URL does not compile (the check can fail)', () => {
    expect(wrongBaseUrl).not.toBe(samples[0]!.source);
    expect(diagnostics().get('wrong')!.length).toBeGreaterThan(0);
  });
});

/**
 * `npm run lint:imports` (dependency-cruiser, .dependency-cruiser.json) refuses an import circle,
 * a type-only one too: two modules that import each other's types fail it, and the project's
 * sources pass it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

const depcruise = join(repoRoot, 'node_modules', '.bin', 'depcruise');
const folder = mkdtempSync(join(tmpdir(), 'pix-circles-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function cruise(...paths: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(depcruise, ['--config', '.dependency-cruiser.json', '--output-type', 'err', ...paths], { cwd: repoRoot }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, out: String(stdout) + String(stderr) });
    });
  });
}

describe('the import-circle lint', () => {
  const cases: Array<[string, { files: Record<string, string>; circular: boolean }]> = [
    [
      'two modules importing each other’s types',
      {
        files: {
          'a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
          'b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
        },
        circular: true,
      },
    ],
    [
      'the shared type moved below both',
      {
        files: {
          'types.ts': 'export interface Shared { name: string }\n',
          'a.ts': "import type { Shared } from './types.js';\nexport const a = (s: Shared) => s.name;\n",
          'b.ts': "import type { Shared } from './types.js';\nimport { a } from './a.js';\nexport const b = (s: Shared) => a(s);\n",
        },
        circular: false,
      },
    ],
  ];
  test.each(cases)('%s', async (name, { files, circular }) => {
    const dir = join(folder, name.replace(/\W+/g, '-'));
    mkdirSync(dir);
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text);
    const ran = await cruise(dir);
    expect(ran.code !== 0, ran.out).toBe(circular);
    if (circular) expect(ran.out).toMatch(/no-circular/);
  });
});

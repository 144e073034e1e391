/**
 * What the two package tests share (pack.test.ts, QA's package; sandbox-pack.test.ts, the
 * integrators'): the repository's package.json, and commands run as a user's shell runs them.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../server/test-support/processes.js';

export const repoPackage = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  name: string;
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** This process's environment without vitest's and npm's own variables (the child is a user's shell, not this test run), and `env` on top. */
export function cleanEnv(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(VITEST|npm_|NODE_ENV$|TEST$|INIT_CWD$|CONFORMANCE_)/.test(name)));
  return { ...clean, NO_COLOR: '1', ...env };
}

export function run(command: string, args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: cleanEnv(env), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) + (error && typeof error.code !== 'number' ? `\n${error.message}` : '') });
    });
  });
}

export const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
export const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

import { spawn } from 'node:child_process';

/**
 * Runs a script as a reader's terminal runs pasted lines, stopping at the first failure
 * (`-euo pipefail`: a variable the script reads that nobody set fails it too); stdin is not a
 * terminal, so bash reads no bashrc.
 */
export function runBash(
  script: string,
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      env: options.env,
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeoutMs,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

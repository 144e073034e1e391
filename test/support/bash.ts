import { spawn, spawnSync } from 'node:child_process';

/**
 * Runs a script as a reader's terminal runs pasted lines, stopping at the first failure
 * (`-euo pipefail`: a variable the script reads that nobody set fails it too); stdin is not a
 * terminal, so bash reads no bashrc.
 */
export function runBash(
  script: string,
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return runCommand('bash', ['-euo', 'pipefail', '-c', script], options);
}

/**
 * Runs a script file in bash on a pseudo-terminal, as a reader's terminal runs pasted lines
 * (`-euo pipefail` as `runBash`): `script` (util-linux) gives bash a terminal, so `/dev/stderr`
 * is one, as it is for a reader (under `runBash` it is a socket, which cannot be opened by
 * name). Both streams arrive as one `output`, as on a screen, with the terminal's CR LF made LF.
 * Undefined where there is no `script`.
 */
export async function runBashOnTerminal(
  file: string,
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number },
): Promise<{ code: number | null; output: string } | undefined> {
  if (spawnSync('script', ['--version'], { stdio: 'ignore' }).status !== 0) return undefined;
  const command = `exec bash -euo pipefail '${file.replace(/'/g, `'\\''`)}'`;
  const { code, stdout, stderr } = await runCommand('script', ['--quiet', '--return', '--flush', '--command', command, '/dev/null'], options);
  return { code, output: `${stdout}${stderr}`.replace(/\r+\n/g, '\n') };
}

/**
 * `bash -euo pipefail <file>` as a Node program runs it: its stdout and stderr are Node's pipes
 * (Unix sockets, which /dev/stderr cannot open). The output is stdout, then stderr.
 */
export async function runBashFromNode(
  file: string,
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number },
): Promise<{ code: number | null; output: string }> {
  const { code, stdout, stderr } = await runCommand('bash', ['-euo', 'pipefail', file], options);
  return { code, output: `${stdout}${stderr}`.replace(/\r+\n/g, '\n') };
}

function runCommand(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string; timeoutMs: number },
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
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

/**
 * Stopping always stops (issue 39): the compiled server, as `npm start 2>&1 | tee server.log`
 * typed in a terminal, ends on Ctrl-C (which ends `tee` too) and on a SIGTERM sent once its log
 * reader is gone; a second signal ends a stop that waits on a request at once. Every child is
 * killed (its whole process group) after each test, whatever happened.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  builtServerCommand,
  freePort,
  haveTerminal,
  listening,
  shellWord,
  startBuiltServer,
  startShellOnTerminal,
  useChildProcesses,
  within,
  type Running,
} from './test-support/processes.js';

const folder = useChildProcesses('pix-shutdown-test-');

/** Whether a process with this id still runs (a zombie, exited but not yet reaped, does not). */
function runs(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = existsSync(`/proc/${pid}/stat`) ? readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
  return !/^\d+ \(.*\) Z/.test(stat);
}

/**
 * `node dist/server/main.mjs 2>&1 | tee server.log` (what `npm start 2>&1 | tee server.log`
 * runs, without npm) on a terminal; the server's and tee's process ids and the server's exit
 * status are written to files of `dir`.
 */
function startPipedToTee(dir: string, port: number): { running: Running; pidOf: (name: 'node' | 'tee') => number; status: () => string } {
  mkdirSync(dir, { recursive: true });
  const file = (name: string) => join(dir, name);
  const server = builtServerCommand().map(shellWord).join(' ');
  const commandLine =
    // The subshell that reports the server's exit status ignores Ctrl-C itself, so that it lives to
    // report it (Node resets the signals it inherits, so the server gets Ctrl-C all the same).
    `(trap '' INT; sh -c 'echo $$ > ${file('node.pid')}; exec "$@"' sh ${server}; echo $? > ${file('status')}) 2>&1 ` +
    `| sh -c 'echo $$ > ${file('tee.pid')}; exec tee ${file('server.log')}'`;
  const running = startShellOnTerminal(commandLine, { DATABASE_PATH: file('payments.db'), PORT: String(port) });
  return {
    running,
    pidOf: (name) => Number(readFileSync(file(`${name}.pid`), 'utf8')),
    status: () => (existsSync(file('status')) ? readFileSync(file('status'), 'utf8').trim() : 'none'),
  };
}

describe.skipIf(!haveTerminal('the shutdown tests on a terminal'))('npm start 2>&1 | tee server.log, stopped', () => {
  test('Ctrl-C (which ends tee too) ends the server cleanly', async () => {
    const { running, pidOf, status } = startPipedToTee(join(folder(), 'ctrl-c'), await freePort());
    await listening(running);
    const node = pidOf('node');
    running.child.stdin!.write('\x03');
    await within(running.exited, 'the command line to end after Ctrl-C');
    expect(runs(node), 'the server still runs after Ctrl-C').toBe(false);
    expect(status()).toBe('0');
  });

  test('npm start itself (prestart, npm, sh, node) piped to tee ends on Ctrl-C, and its port closes', { timeout: 90_000 }, async () => {
    const dir = join(folder(), 'npm-start');
    mkdirSync(dir, { recursive: true });
    const port = await freePort();
    const running = startShellOnTerminal(`npm start 2>&1 | tee ${join(dir, 'server.log')}`, { DATABASE_PATH: join(dir, 'payments.db'), PORT: String(port) });
    await within(listening(running), 'npm start to listen', 80_000);
    // A quiet start: no third-party banner (Redocly's "Node.js 20 reached end-of-life") on the way.
    expect(running.stdout()).not.toMatch(/end-of-life|Redoc 3/);
    running.child.stdin!.write('\x03');
    // The command line ends only once npm, and so the server it waits for, and tee have ended.
    await within(running.exited, 'the command line to end after Ctrl-C');
    await expect(new Promise((resolve, reject) => connect(port, '127.0.0.1').once('connect', resolve).once('error', reject))).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  test('SIGTERM after the log reader is gone ends the server cleanly', async () => {
    const { running, pidOf, status } = startPipedToTee(join(folder(), 'reader-gone'), await freePort());
    await listening(running);
    const node = pidOf('node');
    process.kill(pidOf('tee'), 'SIGKILL');
    process.kill(node, 'SIGTERM');
    await within(running.exited, 'the command line to end after SIGTERM');
    expect(runs(node), 'the server still runs after SIGTERM').toBe(false);
    expect(status()).toBe('0');
  });
});

describe('a second signal', () => {
  test('ends a stop that waits on a request under way at once', async () => {
    const port = await freePort();
    const server = startBuiltServer({
      DATABASE_PATH: join(folder(), 'second-signal', 'payments.db'),
      PORT: String(port),
      HEADERS_TIMEOUT_MS: '120000',
      REQUEST_TIMEOUT_MS: '120000',
    });
    await listening(server);
    // A request whose body is still to come: the server answered `100 Continue`, so it is under
    // way, and the stop waits for it.
    const socket = await held(port);
    try {
      server.child.kill('SIGTERM');
      await within(shuttingDown(server), 'the "shutting down" log line');
      expect(server.child.exitCode).toBeNull();
      server.child.kill('SIGTERM');
      expect(await within(server.exited, 'the server to exit on a second SIGTERM')).toEqual({ code: 143, signal: null });
    } finally {
      socket.destroy();
    }
  });
});

/** A connection to `port` with a request under way: its headers sent, its body not. */
async function held(port: number): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  const continued = new Promise<void>((resolve, reject) => {
    socket.setEncoding('utf8').on('data', (chunk: string) => chunk.startsWith('HTTP/1.1 100') && resolve());
    socket.once('error', reject);
  });
  socket.write('POST /client HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n');
  await within(continued, 'the server to answer 100 Continue');
  return socket;
}

async function shuttingDown(server: Running): Promise<void> {
  while (!server.stdout().includes('"msg":"shutting down"')) {
    await new Promise((resolve) => server.child.stdout!.once('data', resolve));
  }
}

import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The ports below the kernel's ephemeral range (Linux: `net.ipv4.ip_local_port_range`, 32768–60999
 * by default): a port handed out by binding port 0 comes from that range, which is also where every
 * outgoing connection on the machine takes its source port, so one of them could hold it by the
 * time the process it was meant for binds it (EADDRINUSE, seen under a full test run's load).
 * Below the range, only a process that asks for the port by number can take it. Elsewhere, or
 * when the range leaves too little room below it, undefined: port 0 is used.
 */
function portsBelowEphemeral(): { low: number; high: number } | undefined {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (low === undefined || !Number.isInteger(low) || low - 1 < 10_000 + 1_024) return undefined;
    return { low: Math.max(1_024, low - 12_000), high: low - 1 };
  } catch {
    return undefined;
  }
}
const range = portsBelowEphemeral();

/** Listens on `port` of 127.0.0.1 and lets it go: the port it got, or undefined when it is taken. */
function probe(port: number): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolve(undefined) : reject(error)));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('no port assigned'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}

/** A port nobody listens on right now, chosen at random below the ephemeral range where there is one. */
export async function freePort(): Promise<number> {
  if (range !== undefined) {
    for (let attempt = 0; attempt < 20; attempt++) {
      const port = await probe(range.low + Math.floor(Math.random() * (range.high - range.low + 1)));
      if (port !== undefined) return port;
    }
  }
  const port = await probe(0);
  if (port === undefined) throw new Error('no free port');
  return port;
}

import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { describe, expect, test } from 'vitest';
import { freePort } from './free-port.js';

/** The kernel's ephemeral range's first port, where this machine has one to read. */
function ephemeralLow(): number | undefined {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return undefined;
  }
}

describe('freePort', () => {
  test('gives ports a server can listen on, below the ephemeral range where outgoing connections take theirs', async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    const low = ephemeralLow();
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(1_024);
      if (low !== undefined && low > 11_024) expect(port).toBeLessThan(low);
    }
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(ports[0], '127.0.0.1', resolve);
    });
    await new Promise((resolve) => server.close(resolve));
  });
});

import { createServer } from 'node:net';

/** A port nobody listens on right now: bind port 0, read the port, let it go. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      if (address === null || typeof address === 'string') {
        probe.close();
        reject(new Error('no port assigned'));
        return;
      }
      probe.close(() => resolve(address.port));
    });
  });
}

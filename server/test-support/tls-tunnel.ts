/**
 * What stands between a production deployment and a webhook receiver on a QA engineer's machine:
 * a tunnel with an https name (ngrok, cloudflared, a TLS-terminating proxy). A production
 * deployment refuses `http`, `localhost` and non-public addresses (D40), so a test that wants
 * its deliveries needs the same hop: an https server under this machine's host name (whose
 * addresses the deployment is told to allow, as a tunnel's public address needs no telling), with
 * a self-signed certificate the deployment is told to trust (`NODE_EXTRA_CA_CERTS`, as an
 * operator adds a private CA), passing each request through unchanged to a local http port.
 */
import { spawnSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { createServer, type Server } from 'node:https';
import { readFileSync } from 'node:fs';

export interface TlsTunnel {
  /** `https://HOST:PORT`, HOST this machine's name. */
  origin: string;
  /** The certificate to trust, a PEM file. */
  certificatePath: string;
  close(): Promise<void>;
}

/**
 * This machine's host name when a production deployment would accept it in a webhook URL (a
 * name, not `localhost`, not a literal address) and it resolves here, with the addresses it
 * resolves to (this machine's: never public, so the deployment must be told to allow them,
 * WEBHOOK_ALLOWED_NETWORKS, as an operator allows a receiver inside their own network, D40);
 * otherwise why not.
 */
export async function tunnelHostName(): Promise<{ host: string; addresses: string[] } | { reason: string }> {
  const host = hostname();
  if (host === '' || host === 'localhost' || host.endsWith('.localhost') || isIP(host) !== 0)
    return { reason: `the host name ${JSON.stringify(host)} is one a production deployment refuses` };
  try {
    const addresses = await lookup(host, { all: true });
    return { host, addresses: addresses.map(({ address }) => address) };
  } catch (error) {
    return { reason: `the host name ${host} does not resolve (${(error as NodeJS.ErrnoException).code ?? 'error'})` };
  }
}

/** A key and a self-signed certificate for `host`, made by openssl in `folder`; undefined without openssl. */
function selfSigned(host: string, folder: string): { key: string; certificatePath: string } | undefined {
  const keyPath = join(folder, 'tunnel-key.pem');
  const certificatePath = join(folder, 'tunnel-cert.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${host}`,
      '-addext',
      `subjectAltName=DNS:${host}`,
      '-keyout',
      keyPath,
      '-out',
      certificatePath,
    ],
    { stdio: 'pipe' },
  );
  if (made.error || made.status !== 0) return undefined;
  return { key: readFileSync(keyPath, 'utf8'), certificatePath };
}

/**
 * Starts the tunnel to `127.0.0.1:targetPort`, listening on every interface (the host name may
 * resolve to any of this machine's addresses). Undefined, with the reason, when it cannot be made here.
 */
export async function startTlsTunnel(host: string, targetPort: number, folder: string): Promise<TlsTunnel | { reason: string }> {
  const credentials = selfSigned(host, folder);
  if (!credentials) return { reason: 'openssl is not here to make a certificate' };
  const server: Server = createServer({ key: credentials.key, cert: readFileSync(credentials.certificatePath) }, (incoming, outgoing) => {
    const forwarded = request({ host: '127.0.0.1', port: targetPort, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forwarded.on('error', () => outgoing.writeHead(502).end());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, () => resolve());
  });
  const { port } = server.address() as { port: number };
  return {
    origin: `https://${host}:${port}`,
    certificatePath: credentials.certificatePath,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The webhook transport (D40, D14): the URL policy judged again at every delivery by the
 * deployment that sends it, the connection made only to the address that was checked, and one
 * connection per request, closed on a time-out.
 *
 * No test reaches the network: names are answered by a table resolver, and every socket is on
 * 127.0.0.1. A "receiver" here is a real listening socket that records every connection made
 * to it, so "never connected" is a count of zero, not an assumption.
 */
import { createServer as createHttpServer, type IncomingHttpHeaders } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, type Config } from '../config.js';
import type { Deps } from '../deps.js';
import { newId } from '../domain/ids.js';
import type { WebhookDeliveryDoc } from '../store/types.js';
import { waitFor } from '../test-support/webhook-receiver.js';
import { createTestServer, tableResolver, type TestServer } from '../test-support/harness.js';
import type { HostResolver } from './url-policy.js';
import { describeFailure, startWebhookWorker, type WebhookWorker } from './worker.js';
import { RefusedByPolicy } from './url-policy.js';

const SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
/** Fast retries: 50 ms, then 100 ms, then given up (three attempts). */
const FAST_SCHEDULE = [0.05, 0.1];
/** For a single tick: a retry due a minute later is never claimed by the tick that failed (a fast one could be, on a slow store). */
const ONE_ATTEMPT_SCHEDULE = [60, 60];

interface Listener {
  port: number;
  /** Every connection accepted, in order. */
  connections: Socket[];
  /** The connections the other side has closed (or that were destroyed). */
  closed: Set<Socket>;
  requests: Array<{ headers: IncomingHttpHeaders; socket: Socket }>;
  close: () => Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
const workers: WebhookWorker[] = [];
let server: TestServer | undefined;

afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  for (const cleanup of cleanups.splice(0)) await cleanup();
  if (server) {
    const violations = server.violations;
    await server.close();
    server = undefined;
    expect(violations).toEqual([]);
  }
});

/** A TCP socket on 127.0.0.1 that records every connection and drops it (nothing is ever answered). */
async function tcpListener(): Promise<Listener> {
  const connections: Socket[] = [];
  const closed = new Set<Socket>();
  const tcp = createTcpServer((socket) => {
    connections.push(socket);
    socket.on('close', () => closed.add(socket));
    socket.destroy();
  });
  await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const listener: Listener = {
    port: (tcp.address() as AddressInfo).port,
    connections,
    closed,
    requests: [],
    close: () => new Promise<void>((resolve) => tcp.close(() => resolve())),
  };
  cleanups.push(listener.close);
  return listener;
}

/** An http receiver on 127.0.0.1: `answer` says what each request gets ('hang': nothing, ever). */
async function httpListener(answer: (index: number) => number | 'hang'): Promise<Listener> {
  const connections: Socket[] = [];
  const closed = new Set<Socket>();
  const requests: Listener['requests'] = [];
  const http = createHttpServer((req, res) => {
    const index = requests.length;
    requests.push({ headers: req.headers, socket: req.socket });
    req.resume();
    req.on('end', () => {
      const status = answer(index);
      if (status !== 'hang') res.writeHead(status).end('ok');
    });
  });
  http.on('connection', (socket: Socket) => {
    connections.push(socket);
    socket.on('close', () => closed.add(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const listener: Listener = {
    port: (http.address() as AddressInfo).port,
    connections,
    closed,
    requests,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  cleanups.push(listener.close);
  return listener;
}

/** A server whose deliveries retry a minute later; a test that polls for retries passes FAST_SCHEDULE. */
async function start(config: Partial<Config>, resolveHost?: HostResolver): Promise<TestServer> {
  server = await createTestServer({
    config: { webhookRetryScheduleSeconds: ONE_ATTEMPT_SCHEDULE, webhookTimeoutMs: 2_000, webhookPollMs: 10, ...config },
    ...(resolveHost ? { resolveHost } : {}),
  });
  return server;
}

function worker(deps: Deps, polling = false): WebhookWorker {
  const started = startWebhookWorker(deps, { polling });
  workers.push(started);
  return started;
}

/** A registration stored directly (as a development run or an older version would have left it). */
async function storeWebhook(s: TestServer, url: string): Promise<string> {
  const at = s.deps.now().toISOString();
  const id = newId('webhook');
  await s.deps.store.insertWebhook(
    { id, url, name: 'Recebedor', companyId: s.companyId, status: 'ACTIVE', events: ['charge.pending'], createdAt: at, updatedAt: at },
    SECRET,
  );
  return id;
}

/** Registers through the API, as an attacker would; fails unless 201. */
async function registerWebhook(s: TestServer, url: string): Promise<string> {
  const { data, response, error } = await s.api.POST('/webhook', { body: { url, name: 'Recebedor', events: ['charge.pending'] } });
  expect(response.status, JSON.stringify(error)).toBe(201);
  return data!.id;
}

async function createDevCharge(s: TestServer): Promise<void> {
  const { response } = await s.api.POST('/charge/payment-link', { body: { total: 1500, devMode: true } });
  expect(response.status).toBe(201);
}

async function attempts(s: TestServer, webhookId: string): Promise<WebhookDeliveryDoc[]> {
  const list = (await s.deps.store.listDeliveryAttempts(s.companyId, webhookId, 100)).reverse();
  const validate = s.deps.validator.at('/components/schemas/WebhookDelivery');
  for (const doc of list) expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
  return list;
}

const RESOLVES_NON_PUBLIC = "the URL's host resolves to a non-public address; refused by policy";

describe('the policy at delivery: nothing refused is connected to (D40)', () => {
  test('DNS rebinding: registered while the name was public, resolving to 127.0.0.1 at delivery: refused, never connected, retried on the schedule', async () => {
    const receiver = await tcpListener();
    const lookups: string[] = [];
    // The attacker's name answers a public address to the registration's lookup, then loopback.
    const table = tableResolver({ 'receiver.example': () => (lookups.length === 1 ? ['93.184.216.34'] : ['127.0.0.1']) });
    const resolve: HostResolver = (hostname, options) => {
      lookups.push(hostname);
      return table(hostname, options);
    };
    const s = await start({ mode: 'production', webhookRetryScheduleSeconds: FAST_SCHEDULE }, resolve);
    const webhookId = await registerWebhook(s, `https://receiver.example:${receiver.port}/hooks`);
    await createDevCharge(s);

    worker(s.deps, true);
    await waitFor('three attempts (the schedule used up)', async () => (await attempts(s, webhookId)).length === 3, 10_000);

    expect(receiver.connections).toHaveLength(0);
    // Looked up at registration, then at each delivery: the check and the connection are one lookup.
    expect(lookups).toEqual(['receiver.example', 'receiver.example', 'receiver.example', 'receiver.example']);
    const recorded = await attempts(s, webhookId);
    expect(recorded.map((a) => [a.attempt, a.status, a.httpStatus, a.error, a.nextAttemptAt !== undefined])).toEqual([
      [1, 'FAILED', undefined, RESOLVES_NON_PUBLIC, true],
      [2, 'FAILED', undefined, RESOLVES_NON_PUBLIC, true],
      [3, 'FAILED', undefined, RESOLVES_NON_PUBLIC, false],
    ]);
    // The deliveries list tells the merchant why, and nothing about the inside: no address, no port.
    const { data } = await s.api.GET('/webhook/{id}/deliveries', { params: { path: { id: webhookId } } });
    expect(JSON.stringify(data)).not.toContain('127.0.0.1');
    expect(JSON.stringify(data)).not.toMatch(/refused\b(?!.*policy)|ECONN|timed out/);
  });

  test('a name with one public and one loopback address at delivery: refused, never connected', async () => {
    const receiver = await tcpListener();
    const s = await start({ mode: 'production' }, tableResolver({ 'receiver.example': ['93.184.216.34', '127.0.0.1'] }));
    const webhookId = await storeWebhook(s, `https://receiver.example:${receiver.port}/hooks`);
    await createDevCharge(s);
    await worker(s.deps).tick();
    expect(receiver.connections).toHaveLength(0);
    expect((await attempts(s, webhookId)).map((a) => a.error)).toEqual([RESOLVES_NON_PUBLIC]);
  });

  test('the control: the same delivery with 127.0.0.0/8 in WEBHOOK_ALLOWED_NETWORKS connects, to the address the table answered', async () => {
    const receiver = await tcpListener();
    const s = await start({ mode: 'production', webhookAllowedNetworks: ['127.0.0.0/8'] }, tableResolver({ 'receiver.example': ['127.0.0.1'] }));
    const webhookId = await registerWebhook(s, `https://receiver.example:${receiver.port}/hooks`);
    await createDevCharge(s);
    await worker(s.deps).tick();
    // receiver.example is in no real DNS: the connection went where the checked lookup said.
    expect(receiver.connections).toHaveLength(1);
    const [attempt] = await attempts(s, webhookId);
    expect(attempt).toMatchObject({ attempt: 1, status: 'FAILED' });
    expect(attempt!.error).not.toMatch(/policy/);
  });

  test.each<[string, { url: (port: number) => string; want: string }]>([
    [
      'http to 127.0.0.1 registered in development',
      { url: (port) => `http://127.0.0.1:${port}/hooks`, want: 'the URL is not https (http only to localhost in development); refused by policy' },
    ],
    [
      'http to localhost registered in development',
      { url: (port) => `http://localhost:${port}/hooks`, want: 'the URL is not https (http only to localhost in development); refused by policy' },
    ],
    ['https to 127.0.0.1', { url: (port) => `https://127.0.0.1:${port}/hooks`, want: "the URL's host is a loopback address; refused by policy" }],
    [
      'https to [::ffff:127.0.0.1]',
      { url: (port) => `https://[::ffff:127.0.0.1]:${port}/hooks`, want: "the URL's host is a loopback address; refused by policy" },
    ],
    ['https to localhost', { url: (port) => `https://localhost:${port}/hooks`, want: "the URL's host is localhost; refused by policy" }],
  ])('a development registration (%s) is refused by a production deployment after a restart, never connected', async (_name, { url, want }) => {
    const receiver = await httpListener(() => 200);
    const s = await start({ mode: 'development' });
    const webhookId = await registerWebhook(s, url(receiver.port));
    await createDevCharge(s);

    // The same store, now sent by a production deployment.
    await worker({ ...s.deps, config: { ...s.deps.config, mode: 'production' } }).tick();
    expect(receiver.connections).toHaveLength(0);
    expect((await attempts(s, webhookId)).map((a) => [a.status, a.httpStatus, a.error, a.nextAttemptAt !== undefined])).toEqual([
      ['FAILED', undefined, want, true],
    ]);
  });

  test('the same registration is delivered by the development deployment that made it', async () => {
    const receiver = await httpListener(() => 204);
    const s = await start({ mode: 'development' });
    const webhookId = await registerWebhook(s, `http://localhost:${receiver.port}/hooks`);
    await createDevCharge(s);
    await worker(s.deps).tick();
    expect(receiver.requests).toHaveLength(1);
    expect((await attempts(s, webhookId)).map((a) => [a.status, a.httpStatus])).toEqual([['SUCCEEDED', 204]]);
  });
});

describe('connections: one per delivery, closed after the answer and on a time-out', () => {
  test('a delivery asks for Connection: close and its connection is closed once answered (no idle connection left)', async () => {
    const receiver = await httpListener(() => 204);
    const s = await start({});
    await storeWebhook(s, `http://127.0.0.1:${receiver.port}/hooks`);
    await createDevCharge(s);
    await worker(s.deps).tick();
    expect(receiver.requests.map((r) => r.headers.connection)).toEqual(['close']);
    await waitFor('the connection closed', () => receiver.closed.size === 1, 10_000);
  });

  test('a receiver that never answers: the timed-out connection is closed, and the retry comes on a new one', async () => {
    const receiver = await httpListener((index) => (index === 0 ? 'hang' : 204));
    const s = await start({ webhookTimeoutMs: 200, webhookRetryScheduleSeconds: FAST_SCHEDULE });
    const webhookId = await storeWebhook(s, `http://127.0.0.1:${receiver.port}/hooks`);
    await createDevCharge(s);

    worker(s.deps, true);
    await waitFor('the retry answered', async () => (await attempts(s, webhookId)).length === 2, 10_000);
    const [first, second] = receiver.requests;
    expect(receiver.requests).toHaveLength(2);
    // The first connection was closed by the sender (the receiver never closes a hanging request).
    expect(receiver.closed.has(first!.socket)).toBe(true);
    expect(second!.socket).not.toBe(first!.socket);
    expect((await attempts(s, webhookId)).map((a) => [a.status, a.httpStatus, a.error])).toEqual([
      ['FAILED', undefined, 'no answer within 0.2 s'],
      ['SUCCEEDED', 204, undefined],
    ]);
  });
});

describe('the connect time-out (D14)', () => {
  test('a name whose lookup never answers holds the slot only until the connect time-out, not the answer time-out', async () => {
    // The lookup is part of connecting: a resolver that never answers stands for a receiver that never accepts.
    const never: HostResolver = () => new Promise(() => undefined);
    const s = await start({ webhookTimeoutMs: 10_000, webhookConnectTimeoutMs: 150, mode: 'production' }, never);
    const webhookId = await storeWebhook(s, 'https://slow-dns.example.com/hooks');
    await createDevCharge(s);
    const started = performance.now();
    await worker(s.deps).tick();
    expect(performance.now() - started).toBeLessThan(5_000);
    expect((await attempts(s, webhookId)).map((a) => [a.status, a.error])).toEqual([['FAILED', 'connection timed out']]);
  });
});

describe('describeFailure of a policy refusal', () => {
  test('says refused by policy, whatever wraps it', () => {
    const refused = new RefusedByPolicy(RESOLVES_NON_PUBLIC);
    expect(describeFailure(refused, 15_000)).toBe(RESOLVES_NON_PUBLIC);
    expect(describeFailure(new TypeError('fetch failed', { cause: refused }), 15_000)).toBe(RESOLVES_NON_PUBLIC);
  });
});

describe('configuration: WEBHOOK_ALLOWED_NETWORKS', () => {
  test.each<[string, { given: string | undefined; want: string[] }]>([
    ['unset: none', { given: undefined, want: [] }],
    ['empty: none', { given: '', want: [] }],
    ['blocks and addresses, spaces after commas', { given: '10.20.0.0/16, fd00::7,192.168.5.9', want: ['10.20.0.0/16', 'fd00::7', '192.168.5.9'] }],
  ])('%s', (_name, { given, want }) => {
    expect(loadConfig({ WEBHOOK_ALLOWED_NETWORKS: given }).webhookAllowedNetworks).toEqual(want);
  });

  test.each([
    ['a word', 'intranet'],
    ['a prefix too long', '10.0.0.0/33'],
    ['a shorthand IPv4', '127.1'],
    ['an empty entry', '10.0.0.0/8,,fd00::/8'],
  ])('%s → one-line ConfigError naming the variable', (_name, given) => {
    expect(() => loadConfig({ WEBHOOK_ALLOWED_NETWORKS: given })).toThrow(ConfigError);
    expect(() => loadConfig({ WEBHOOK_ALLOWED_NETWORKS: given })).toThrow(/^WEBHOOK_ALLOWED_NETWORKS must be 1 to 20 comma-separated CIDR blocks/);
  });
});

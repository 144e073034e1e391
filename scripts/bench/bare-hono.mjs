// The limits of the benchmark: the least a Hono app on @hono/node-server can do per request.
// - `GET /`: route, serialise a small JSON array, answer (informative: the cost of HTTP alone);
// - `/same/<n>`: answer the very bytes the reference server answered to scenario n (status,
//   content type, body), from memory, read from the file BENCH_ANSWERS names. A request body is
//   read as the reference server must read it. Each scenario's reference req/s is compared with
//   its own row here: sending 1.4 KB or 20 MB is not the same work as sending 60 bytes.
import { readFileSync } from 'node:fs';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const items = [
  { id: 1, name: 'alpha', active: true },
  { id: 2, name: 'beta', active: false },
  { id: 3, name: 'gamma', active: true },
];

const app = new Hono();
app.get('/', (c) => c.json(items));

const answers = process.env.BENCH_ANSWERS ? JSON.parse(readFileSync(process.env.BENCH_ANSWERS, 'utf8')) : [];
answers.forEach((answer, index) => {
  const body = Buffer.from(answer.bodyBase64, 'base64');
  app.on(answer.method, `/same/${index}`, async (c) => {
    if (answer.method !== 'GET') await c.req.arrayBuffer();
    return c.body(body, answer.status, { 'Content-Type': answer.contentType });
  });
});

const port = Number(process.env.PORT ?? 3100);
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });

for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close(() => process.exit(0)));

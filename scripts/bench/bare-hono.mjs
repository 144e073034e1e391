// The limit of the benchmark: the least a Hono app on @hono/node-server can do per request (route,
// serialise a small JSON array, answer). The reference server's req/s is compared with this one's.
import { serve } from '@hono/node-server';
import { Hono } from 'hono';

const items = [
  { id: 1, name: 'alpha', active: true },
  { id: 2, name: 'beta', active: false },
  { id: 3, name: 'gamma', active: true },
];

const app = new Hono();
app.get('/', (c) => c.json(items));

const port = Number(process.env.PORT ?? 3100);
const server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' });

for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => server.close(() => process.exit(0)));

#!/usr/bin/env node
// A webhook receiver in a few lines, for the integrator guide's "Try it" (docs/integrating.md): it verifies every delivery with
// the registration's secret (Standard Webhooks, through the `standardwebhooks` library), answers
// 204 to a good one and 400 to a forged or stale one, and prints one line per delivery.
//
//   PIX_WEBHOOK_SECRET  the `whsec_…` secret of the registration (required)
//   RECEIVER_PORT       port to listen on (default 4000); RECEIVER_HOST interface (default 127.0.0.1)
//
// A delivery is retried with the same `webhook-id` until it is answered 2xx: a receiver
// de-duplicates on it, as this one does.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.PIX_WEBHOOK_SECRET;
if (!secret) {
  console.error('receiver: set PIX_WEBHOOK_SECRET to the secret (whsec_…) of the webhook registration.');
  process.exit(2);
}
const port = Number(process.env.RECEIVER_PORT || 4000);
const host = process.env.RECEIVER_HOST || '127.0.0.1';
const webhook = new Webhook(secret);
const seen = new Set();

const server = createServer((req, res) => {
  // Anything but a POST is someone checking that the receiver is up.
  if (req.method !== 'POST') return void res.writeHead(200, { 'Content-Type': 'text/plain' }).end('receiver is up\n');
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    let event;
    try {
      // Checks the signature over id, timestamp and the exact bytes, and that the timestamp is recent.
      event = webhook.verify(body, req.headers);
    } catch (error) {
      // A signature that matches nothing is, in practice, a delivery of another registration to
      // this URL (each has its own secret): say so, rather than leave a bare "No matching signature".
      const why = /signature/i.test(error.message)
        ? ' (it is signed with another secret: most likely for another webhook registration to this URL, one an earlier run left; GET /webhook lists them, DELETE /webhook/{id} removes one)'
        : '';
      console.log(`receiver: rejected a delivery: ${error.message}${why}`);
      res.writeHead(400).end();
      return;
    }
    const id = req.headers['webhook-id'];
    const again = seen.has(id) ? ' (a retry already seen: ignored)' : '';
    seen.add(id);
    const charge = event.data ?? {};
    console.log(`receiver: ${event.type} verified: charge ${charge.id} ${charge.status}/${charge.paymentStatus} (webhook-id ${id})${again}`);
    res.writeHead(204).end();
  });
});

server.on('error', (error) => {
  console.error(`receiver: could not listen on ${host}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use (set RECEIVER_PORT)' : error.message}`);
  process.exit(2);
});
server.listen(port, host, () => console.log(`receiver: listening on http://${host}:${port}/`));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));

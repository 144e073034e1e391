/**
 * The guide's webhook receiver (scripts/webhook-receiver.mjs), run as the Try-it loop runs it: a
 * delivery signed with its secret is printed as verified; one signed with another secret (another
 * registration to the same URL) is refused, and the line says that is the likely cause.
 */
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { expect, test } from 'vitest';
import { freePort, repoRoot, startNode, useChildProcesses } from '../server/test-support/processes.js';
import { waitFor } from '../server/test-support/webhook-receiver.js';

useChildProcesses('pix-receiver-');

const secretOf = (text: string) => `whsec_${Buffer.from(text.padEnd(32, '.')).toString('base64')}`;

test("a delivery signed for another registration is refused, saying so; the receiver's own is verified", async () => {
  const port = await freePort();
  const secret = secretOf('the receiver');
  const receiver = startNode([join(repoRoot, 'scripts', 'webhook-receiver.mjs')], { PIX_WEBHOOK_SECRET: secret, RECEIVER_PORT: String(port) });
  await waitFor('the receiver to listen', async () => receiver.stdout().includes('receiver: listening'));
  const body = JSON.stringify({ type: 'charge.paid', timestamp: new Date().toISOString(), data: { id: 'char_x', status: 'PAID', paymentStatus: 'PAID' } });
  const send = async (signedWith: string, id: string) => {
    const now = new Date();
    const signature = new Webhook(signedWith).sign(id, now, body);
    return (
      await fetch(`http://127.0.0.1:${port}/hooks/pix`, {
        method: 'POST',
        body,
        headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature },
      })
    ).status;
  };
  expect(await send(secretOf('another registration'), 'msg_other')).toBe(400);
  expect(await send(secret, 'msg_own')).toBe(204);
  await waitFor('both lines', async () => receiver.stdout().includes('verified'));
  const lines = receiver.stdout().split('\n');
  expect(lines).toContain(
    'receiver: rejected a delivery: No matching signature found (it is signed with another secret: most likely for another webhook registration to this URL, ' +
      'one an earlier run left; GET /webhook lists them, DELETE /webhook/{id} removes one)',
  );
  expect(lines).toContain('receiver: charge.paid verified: charge char_x PAID/PAID (webhook-id msg_own)');
});

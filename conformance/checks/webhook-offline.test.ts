/**
 * A bad-signature finding carries a command that computes the delivery's signature offline with
 * the registration's secret: run here through bash on a delivery signed with a known secret, it
 * prints the signature the Standard Webhooks library makes.
 */
import { execFileSync } from 'node:child_process';
import { Webhook } from 'standardwebhooks';
import { expect, test } from 'vitest';
import { offlineCheck } from './webhooks.js';

test('the offline check of a delivery computes its Standard Webhooks v1 signature, the secret never written in it', () => {
  const secret = `whsec_${Buffer.from('a secret of 24 bytes !!!').toString('base64')}`;
  const id = 'msg_2Lq4';
  const timestamp = '1764288000';
  const body = `{"type":"charge.paid","data":{"id":"char_1","note":"it's \\"quoted\\" – and ünïcode"}}`;
  const signature = new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), body);
  const delivery = { headers: { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature }, body, receivedAt: 0, answered: 204 };
  const text = offlineCheck(delivery);
  expect(text).not.toContain(secret.slice(6));
  const command = text.slice(text.indexOf('printf'), text.indexOf('  #'));
  const printed = execFileSync('bash', ['-c', command], { env: { PATH: process.env.PATH, PIX_WEBHOOK_SECRET: secret }, encoding: 'utf8' }).trim();
  expect(`v1,${printed}`).toBe(signature);
});

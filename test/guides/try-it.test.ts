/**
 * The integrator's guide's "Try it", run literally: its shell blocks are taken from docs/integrating.md as they stand and
 * run in order by bash, with curl and jq, against the compiled server started as `npm start`
 * starts it, with only what the guide asks a person to set (`PIX_API_KEY`, and the ports the guide
 * lets them override). What a person would see must be there: the payment page's address, the
 * charge held at PROCESSING, and the four events arriving, verified, at the receiver; and what the
 * loop registered is gone when it ends, a registration an interrupted earlier run left included.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { freePort, listening, printedKey, repoRoot, startBuiltServer, useChildProcesses } from '../../server/test-support/processes.js';
import { fencedBlocks } from '../support/markdown.js';
import { runBash } from '../support/bash.js';

const missing = ['bash', 'curl', 'jq'].filter((tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0);
if (missing.length > 0)
  console.warn(`NOTICE: ${missing.join(', ')} not installed: the guide's Try-it blocks are not run (apt-get install ${missing.join(' ')}).`);

const folder = useChildProcesses('pix-try-it-');

describe.skipIf(missing.length > 0)('docs/integrating.md "Try it"', () => {
  test('the section has the blocks of the loop', () => {
    const blocks = fencedBlocks(readFileSync(join(repoRoot, 'docs', 'integrating.md'), 'utf8'), '## Try it', 'sh');
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    const all = blocks.join('\n');
    for (const step of ['/product', '/webhook', 'scripts/webhook-receiver.mjs', '/charge/payment-link', '"devMode\\":true', '/simulate-payment', '/deliveries'])
      expect(all).toContain(step);
  });

  test('its blocks, run by bash against the compiled server, complete the loop a person sees', { timeout: 90_000 }, async () => {
    const port = await freePort();
    const receiverPort = await freePort();
    const server = startBuiltServer({ DATABASE_PATH: join(folder(), 'try-it', 'payments.db'), PORT: String(port) });
    await listening(server);
    const script = fencedBlocks(readFileSync(join(repoRoot, 'docs', 'integrating.md'), 'utf8'), '## Try it', 'sh').join('\n');
    const apiKey = printedKey(server);
    const base = `http://localhost:${port}`;
    const registrations = async () => (await (await fetch(`${base}/webhook`, { headers: { 'X-API-KEY': apiKey } })).json()) as Array<{ url: string }>;
    // An earlier run stopped half-way left its registration to the receiver's URL (and another, elsewhere, of the company's own).
    for (const url of [`http://127.0.0.1:${receiverPort}/hooks/pix`, 'http://localhost:9/elsewhere']) {
      const left = await fetch(`${base}/webhook`, {
        method: 'POST',
        headers: { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ url, name: 'Left behind', events: ['charge.paid'] }),
      });
      expect(left.status).toBe(201);
    }
    // Exactly what a person has: the printed key exported, the rest as the guide sets it.
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PIX_API_KEY: apiKey,
      PIX_BASE_URL: base,
      PIX_BASE_URL_ALT: base,
      RECEIVER_PORT: String(receiverPort),
    };
    const { code, stdout, stderr } = await runBash(script, { env, cwd: repoRoot, timeoutMs: 60_000 });
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    expect(stderr, stderr).not.toMatch(/error|not found|rejected/i);

    const pageUrl = /Open the payment page in a browser: (\S+)/.exec(stdout)?.[1];
    expect(pageUrl, stdout).toMatch(new RegExp(`^http://localhost:${port}/pay/char_`));
    const page = await fetch(pageUrl!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Código de teste');

    expect(stdout).toContain('{"status":"OPEN","paymentStatus":"PROCESSING"}');
    expect(stdout).toMatch(/\{"status":"PAID","paymentStatus":"RECEIVED","paymentDate":"[^"]+"\}/);
    const arrived = [...stdout.matchAll(/^receiver: (charge\.\w+) verified: charge char_\w+ (\w+)\/(\w+)/gm)].map(
      ([, type, status, paymentStatus]) => `${type} ${status}/${paymentStatus}`,
    );
    expect(arrived, stdout).toEqual([
      'charge.pending OPEN/PENDING',
      'charge.processing OPEN/PROCESSING',
      'charge.paid PAID/PAID',
      'charge.received PAID/RECEIVED',
    ]);
    const attempts = stdout.split('\n').filter((line) => /^charge\.\w+ {2}attempt \d+ {2}\w+ {2}\d+$/.test(line));
    expect(attempts.map((line) => line.split(/ +/)[0]).sort()).toEqual(['charge.paid', 'charge.pending', 'charge.processing', 'charge.received']);
    expect(attempts.every((line) => line.includes('SUCCEEDED  204'))).toBe(true);
    // Nothing the loop signed for someone else reached the receiver, and nothing it registered is left.
    expect(stdout).not.toContain('rejected a delivery');
    expect(stdout).toContain('webhook deleted: 204');
    expect((await registrations()).map((w) => w.url)).toEqual(['http://localhost:9/elsewhere']);
  });
});

import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium, driven by playwright-core (never a browser download). Where it is missing
 * the browser tests are skipped with a notice; CI installs it (.ci/run).
 */
export const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether Chromium is here; prints the notice for `what` when it is not. */
export function haveChromium(what: string): boolean {
  const found = existsSync(executablePath);
  if (!found) console.warn(`NOTICE: no Chromium at ${executablePath} (set CHROMIUM_PATH, or apt-get install chromium); ${what} are skipped.`);
  return found;
}

/** Headless, sandbox-free (we run as root), and quiet: nothing of its own reaches the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

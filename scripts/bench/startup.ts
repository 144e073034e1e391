/**
 * Start-up to the first answered request: from spawn() to the first successful authenticated
 * GET /client, polled every 5 ms. The reference server starts on a fresh, empty database each
 * time (the case where it also has to migrate the schema and create the development company);
 * the key it prints is read from its log as soon as it appears.
 */
import { pollUntil, makeTempDir, readApiKey, removeTempDir, spawnPrism, spawnReference, stopTarget, type Target } from './targets.js';

const POLL_MS = 5;

async function firstSuccessfulList(target: Target, apiKey: string): Promise<void> {
  await pollUntil(target, 'a 2xx answer to GET /client', POLL_MS, async () => {
    const response = await fetch(`${target.baseUrl}/client`, { headers: { 'X-API-KEY': apiKey } });
    await response.arrayBuffer();
    return response.ok ? true : undefined;
  });
}

async function timed(spawnTarget: (dir: string) => Promise<Target>, firstAnswer: (target: Target) => Promise<void>, prefix: string): Promise<number> {
  const dir = makeTempDir(prefix);
  try {
    const started = performance.now();
    const target = await spawnTarget(dir);
    try {
      await firstAnswer(target);
      return performance.now() - started;
    } finally {
      await stopTarget(target);
    }
  } finally {
    removeTempDir(dir);
  }
}

export async function referenceStartupMs(): Promise<number> {
  return timed(spawnReference, async (target) => firstSuccessfulList(target, await readApiKey(target, POLL_MS)), 'bench-startup-reference-');
}

/** Prism only checks that an `X-API-KEY` is present. */
export async function prismStartupMs(): Promise<number> {
  return timed(spawnPrism, (target) => firstSuccessfulList(target, 'sk_bench'), 'bench-startup-prism-');
}

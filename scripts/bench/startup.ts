/**
 * Start-up to the first answered request: from spawn() to the first successful authenticated
 * GET /client, polled every 5 ms. The reference server starts in production mode on a fresh
 * database each time, holding only the company and key the keys command made before the clock
 * starts (production makes no company of its own).
 */
import { join } from 'node:path';
import { createCompany, pollUntil, makeTempDir, removeTempDir, spawnPrism, spawnReference, stopTarget, type Target } from './targets.js';

const POLL_MS = 5;

async function firstSuccessfulList(target: Target, apiKey: string): Promise<void> {
  await pollUntil(target, 'a 2xx answer to GET /client', POLL_MS, async () => {
    const response = await fetch(`${target.baseUrl}/client`, { headers: { 'X-API-KEY': apiKey } });
    await response.arrayBuffer();
    return response.ok ? true : undefined;
  });
}

async function timed(
  spawnTarget: (dir: string) => Promise<Target>,
  firstAnswer: (target: Target) => Promise<void>,
  prefix: string,
  prepare: (dir: string) => void = () => {},
): Promise<number> {
  const dir = makeTempDir(prefix);
  try {
    prepare(dir);
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
  let apiKey = '';
  return timed(
    spawnReference,
    (target) => firstSuccessfulList(target, apiKey),
    'bench-startup-reference-',
    (dir) => {
      apiKey = createCompany({ kind: 'sqlite', path: join(dir, 'bench.db') }, 'Bench company');
    },
  );
}

/** Prism only checks that an `X-API-KEY` is present. */
export async function prismStartupMs(): Promise<number> {
  return timed(spawnPrism, (target) => firstSuccessfulList(target, 'sk_bench'), 'bench-startup-prism-');
}

import { expect, test } from 'vitest';
import { KeyRefusedError, runConformance } from './run.js';
import type { ConformanceOptions } from './types.js';

const options: ConformanceOptions = {
  baseUrl: 'http://target.test',
  baseUrlAlt: 'http://target.test',
  apiKey: 'sk_the_run_key',
  secondApiKey: 'sk_the_second_key',
  profile: 'reference',
  readOnly: false,
  stateless: false,
  timeoutMs: 1_000,
};

/** A target that answers 401 exactly to the keys in `refused`, and 200 `[]` to everything else. */
function target(refused: readonly string[]): { fetch: typeof fetch; sent: string[] } {
  const sent: string[] = [];
  const fetchFn = (async (url: string | URL | Request, init?: RequestInit) => {
    const key = new Headers(init?.headers).get('x-api-key');
    sent.push(`${init?.method ?? 'GET'} ${new URL(String(url)).pathname} ${key ?? '-'}`);
    if (key !== null && refused.includes(key)) return new Response('{"status":401}', { status: 401, headers: { 'content-type': 'application/problem+json' } });
    return new Response('[]', { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  return { fetch: fetchFn, sent };
}

const cases: Array<[string, { refused: string[]; want: string }]> = [
  ['the run key', { refused: ['sk_the_run_key'], want: 'the target refused the API key (401 on GET /client); check --api-key / CONFORMANCE_API_KEY.' }],
  [
    'the second key',
    {
      refused: ['sk_the_second_key'],
      want: 'the target refused the second API key (401 on GET /client); check --second-api-key / CONFORMANCE_SECOND_API_KEY.',
    },
  ],
];

test.each(cases)('a 401 to %s ends the run after the probe and one read per key, before any check', async (_name, { refused, want }) => {
  const { fetch, sent } = target(refused);
  const run = runConformance(options, { fetch });
  await expect(run).rejects.toThrow(KeyRefusedError);
  await expect(run).rejects.toThrow(want);
  expect(sent.length).toBeLessThanOrEqual(3);
  expect(sent.every((line) => line.startsWith('GET /'))).toBe(true);
});

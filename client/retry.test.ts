import { describe, expect, test } from 'vitest';
import { inProgressProblemTypes } from '../generated/client-routes.js';
import { fetchWithRetry, retryAfterMs, type Pacing, type RetryPolicy } from './retry.js';

const policy: RetryPolicy = { attempts: 4, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 10_000 };

/** A scripted answer: a status with optional headers and problem type, or a network failure. */
type Step = { status: number; retryAfter?: string; problemType?: string } | 'network-error';

function answer(step: Step): Response {
  if (step === 'network-error') throw new TypeError('fetch failed');
  const headers = new Headers({ 'Content-Type': 'application/problem+json' });
  if (step.retryAfter !== undefined) headers.set('Retry-After', step.retryAfter);
  const body = step.status >= 400 ? JSON.stringify({ type: step.problemType ?? '/problems/other', title: 't', status: step.status, detail: 'd' }) : '{}';
  return new Response(body, { status: step.status, headers });
}

/** Runs one request through fetchWithRetry against `steps`; what was sent and slept, and how it ended. */
async function run(steps: Step[]) {
  const sent: string[] = [];
  const slept: number[] = [];
  // random() = 1: the backoff is its upper bound, so the waits are exact.
  const pacing: Pacing = { sleep: async (ms) => void slept.push(ms), random: () => 1 };
  let call = 0;
  const fetchFn = async (request: Request) => {
    sent.push(await request.text());
    const step = steps[Math.min(call++, steps.length - 1)]!;
    return answer(step);
  };
  const request = new Request('http://pix.test/charge/payment-link', { method: 'POST', body: '{"total":500}' });
  try {
    const response = await fetchWithRetry(fetchFn, request, policy, pacing);
    return { sent, slept, outcome: response.status };
  } catch (error) {
    return { sent, slept, outcome: (error as Error).message };
  }
}

const inProgress = inProgressProblemTypes[0]!;

describe('fetchWithRetry', () => {
  const cases: Array<[string, { given: Step[]; want: { attempts: number; slept: number[]; outcome: number | string } }]> = [
    ['a success is final', { given: [{ status: 201 }], want: { attempts: 1, slept: [], outcome: 201 } }],
    ['a 422 is final', { given: [{ status: 422 }], want: { attempts: 1, slept: [], outcome: 422 } }],
    [
      'a 409 of another kind is final',
      { given: [{ status: 409, problemType: '/problems/invalid-transition' }], want: { attempts: 1, slept: [], outcome: 409 } },
    ],
    [
      'a 409 in progress is retried with backoff',
      { given: [{ status: 409, problemType: inProgress }, { status: 201 }], want: { attempts: 2, slept: [100], outcome: 201 } },
    ],
    [
      'a 409 in progress as an absolute URI is retried',
      { given: [{ status: 409, problemType: `http://pix.test${inProgress}` }, { status: 201 }], want: { attempts: 2, slept: [100], outcome: 201 } },
    ],
    [
      '5xx backs off exponentially',
      { given: [{ status: 500 }, { status: 502 }, { status: 503 }, { status: 201 }], want: { attempts: 4, slept: [100, 200, 400], outcome: 201 } },
    ],
    ['network errors are retried', { given: ['network-error', 'network-error', { status: 201 }], want: { attempts: 3, slept: [100, 200], outcome: 201 } }],
    ['the last failure is thrown when attempts run out', { given: ['network-error'], want: { attempts: 4, slept: [100, 200, 400], outcome: 'fetch failed' } }],
    ['the last answer is returned when attempts run out', { given: [{ status: 503 }], want: { attempts: 4, slept: [100, 200, 400], outcome: 503 } }],
    [
      '429 waits its Retry-After when longer than the backoff',
      { given: [{ status: 429, retryAfter: '2' }, { status: 201 }], want: { attempts: 2, slept: [2000], outcome: 201 } },
    ],
    [
      '429 waits the backoff when Retry-After is shorter',
      { given: [{ status: 429, retryAfter: '0' }, { status: 201 }], want: { attempts: 2, slept: [100], outcome: 201 } },
    ],
    ['a Retry-After beyond the limit is not waited for', { given: [{ status: 429, retryAfter: '60' }], want: { attempts: 1, slept: [], outcome: 429 } }],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    const { sent, slept, outcome } = await run(given);
    expect(sent).toHaveLength(want.attempts);
    expect(new Set(sent), 'every attempt sends the whole body').toEqual(new Set(['{"total":500}']));
    expect(slept).toEqual(want.slept);
    expect(outcome).toBe(want.outcome);
  });

  test('an aborted request is not retried', async () => {
    const controller = new AbortController();
    let calls = 0;
    const fetchFn = async () => {
      calls++;
      controller.abort();
      throw new DOMException('aborted', 'AbortError');
    };
    const request = new Request('http://pix.test/x', { signal: controller.signal });
    await expect(fetchWithRetry(fetchFn, request, policy, { sleep: async () => {}, random: () => 1 })).rejects.toThrow(/aborted/);
    expect(calls).toBe(1);
  });

  test('the jitter draws each wait between zero and the backoff', async () => {
    const slept: number[] = [];
    const pacing: Pacing = { sleep: async (ms) => void slept.push(ms), random: () => 0.25 };
    await fetchWithRetry(async () => answer({ status: 500 }), new Request('http://pix.test/x'), policy, pacing);
    expect(slept).toEqual([25, 50, 100]);
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-05-01T12:00:00Z');
  const cases: Array<[string, { given: string | null; want: number | undefined }]> = [
    ['absent', { given: null, want: undefined }],
    ['seconds', { given: '3', want: 3000 }],
    ['an HTTP date', { given: 'Fri, 01 May 2026 12:00:05 GMT', want: 5000 }],
    ['a date in the past', { given: 'Fri, 01 May 2026 11:00:00 GMT', want: 0 }],
    ['garbage', { given: 'soon', want: undefined }],
  ];
  test.each(cases)('%s', (_name, { given, want }) => expect(retryAfterMs(given, now)).toBe(want));
});

/**
 * idempotency_replay against the in-process reference server (passes in both profiles),
 * against broken wrappers of it (fails; info in the seed profile where only D10 is broken),
 * and in --stateless / --read-only runs (skips with the reason).
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import type { Profile } from '../engine/types.js';
import { idempotencyCheck, idempotentOperations } from './idempotency.js';
import { readOnlyReason, statelessReason } from './stateful.js';
import { contextOn, is, rewriteJson, serverPerTest, verdict, withRequest, type Wrapper } from './stateful-test-support.js';

const check = 'idempotency_replay';
const op = 'createPaymentLink';
const paymentLink = /^\/charge\/payment-link$/;

const server = serverPerTest();

/** Changes answers to payment-link requests that carry a key (`replay`: answers marked as replays only). */
function onAnswer(edit: (response: Response, request: Request) => Promise<Response>, only: 'replay' | 'all' = 'all'): Wrapper {
  return async (request, next) => {
    const response = await next(request);
    if (!is(request, 'POST', paymentLink)) return response;
    if (only === 'replay' && response.headers.get('idempotent-replayed') !== 'true') return response;
    return edit(response, request);
  };
}

/** Drops the key from a payment-link request, always or when its body differs from the first body sent with that key. */
function dropKey(when: 'always' | 'other body'): Wrapper {
  const firstBody = new Map<string, string>();
  return async (request, next) => {
    const key = request.headers.get('idempotency-key');
    if (!is(request, 'POST', paymentLink) || key === null) return next(request);
    const text = await request.clone().text();
    if (!firstBody.has(key)) firstBody.set(key, text);
    const drop = when === 'always' || firstBody.get(key) !== text;
    return next(drop ? await withRequest(request, { headers: (h) => h.delete('idempotency-key') }) : request);
  };
}

describe('idempotency_replay', () => {
  test('finds the operations that declare an Idempotency-Key header in the contract', async () => {
    const ctx = await contextOn(server, { fixtures: false });
    const found = idempotentOperations(ctx).map((o) => [o.op.operationId, o.parameter.name]);
    expect(found).toContainEqual([op, 'Idempotency-Key']);
    // Exactly the contract's operations that name the header, whatever their number.
    const declared = ctx.operations.filter((o) => JSON.stringify(o.operation.parameters ?? []).includes('IdempotencyKey'));
    expect(found.map(([id]) => id)).toEqual(declared.map((o) => o.operationId));
  });

  test.each<Profile>(['seed', 'reference'])('passes on the reference server (%s profile), with a run-tagged key', async (profile) => {
    const ctx = await contextOn(server, { profile });
    const before = ctx.exchanges.length;
    await idempotencyCheck.run(ctx);
    const got = verdict(ctx, op, check);
    expect(got, got.messages.join('\n')).toMatchObject({ outcome: 'pass' });
    expect(got.messages.join('\n')).toMatch(/refused with 422/);
    // The payment link's requests (every other operation that takes a key is judged too).
    const sent = ctx.exchanges.slice(before).filter((e) => e.operationId === op);
    const keys = sent.map((e) => e.request.headers['Idempotency-Key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(new RegExp(`^${ctx.runId}-`));
    expect(sent.every((e) => JSON.parse(e.request.body!).devMode === true)).toBe(true);
    expect(sent.every((e) => JSON.parse(e.request.body!).externalId.includes(ctx.runId))).toBe(true);
  });

  // A broken deployment and what the check reports, per profile.
  const broken: Array<[string, { given: () => Wrapper; want: { seed: string; reference: string; message: RegExp } }]> = [
    [
      'no replay: the retry creates a second charge',
      { given: () => dropKey('always'), want: { seed: 'fail', reference: 'fail', message: /did not return the first response's body: `id` is "char_/ } },
    ],
    [
      'the replay answers another status',
      {
        given: () => onAnswer(async (r) => rewriteJson(r, (j) => j, 200), 'replay'),
        want: { seed: 'fail', reference: 'fail', message: /answered 200, the first request 201/ },
      },
    ],
    [
      'the replay answers another total',
      {
        given: () => onAnswer(async (r) => rewriteJson(r, (j) => ({ ...(j as object), data: { ...(j as { data: object }).data, total: 1 } })), 'replay'),
        want: { seed: 'fail', reference: 'fail', message: /`total` is 1/ },
      },
    ],
    // D10: byte for byte, and the Idempotent-Replayed marker.
    [
      'the replay is the same JSON written differently',
      {
        given: () =>
          onAnswer(async (r) => {
            const headers = new Headers(r.headers);
            headers.delete('content-length');
            return new Response(JSON.stringify(JSON.parse(await r.text()), null, 2), { status: r.status, headers });
          }, 'replay'),
        want: { seed: 'info', reference: 'fail', message: /same JSON but not byte for byte/ },
      },
    ],
    [
      'the replay is not marked Idempotent-Replayed',
      {
        given: () =>
          onAnswer(async (r) => {
            const headers = new Headers(r.headers);
            headers.delete('idempotent-replayed');
            return new Response(await r.text(), { status: r.status, headers });
          }, 'replay'),
        want: { seed: 'info', reference: 'fail', message: /does not carry `Idempotent-Replayed: true`/ },
      },
    ],
    [
      'a first answer is marked Idempotent-Replayed',
      {
        given: () =>
          onAnswer(async (r) => {
            const headers = new Headers(r.headers);
            headers.set('idempotent-replayed', 'true');
            return new Response(await r.text(), { status: r.status, headers });
          }),
        want: { seed: 'info', reference: 'fail', message: /first response to a new Idempotency-Key is marked/ },
      },
    ],
    [
      'the key reused with another body is accepted',
      { given: () => dropKey('other body'), want: { seed: 'info', reference: 'fail', message: /different body was accepted \(201\)/ } },
    ],
    [
      'the key reused with another body is 409, not 422',
      {
        given: () => onAnswer(async (r) => (r.status === 422 ? rewriteJson(r, (j) => j, 409) : r)),
        want: { seed: 'info', reference: 'fail', message: /refused with 409, not 422/ },
      },
    ],
    [
      'the key reused with another body is a server error',
      {
        given: () => onAnswer(async (r) => (r.status === 422 ? new Response('boom', { status: 500 }) : r)),
        want: { seed: 'info', reference: 'fail', message: /different body answered 500 instead of being refused/ },
      },
    ],
  ];
  describe.each<Profile>(['seed', 'reference'])('%s profile', (profile) => {
    test.each(broken)('%s', async (_name, { given, want }) => {
      const ctx = await contextOn(server, { profile, wrap: given() });
      await idempotencyCheck.run(ctx);
      const got = verdict(ctx, op, check);
      expect(got, got.messages.join('\n')).toMatchObject({ outcome: want[profile] });
      expect(got.messages.join('\n')).toMatch(want.message);
      if (want[profile] === 'info') expect(got.messages.filter((m) => m.startsWith('info')).every((m) => m.startsWith('info (D10)'))).toBe(true);
    });
  });

  test('a first request that fails is a skip with its status', async () => {
    const ctx = await contextOn(server, {
      wrap: async (request, next) => (is(request, 'POST', paymentLink) ? new Response('{}', { status: 400 }) : next(request)),
    });
    await idempotencyCheck.run(ctx);
    expect(verdict(ctx, op, check)).toMatchObject({ outcome: 'skip', skipReason: expect.stringMatching(/first request with Idempotency-Key answered 400/) });
  });

  const skips: Array<[string, { given: { stateless?: boolean; readOnly?: boolean }; want: string }]> = [
    ['--stateless', { given: { stateless: true }, want: statelessReason }],
    ['--read-only', { given: { readOnly: true }, want: readOnlyReason }],
  ];
  test.each(skips)('%s skips with the reason, sending nothing', async (_name, { given, want }) => {
    const ctx = await contextOn(server, given);
    await idempotencyCheck.run(ctx);
    expect(verdict(ctx, op, check)).toEqual({ outcome: 'skip', messages: [], skipReason: want });
    expect(ctx.exchanges).toEqual([]);
  });
});

/**
 * negative_data_rejection against the in-process reference server (passes in both
 * profiles), against a deployment that holds requests to the seed only (info in the seed
 * profile, naming the decision; fail in the reference profile), against broken wrappers
 * (an accepted seed violation or a 5xx fails), on query parameters (out of range, a word for a
 * number, a malformed cursor, one the operation does not declare), and in --read-only /
 * --stateless runs.
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { ContractValidator } from '../../lib/contract/ajv.js';
import { listOperations, loadBundledContract } from '../../lib/contract/bundled.js';
import { requestBodyOf } from '../data/schema.js';
import { giveFixtures } from '../test-support/fixtures.js';
import { RunContext } from '../engine/context.js';
import { seedView } from '../engine/seed-view.js';
import type { Profile } from '../engine/types.js';
import { negativeCheck } from './negative.js';
import { getOnlyReason as readOnlyReason } from './stateful.js';
import { contextOn, is, serverPerTest, verdict, type Wrapper } from './stateful-test-support.js';
import { pathPattern } from '../../lib/contract/paths.js';

const check = 'negative_data_rejection';
const bodyOperations = ['createPaymentLink', 'createClient', 'updateSubscription', 'createSubscription', 'createProduct', 'createOrder'];

const server = serverPerTest();

/**
 * A deployment that checks request bodies against the seed only (the contract with its
 * decisions stripped): 422 when the seed is broken, else 201 with an id. It ignores headers.
 */
function seedOnlyDeployment(): typeof fetch {
  const contract = loadBundledContract();
  const seed = new ContractValidator(seedView(contract));
  const operations = listOperations(contract);
  return (async (input: string, init?: RequestInit) => {
    const method = (init?.method ?? 'GET').toLowerCase();
    const path = new URL(input).pathname;
    const op = operations.find((o) => o.method === method && pathPattern(o.path).test(path));
    const info = op && requestBodyOf(contract, op);
    const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
    if (!info) return json(404, {});
    return seed.at(info.pointer)(JSON.parse(String(init?.body))) ? json(201, { id: 'subs_seedonly000000000000000' }) : json(422, { detail: 'breaks the seed' });
  }) as unknown as typeof fetch;
}

function seedOnlyContext(profile: Profile, stateless = false): RunContext {
  const ctx = new RunContext(
    { baseUrl: 'http://seed.test', baseUrlAlt: 'http://seed.test', apiKey: 'k', profile, readOnly: false, stateless, timeoutMs: 1000, runId: 'confseedonly' },
    { fetch: seedOnlyDeployment() },
  );
  giveFixtures(ctx, {
    productId: 'prod_seedonlyproduct0000000',
    subscriptionProductId: 'prod_seedonlysubscription00',
    clientId: 'clnt_seedonlyclient00000000',
    companyId: 'comp_seedonlycompany0000000',
  });
  return ctx;
}

describe('negative_data_rejection', () => {
  test.each<Profile>(['seed', 'reference'])(
    'passes on the reference server (%s profile); GET operations without query parameters have nothing to break',
    async (profile) => {
      const ctx = await contextOn(server, { profile });
      await negativeCheck.run(ctx);
      for (const op of bodyOperations) {
        const got = verdict(ctx, op, check);
        expect(got.outcome, `${op}:\n${got.messages.filter((m) => !m.startsWith('pass')).join('\n')}`).toBe('pass');
        expect(got.messages.length, op).toBeGreaterThan(20);
      }
      for (const op of ['getCharge', 'getWebhook'])
        expect(verdict(ctx, op, check)).toMatchObject({ outcome: 'skip', skipReason: expect.stringMatching(/no request body, header or query parameter/) });
      expect(verdict(ctx, 'listClients', check).outcome).toBe('pass');
      expect(verdict(ctx, 'createPaymentLink', check).messages).toContain('pass: /customer/taxId: wrong check digit (breaks decision D23): refused (422)');
    },
  );

  test.each<[string, { given: { profile: Profile; stateless?: boolean }; want: { outcome: string; decisions: string[] } }]>([
    [
      'a seed-only deployment departs from decisions only: info in the seed profile',
      {
        given: { profile: 'seed' },
        want: { outcome: 'info', decisions: ['D09', 'D10', 'D13', 'D17', 'D18', 'D22', 'D23', 'D24', 'D25', 'D26', 'D29', 'D44', 'D46', 'D47', 'D49'] },
      },
    ],
    ['the same deployment fails the reference profile', { given: { profile: 'reference' }, want: { outcome: 'fail', decisions: [] } }],
    [
      '--stateless: the mutations are sent all the same',
      {
        given: { profile: 'seed', stateless: true },
        want: { outcome: 'info', decisions: ['D09', 'D10', 'D13', 'D17', 'D18', 'D22', 'D23', 'D24', 'D25', 'D26', 'D29', 'D44', 'D46', 'D47', 'D49'] },
      },
    ],
  ])('%s', async (_name, { given, want }) => {
    const ctx = seedOnlyContext(given.profile, given.stateless);
    await negativeCheck.run(ctx);
    const decisions = new Set<string>();
    for (const op of bodyOperations) {
      const result = ctx.recorder.results([op]).find((r) => r.check === check)!;
      expect(result.outcome, op).toBe(want.outcome);
      // Seed violations were refused (pass); only decision departures were accepted.
      for (const finding of result.findings) {
        if (finding.outcome === 'pass') expect(finding.message).toMatch(/breaks the seed\): refused \(422\)/);
        else expect(finding.message).toMatch(/breaks decision D\d\d\): an invalid request was accepted \(201\)/);
        if (finding.outcome === 'info') decisions.add(finding.decision!);
      }
    }
    expect([...decisions].sort()).toEqual(want.decisions);
  });

  test.each<[string, { given: { profile: Profile; wrap: Wrapper; operationId: string }; want: { outcome: string; message: RegExp } }]>([
    [
      'a total below the seed minimum accepted (raised to 500) fails, in the seed profile too',
      {
        given: {
          profile: 'seed',
          operationId: 'createPaymentLink',
          wrap: async (request, next) => {
            if (!is(request, 'POST', /^\/charge\/payment-link$/)) return next(request);
            const body = JSON.parse(await request.text());
            if (body.total < 500) body.total = 500;
            return next(new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(body) }));
          },
        },
        want: { outcome: 'fail', message: /^fail: \/total: below minimum 500 \(breaks the seed\): an invalid request was accepted \(201\)$/m },
      },
    ],
    [
      'a 5xx on an unknown field fails, though only D22 is broken',
      {
        given: {
          profile: 'seed',
          operationId: 'createProduct',
          wrap: async (request, next) =>
            is(request, 'POST', /^\/product$/) && (await request.clone().text()).includes('conformanceUnknownField')
              ? new Response('boom', { status: 500 })
              : next(request),
        },
        want: { outcome: 'fail', message: /^fail: \/: unknown property \(breaks decision D22\): expected a 4xx refusal, got 500$/m },
      },
    ],
    [
      'unchecked tax-id check digits: info naming D23 in the seed profile',
      {
        given: {
          profile: 'seed',
          operationId: 'createClient',
          // The deployment "repairs" the check digit instead of refusing it.
          wrap: async (request, next) => {
            if (!is(request, 'POST', /^\/client$/)) return next(request);
            const body = JSON.parse(await request.text());
            if (body.cpfCnpj === '52998224726') body.cpfCnpj = '52998224725';
            return next(new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(body) }));
          },
        },
        want: { outcome: 'info', message: /^info \(D23\): \/cpfCnpj: wrong check digit \(breaks decision D23\): an invalid request was accepted \(201\)$/m },
      },
    ],
    ...(['seed', 'reference'] as const).map(
      (profile): [string, { given: { profile: Profile; wrap: Wrapper; operationId: string }; want: { outcome: string; message: RegExp } }] => [
        `schema-invalid JSON refused with 400, not 422: ${profile === 'seed' ? 'info naming D02 in the seed profile' : 'fails the reference profile'}`,
        {
          given: {
            profile,
            operationId: 'createProduct',
            wrap: async (request, next) => {
              const response = await next(request);
              return is(request, 'POST', /^\/product$/) && response.status === 422
                ? new Response(response.body, { status: 400, headers: response.headers })
                : response;
            },
          },
          want: {
            outcome: profile === 'seed' ? 'info' : 'fail',
            message: new RegExp(
              `^${profile === 'seed' ? 'info \\(D02\\)' : 'fail'}: a body that parses but breaks the schema refused with 400, not 422 \\(a validation failure is 422, decision D02; 400 is for malformed JSON, D34\\)$`,
              'm',
            ),
          },
        },
      ],
    ),
  ])('%s', async (_name, { given, want }) => {
    const ctx = await contextOn(server, { profile: given.profile, wrap: given.wrap, only: [given.operationId] });
    await negativeCheck.run(ctx);
    const got = verdict(ctx, given.operationId, check);
    expect(got.outcome, got.messages.filter((m) => !m.startsWith('pass')).join('\n')).toBe(want.outcome);
    expect(got.messages.join('\n')).toMatch(want.message);
  });

  test('--only updateSubscription mutates a body naming a subscription the run created', async () => {
    const ctx = await contextOn(server, { only: ['updateSubscription'] });
    await negativeCheck.run(ctx);
    expect(verdict(ctx, 'updateSubscription', check).outcome).toBe('pass');
    const created = ctx.exchanges.find((e) => e.operationId === 'createSubscription')!;
    const id = JSON.parse(created.response!.body).id;
    const withId = ctx.exchanges
      .filter((e) => e.operationId === 'updateSubscription')
      .map((e) => JSON.parse(e.request.body!).id)
      .filter((v) => v !== undefined);
    expect(withId.filter((v) => v === id).length).toBeGreaterThan(20);
  });

  test('--read-only: only GETs are sent (the query parameters of listClients), every body operation skips with the reason', async () => {
    const ctx = await contextOn(server, { readOnly: true });
    await negativeCheck.run(ctx);
    expect(ctx.exchanges.map((e) => e.request.method)).toEqual(ctx.exchanges.map(() => 'GET'));
    expect(verdict(ctx, 'listClients', check).outcome).toBe('pass');
    for (const op of bodyOperations) expect(verdict(ctx, op, check)).toMatchObject({ outcome: 'skip', skipReason: readOnlyReason });
  });
});

describe('negative_data_rejection on query parameters (listClients: limit and after, D48; others ignored, D08)', () => {
  test.each<Profile>(['seed', 'reference'])(
    'the reference server refuses each broken value with 422 and ignores an undeclared one (%s profile)',
    async (profile) => {
      const ctx = await contextOn(server, { profile, only: ['listClients'] });
      await negativeCheck.run(ctx);
      const got = verdict(ctx, 'listClients', check);
      expect(got.outcome, got.messages.join('\n')).toBe('pass');
      expect(got.messages).toEqual([
        'pass: query limit=0: below minimum 1 (breaks decision D48): refused (422)',
        'pass: query limit=1001: above maximum 1000 (breaks decision D48): refused (422)',
        'pass: query limit=100.5: fraction for integer (breaks decision D48): refused (422)',
        'pass: query limit=ten: a word instead of integer (breaks decision D48): refused (422)',
        'pass: query after="MjAyNi0xMS0yMVQx…I2M2Ez x" (74 characters): breaks pattern (breaks decision D48): refused (422)',
        'pass: query after="MjAyNi0xMS0yMVQx…xxxxxxxx" (129 characters): over maxLength 128 (breaks decision D48): refused (422)',
        'pass: query after="": under minLength 1 (breaks decision D48): refused (422)',
        'pass: query conformanceUnknownParameter=x: not a parameter of listClients (ignored, decision D08): answered as without it (200)',
      ]);
      // Each value went out in the URL, one parameter at a time.
      const sent = ctx.exchanges.filter((e) => e.operationId === 'listClients').map((e) => new URL(e.request.url).search);
      expect(sent.slice(0, 4)).toEqual(['?limit=0', '?limit=1001', '?limit=100.5', '?limit=ten']);
      expect(sent.at(-1)).toBe('?conformanceUnknownParameter=x');
    },
  );

  /** Answers every GET /client as the reference server answers it without the query parameters named by `drop` (all when undefined). */
  const ignoring =
    (drop?: string): Wrapper =>
    (request, next) => {
      if (!is(request, 'GET', /^\/client$/)) return next(request);
      const url = new URL(request.url);
      if (drop) url.searchParams.delete(drop);
      else url.search = '';
      return next(new Request(url, request));
    };
  /** Answers GET /client with `status` when a query parameter `name` (with `value`, if given) is sent. */
  const answering =
    (status: number, name: string, value?: string): Wrapper =>
    (request, next) => {
      const params = new URL(request.url).searchParams;
      const hit = is(request, 'GET', /^\/client$/) && params.has(name) && (value === undefined || params.get(name) === value);
      return hit ? Promise.resolve(Response.json({ detail: 'refused here' }, { status })) : next(request);
    };

  test.each<[string, { given: { profile: Profile; wrap: Wrapper }; want: { outcome: string; messages: RegExp[]; count?: { outcome: string; n: number } } }]>([
    [
      'paging ignored, as a service built from the seed (which shows no query parameters) may: info naming D48 in the seed profile',
      {
        given: { profile: 'seed', wrap: ignoring() },
        want: {
          outcome: 'info',
          messages: [
            /^info \(D48\): query limit=0: below minimum 1 \(breaks decision D48\): an invalid request was accepted \(200\)$/m,
            /^info \(D48\): query limit=ten: a word instead of integer \(breaks decision D48\): an invalid request was accepted \(200\)$/m,
            /^info \(D48\): query after="MjAy.*" \(74 characters\): breaks pattern \(breaks decision D48\): an invalid request was accepted \(200\)$/m,
            /^pass: query conformanceUnknownParameter=x: .*answered as without it \(200\)$/m,
          ],
          count: { outcome: 'info', n: 7 },
        },
      },
    ],
    [
      'the same deployment fails the reference profile',
      {
        given: { profile: 'reference', wrap: ignoring() },
        want: { outcome: 'fail', messages: [/^fail: query limit=1001: above maximum 1000 .*accepted \(200\)$/m], count: { outcome: 'fail', n: 7 } },
      },
    ],
    [
      'a malformed cursor accepted (only `limit` checked): info naming D48, the other values refused',
      {
        given: { profile: 'seed', wrap: ignoring('after') },
        want: {
          outcome: 'info',
          messages: [/^pass: query limit=0: .*refused \(422\)$/m, /^info \(D48\): query after="": under minLength 1 .*accepted \(200\)$/m],
          count: { outcome: 'info', n: 3 },
        },
      },
    ],
    [
      'a 5xx on limit=0 fails in the seed profile too, naming the parameter and value',
      {
        given: { profile: 'seed', wrap: answering(500, 'limit', '0') },
        want: {
          outcome: 'fail',
          messages: [/^fail: query limit=0: below minimum 1 \(breaks decision D48\): expected a 4xx refusal, got 500: refused here$/m],
          count: { outcome: 'fail', n: 1 },
        },
      },
    ],
    [
      'an undeclared query parameter refused with 400: info naming D08 in the seed profile',
      {
        given: { profile: 'seed', wrap: answering(400, 'conformanceUnknownParameter') },
        want: {
          outcome: 'info',
          messages: [
            /^info \(D08\): query conformanceUnknownParameter=x: not a parameter of listClients \(ignored, decision D08\): refused \(400: refused here\)$/m,
          ],
          count: { outcome: 'info', n: 1 },
        },
      },
    ],
    [
      'the same refusal fails the reference profile',
      {
        given: { profile: 'reference', wrap: answering(400, 'conformanceUnknownParameter') },
        want: { outcome: 'fail', messages: [/^fail: query conformanceUnknownParameter=x: .*refused \(400/m] },
      },
    ],
    [
      'a 5xx on an undeclared query parameter fails in the seed profile',
      {
        given: { profile: 'seed', wrap: answering(503, 'conformanceUnknownParameter') },
        want: { outcome: 'fail', messages: [/^fail: query conformanceUnknownParameter=x: .*expected the answer without it, got 503: refused here$/m] },
      },
    ],
  ])('%s', async (_name, { given, want }) => {
    const ctx = await contextOn(server, { profile: given.profile, wrap: given.wrap, only: ['listClients'] });
    await negativeCheck.run(ctx);
    const got = verdict(ctx, 'listClients', check);
    expect(got.outcome, got.messages.join('\n')).toBe(want.outcome);
    for (const message of want.messages) expect(got.messages.join('\n')).toMatch(message);
    if (want.count) expect(got.messages.filter((m) => m.startsWith(want.count!.outcome)).length, got.messages.join('\n')).toBe(want.count.n);
  });
});

/**
 * negative_data_rejection against the in-process reference server (passes in both
 * profiles), against a deployment that holds requests to the seed only (info in the seed
 * profile, naming the decision; fail in the reference profile), against broken wrappers
 * (an accepted seed violation or a 5xx fails), and in --read-only / --stateless runs.
 */
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ContractValidator } from '../../lib/contract/ajv.js';
import { listOperations, loadBundledContract } from '../../lib/contract/bundled.js';
import type { TestServer } from '../../server/test-support/harness.js';
import { requestBodyOf } from '../data/schema.js';
import { giveFixtures } from '../test-support/fixtures.js';
import { RunContext } from '../engine/context.js';
import { seedView } from '../engine/seed-view.js';
import type { Profile } from '../engine/types.js';
import { negativeCheck } from './negative.js';
import { getOnlyReason as readOnlyReason } from './stateful.js';
import { contextOn, is, startServer, verdict, type Wrapper } from './stateful-test-support.js';
import { pathPattern } from '../../lib/contract/paths.js';

const check = 'negative_data_rejection';
const bodyOperations = ['createPaymentLink', 'createClient', 'updateSubscription', 'createSubscription', 'createProduct', 'createOrder'];

let server: TestServer;
beforeEach(async () => {
  server = await startServer();
});
afterEach(async () => {
  await server.close();
});

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
  test.each<Profile>(['seed', 'reference'])('passes on the reference server (%s profile); GET operations have nothing to break', async (profile) => {
    const ctx = await contextOn(server, { profile });
    await negativeCheck.run(ctx);
    for (const op of bodyOperations) {
      const got = verdict(ctx, op, check);
      expect(got.outcome, `${op}:\n${got.messages.filter((m) => !m.startsWith('pass')).join('\n')}`).toBe('pass');
      expect(got.messages.length, op).toBeGreaterThan(20);
    }
    for (const op of ['getCharge', 'listClients', 'getWebhook'])
      expect(verdict(ctx, op, check)).toMatchObject({ outcome: 'skip', skipReason: expect.stringMatching(/no request body or header parameter/) });
    expect(verdict(ctx, 'createPaymentLink', check).messages).toContain('pass: /customer/taxId: wrong check digit (breaks decision D23): refused (422)');
  });

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

  test('--read-only: nothing is sent, every body operation skips with the reason', async () => {
    const ctx = await contextOn(server, { readOnly: true });
    await negativeCheck.run(ctx);
    expect(ctx.exchanges).toEqual([]);
    for (const op of bodyOperations) expect(verdict(ctx, op, check)).toMatchObject({ outcome: 'skip', skipReason: readOnlyReason });
  });
});

/**
 * ensure_resource_availability against the in-process reference server (passes in both
 * profiles), against broken wrappers of it (fails, or info for a decision in the seed profile),
 * and in --stateless / --read-only runs (skips with the reason).
 *
 * @operation-wide: it enumerates the contract's operations, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { loadBundledContract, type JsonObject } from '../../lib/contract/bundled.js';
import type { Profile } from '../engine/types.js';
import { listLinks } from '../../lib/contract/links.js';
import { availabilityCheck, availabilityLinks } from './availability.js';
import { readOnlyReason, statelessReason } from './stateful.js';
import { contextOn, is, rewriteJson, serverPerTest, verdict, type Wrapper } from './stateful-test-support.js';

const check = 'ensure_resource_availability';
/** The creating operations the check follows, and what it reads each back with: the contract's links, as the check finds them. */
const links = availabilityLinks(listLinks(loadBundledContract()));
const operations = [...new Set(links.map((link) => link.source.operationId))];

const server = serverPerTest();

const charge = /^\/charge\/[^/]+$/;
const clients = /^\/client$/;
/** A client read by its id: a read the seed does not list (x-decision D37 on getClient), answering the list form. */
const client = /^\/client\/[^/]+$/;
const subscription = /^\/subscription$/;
/** A product read by its id: a read the seed does not list (x-decision D37 on getProduct). */
const product = /^\/product\/[^/]+$/;

/** Edits the `data` of a GET /charge/{id} answer. */
const chargeData =
  (edit: (data: Record<string, unknown>) => void): Wrapper =>
  async (request, next) => {
    const response = await next(request);
    if (!is(request, 'GET', charge) || response.status !== 200) return response;
    return rewriteJson(response, (json) => {
      edit((json as { data: Record<string, unknown> }).data);
      return json;
    });
  };

/** Remembers the ids POST /client answered and hides them from GET /client. */
function hideCreatedClients(): Wrapper {
  const created = new Set<string>();
  return async (request, next) => {
    const response = await next(request);
    if (is(request, 'POST', clients) && response.status === 201) created.add(((await response.clone().json()) as { id: string }).id);
    if (!is(request, 'GET', clients)) return response;
    return rewriteJson(response, (list) => (list as Array<{ id: string }>).filter((c) => !created.has(c.id)));
  };
}

const notFound: Wrapper = async (request, next) =>
  is(request, 'GET', charge)
    ? new Response(JSON.stringify({ type: '/problems/not-found', title: 'Not found', status: 404, detail: 'x' }), {
        status: 404,
        headers: { 'content-type': 'application/problem+json' },
      })
    : next(request);

describe('ensure_resource_availability', () => {
  test.each<Profile>(['seed', 'reference'])('passes on the reference server (%s profile)', async (profile) => {
    const ctx = await contextOn(server, { profile });
    await availabilityCheck.run(ctx);
    for (const op of operations) expect(verdict(ctx, op, check), op).toMatchObject({ outcome: 'pass' });
    expect(verdict(ctx, 'createPaymentLink', check).messages.join()).toMatch(/total/);
  });

  test('a link added to the contract is followed, with no edit in conformance/', async () => {
    const contract = structuredClone(loadBundledContract());
    const created = ((((contract.paths as JsonObject)['/webhook'] as JsonObject).post as JsonObject).responses as JsonObject)['201'] as JsonObject;
    created.links = { ...(created.links as JsonObject), ListWebhooks: { operationId: 'listWebhooks' } };
    const ctx = await contextOn(server, { profile: 'reference', contract });
    await availabilityCheck.run(ctx);
    expect(verdict(ctx, 'createWebhook', check)).toMatchObject({
      outcome: 'pass',
      messages: expect.arrayContaining([expect.stringMatching(/^pass: GET \/webhook lists the record just created/)]),
    });
  });

  // A broken deployment: which operation's check must report what, per profile.
  const broken: Array<[string, { given: Wrapper; want: { op: string; seed: string; reference: string; message: RegExp } }]> = [
    [
      'the new charge is 404',
      { given: notFound, want: { op: 'createPaymentLink', seed: 'fail', reference: 'fail', message: /answered 404 for the record just created/ } },
    ],
    [
      'the charge reads another total',
      {
        given: chargeData((d) => {
          d.total = Number(d.total) + 100;
        }),
        want: { op: 'createPaymentLink', seed: 'fail', reference: 'fail', message: /`total` reads/ },
      },
    ],
    [
      'the charge reads another id',
      {
        given: chargeData((d) => {
          d.id = 'char_somethingelse';
        }),
        want: { op: 'createPaymentLink', seed: 'fail', reference: 'fail', message: /`id` reads/ },
      },
    ],
    [
      'the charge has no id',
      { given: chargeData((d) => void delete d.id), want: { op: 'createPaymentLink', seed: 'fail', reference: 'fail', message: /lacks `id`/ } },
    ],
    // Charge.externalId is a decision as a whole (x-decision: D21): the seed's charge has no such
    // field, so a read without it is information under the seed profile; a read showing it with
    // another value than the one sent has lost data, which fails in every profile, naming no decision.
    [
      'the charge reads another externalId (D21 decides its presence, not its value)',
      {
        given: chargeData((d) => {
          d.externalId = 'someone-else';
        }),
        want: { op: 'createPaymentLink', seed: 'fail', reference: 'fail', message: /^fail: GET \/charge\/\S+: `externalId` reads "someone-else", sent "/m },
      },
    ],
    [
      'the charge drops externalId (D21)',
      { given: chargeData((d) => void delete d.externalId), want: { op: 'createPaymentLink', seed: 'info', reference: 'fail', message: /lacks `externalId`/ } },
    ],
    [
      'the new client is not listed',
      { given: hideCreatedClients(), want: { op: 'createClient', seed: 'fail', reference: 'fail', message: /is not among the/ } },
    ],
    [
      'the list shows another tax number',
      {
        given: async (request, next) => {
          const response = await next(request);
          return is(request, 'GET', clients)
            ? rewriteJson(response, (list) => (list as Array<Record<string, unknown>>).map((c) => ({ ...c, taxId: '11444777000161' })))
            : response;
        },
        want: { op: 'createClient', seed: 'fail', reference: 'fail', message: /`taxId` reads "11444777000161"/ },
      },
    ],
    // The read by id answers the list form, as the contract's Client says: the `cpfCnpj` sent is its `taxId`.
    [
      'the client read by id shows another tax number',
      {
        given: async (request, next) => {
          const response = await next(request);
          return is(request, 'GET', client) ? rewriteJson(response, (c) => ({ ...(c as object), taxId: '11444777000161' })) : response;
        },
        want: { op: 'createClient', seed: 'fail', reference: 'fail', message: /^fail: GET \/client\/clnt_\w+: `taxId` reads "11444777000161", sent "/m },
      },
    ],
    [
      'the list drops a required name',
      {
        given: async (request, next) => {
          const response = await next(request);
          return is(request, 'GET', clients)
            ? rewriteJson(response, (list) => (list as Array<Record<string, unknown>>).map(({ name: _name, ...c }) => c))
            : response;
        },
        want: { op: 'createClient', seed: 'fail', reference: 'fail', message: /lacks `name`/ },
      },
    ],
    [
      'the list fails',
      {
        given: async (request, next) => (is(request, 'GET', clients) ? new Response('oops', { status: 500 }) : next(request)),
        want: { op: 'createClient', seed: 'fail', reference: 'fail', message: /answered 500/ },
      },
    ],
    [
      'the update keeps the old status',
      {
        given: async (request, next) => {
          const response = await next(request);
          return is(request, 'PUT', subscription) ? rewriteJson(response, (s) => ({ ...(s as object), status: 'PENDING' })) : response;
        },
        want: { op: 'createSubscription', seed: 'fail', reference: 'fail', message: /`status` reads "PENDING"/ },
      },
    ],
    [
      'the update does not find the new subscription',
      {
        given: async (request, next) =>
          is(request, 'PUT', subscription) ? new Response('{}', { status: 404, headers: { 'content-type': 'application/json' } }) : next(request),
        want: { op: 'createSubscription', seed: 'fail', reference: 'fail', message: /answered 404 for the record just created/ },
      },
    ],
    // The record is read back through an operation the seed does not list (getProduct, D37): a
    // read that is not there is information under the seed profile, though it is recorded on the
    // create; a read that is there and shows another value than the one sent has lost data, which
    // fails whichever operation shows it.
    [
      'a deployment without the reads by id the contract adds (GET /product/{id} is 404)',
      {
        given: async (request, next) => (is(request, 'GET', product) ? new Response('not here', { status: 404 }) : next(request)),
        want: {
          op: 'createProduct',
          seed: 'info',
          reference: 'fail',
          message: /^(info \(D37\)|fail): GET \/product\/\S+ answered 404 for the record just created$/m,
        },
      },
    ],
    [
      'the read by id shows another price',
      {
        given: async (request, next) => {
          const response = await next(request);
          return is(request, 'GET', product) ? rewriteJson(response, (p) => ({ ...(p as object), price: 1 })) : response;
        },
        want: {
          op: 'createProduct',
          seed: 'fail',
          reference: 'fail',
          message: /^fail: GET \/product\/\S+: `price` reads 1, sent (?!1$)\d+(\.\d+)?$/m,
        },
      },
    ],
  ];
  describe.each<Profile>(['seed', 'reference'])('%s profile', (profile) => {
    test.each(broken)('%s', async (_name, { given, want }) => {
      const ctx = await contextOn(server, { profile, wrap: given });
      await availabilityCheck.run(ctx);
      const got = verdict(ctx, want.op, check);
      expect(got, got.messages.join('\n')).toMatchObject({ outcome: want[profile] });
      expect(got.messages.filter((m) => !m.startsWith('pass')).join('\n')).toMatch(want.message);
    });
  });

  test('a failure found on a read or a list carries the request that wrote the value, so its curl line makes the fault again', async () => {
    const swapped = chargeData((d) => {
      [d.successUrl, d.failedUrl] = [d.failedUrl, d.successUrl];
    });
    const wrap: Wrapper = async (request, next) => {
      if (!is(request, 'GET', clients)) return swapped(request, next);
      const response = await next(request);
      return rewriteJson(response, (list) => (list as Array<Record<string, unknown>>).map((c) => ({ ...c, email: 'outro@example.com' })));
    };
    const ctx = await contextOn(server, { profile: 'seed', wrap });
    await availabilityCheck.run(ctx);
    const failed = (operationId: string) =>
      ctx.recorder.results([operationId]).flatMap((r) => (r.check === check ? r.findings.filter((f) => f.outcome === 'fail') : []));
    const read = failed('createPaymentLink');
    expect(read.map((f) => f.message)).toEqual([
      expect.stringMatching(/^GET \/charge\/\S+: `successUrl` reads "[^"]+" \(the value sent as `failedUrl`\)/),
      expect.stringMatching(/^GET \/charge\/\S+: `failedUrl` reads "[^"]+" \(the value sent as `successUrl`\)/),
    ]);
    for (const [finding, field] of [
      [read[0], 'successUrl'],
      [read[1], 'failedUrl'],
    ] as const) {
      expect(finding?.exchange?.operationId).toBe('getCharge');
      expect(finding?.related?.map((e) => `${e.operationId} ${e.request.method}`)).toEqual(['createPaymentLink POST']);
      // The create that carries the value the read shows elsewhere.
      const sent = JSON.parse(finding!.related![0]!.request.body!) as Record<string, string>;
      expect(finding?.message).toMatch(new RegExp(`, sent "${sent[field]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"$`));
    }
    const listed = failed('createClient');
    expect(listed.map((f) => f.message)).toEqual([expect.stringMatching(/^GET \/client, \S+: `email` reads "outro@example\.com", sent "/)]);
    expect(listed[0]?.related?.map((e) => `${e.operationId} ${e.request.method}`)).toEqual(['createClient POST']);
  });

  test('a create that fails is a skip with its status, not a finding', async () => {
    const ctx = await contextOn(server, {
      wrap: async (request, next) => (is(request, 'POST', clients) ? new Response('{}', { status: 503 }) : next(request)),
    });
    await availabilityCheck.run(ctx);
    expect(verdict(ctx, 'createClient', check)).toMatchObject({ outcome: 'skip', skipReason: expect.stringMatching(/the create answered 503/) });
    expect(verdict(ctx, 'createPaymentLink', check).outcome).toBe('pass');
  });

  const skips: Array<[string, { given: { stateless?: boolean; readOnly?: boolean }; want: string }]> = [
    ['--stateless', { given: { stateless: true }, want: statelessReason }],
    ['--read-only', { given: { readOnly: true }, want: readOnlyReason }],
  ];
  test.each(skips)('%s skips every creating operation with the reason, sending nothing', async (_name, { given, want }) => {
    const ctx = await contextOn(server, given);
    await availabilityCheck.run(ctx);
    for (const op of operations) expect(verdict(ctx, op, check)).toEqual({ outcome: 'skip', messages: [], skipReason: want });
    expect(ctx.exchanges).toEqual([]);
  });

  test('--only: operations outside the run are neither checked nor skipped', async () => {
    const ctx = await contextOn(server, { only: ['createClient'] });
    const before = ctx.exchanges.length;
    await availabilityCheck.run(ctx);
    expect(verdict(ctx, 'createClient', check).outcome).toBe('pass');
    // The create, then each read and list its links name, and nothing else.
    const [created, ...followed] = ctx.exchanges.slice(before).map((e) => e.operationId);
    expect(created).toBe('createClient');
    const targets = links.filter((link) => link.source.operationId === 'createClient').map((link) => link.target.operationId);
    expect(followed.sort()).toEqual([...targets].sort());
    expect(targets.length).toBeGreaterThan(0);
  });
});

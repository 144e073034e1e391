/**
 * ensure_resource_availability for D48's reuse by tax number, against the in-process reference
 * server (passes in both profiles, and again on a company that already has the client); against a
 * deployment that makes a client per payment link, or overwrites the one it reuses, it departs
 * from D48 (info under seed, fail under reference); nothing is sent against a stateless target.
 *
 * @operation-wide: it runs conformance checks over every operation of the contract, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import type { Profile } from '../engine/types.js';
import { reuseByTaxIdCheck, reusedTaxId } from './reuse.js';
import { contextOn, is, serverPerTest, verdict, type Wrapper } from './stateful-test-support.js';

const check = 'ensure_resource_availability';

const server = serverPerTest();

async function run(profile: Profile, wrap?: Wrapper) {
  const ctx = await contextOn(server, { profile, fixtures: false, ...(wrap ? { wrap } : {}) });
  await reuseByTaxIdCheck.run(ctx);
  return ctx;
}

const clientsWithTaxId = async () => {
  const response = await server.app.fetch(new Request('http://ref.test/client', { headers: { 'X-API-KEY': server.apiKey } }));
  return ((await response.json()) as Array<{ taxId: string; name: string }>).filter((c) => c.taxId === reusedTaxId);
};

/** A payment link's customer always made a client of its own (as before D48 amended D33). */
const clientPerLink: Wrapper = async (request, next) => {
  if (!is(request, 'POST', /^\/charge\/payment-link$/)) return next(request);
  const body = (await request.clone().json()) as { customer?: Record<string, unknown> };
  const customer = body.customer;
  if (customer)
    await next(
      new Request('http://ref.test/client', {
        method: 'POST',
        headers: request.headers,
        body: JSON.stringify({ name: customer.name, cpfCnpj: customer.taxId, email: customer.email, phone: customer.phone, status: 'ACTIVE' }),
      }),
    );
  return next(request);
};

/** The reused client shown with the last link's customer data, as a store that overwrites it would. */
const overwrites: Wrapper = async (request, next) => {
  const response = await next(request);
  if (!is(request, 'GET', /^\/client$/) || !response.ok) return response;
  const list = (await response.json()) as Array<Record<string, unknown>>;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(list.map((c) => (c.taxId === reusedTaxId ? { ...c, name: 'Cliente reaproveitado 2 (overwritten)' } : c))), {
    status: 200,
    headers,
  });
};

describe('reuse by tax number (D48)', () => {
  test.each<Profile>(['reference', 'seed'])('the reference server reuses one client, unchanged (%s), and again on the next run', async (profile) => {
    const first = await run(profile);
    expect(verdict(first, 'createPaymentLink', check)).toMatchObject({ outcome: 'pass' });
    expect(await clientsWithTaxId()).toHaveLength(1);
    const second = await run(profile);
    const v = verdict(second, 'createPaymentLink', check);
    expect(v.outcome, v.messages.join('\n')).toBe('pass');
    // The next run made no client: the one the first made, with its first data, is reused.
    const clients = await clientsWithTaxId();
    expect(clients).toHaveLength(1);
    expect(clients[0]!.name).toMatch(/^Cliente reaproveitado 1 /);
  });

  test.each<[Profile, string]>([
    ['seed', 'info'],
    ['reference', 'fail'],
  ])('a client made per payment link departs from D48 (%s → %s)', async (profile, outcome) => {
    const ctx = await run(profile, clientPerLink);
    const v = verdict(ctx, 'createPaymentLink', check);
    expect(v.outcome).toBe(outcome);
    expect(v.messages.join('\n')).toMatch(
      /two payment links whose customer has tax number 39053344705 made [23] new clients with it, where the company had none, so one is made \(D48\)/,
    );
  });

  test('a reused client overwritten: a failure naming the field, the value read and the value kept', async () => {
    const ctx = await run('reference', overwrites);
    const v = verdict(ctx, 'createPaymentLink', check);
    expect(v.outcome).toBe('fail');
    expect(v.messages.join('\n')).toMatch(
      /the client reused by tax number 39053344705 \(clnt_\w+\) reads `name` "Cliente reaproveitado 2 \(overwritten\)", where it was made with "Cliente reaproveitado 1 \w+": a payment link's customer does not change the client it reuses \(D48\)/,
    );
  });

  test('nothing is sent against a stateless target or with --read-only', async () => {
    for (const options of [{ stateless: true }, { readOnly: true }]) {
      const ctx = await contextOn(server, options);
      const before = ctx.exchanges.length;
      await reuseByTaxIdCheck.run(ctx);
      expect(ctx.exchanges.length).toBe(before);
    }
  });
});

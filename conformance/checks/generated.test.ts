/**
 * generated_values_kept against the in-process reference server (passes in both profiles, and
 * the values drawn are the kinds the contract allows), against a deployment that lower-cases
 * e-mails on store (fails, with the smallest failing value, its create and the seed), and the
 * generators themselves (every drawn value valid under the contract's own formats).
 *
 * @operation-wide: it runs conformance checks over every operation of the contract, so `npm run test:operation` runs it, but its rows for other operations.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { customFormats } from '../../lib/contract/formats.js';
import { cep, cnpj, cpf, drawnFields, email, freeText, money, phone, taxNumber, taxNumberPool, withValues } from '../data/generated.js';
import { judgeBody, validBodies } from '../data/bodies.js';
import { RunContext } from '../engine/context.js';
import { giveFixtures, offlineFixtures, testRunOptions } from '../test-support/fixtures.js';
import { generatedCheck, updateLinks } from './generated.js';
import { statelessReason } from './stateful.js';
import { contextOn, serverPerTest, verdict, type Wrapper } from './stateful-test-support.js';
import { generatedFaults } from '../faults/deployments.js';

const check = 'generated_values_kept';

describe('the generators', () => {
  const sample = <T>(arb: fc.Arbitrary<T>) => fc.sample(arb, { numRuns: 200, seed: 7 });

  test('tax numbers, phones and CEPs are valid under the contract formats, bare and punctuated', () => {
    const taxIds = [...sample(cpf()), ...sample(cnpj())];
    for (const value of taxIds) expect(customFormats['cpf-cnpj'].validate(value), value).toBe(true);
    expect(taxIds.some((v) => /[./-]/.test(v))).toBe(true);
    expect(taxIds.some((v) => /^\d+$/.test(v))).toBe(true);
    // The pool a run draws from: valid, CPFs and CNPJs, bare and punctuated, the same in every run.
    const pooled = sample(taxNumber());
    for (const value of [...taxNumberPool, ...pooled]) expect(customFormats['cpf-cnpj'].validate(value), value).toBe(true);
    expect(new Set(taxNumberPool.map((v) => v.length))).toEqual(new Set([11, 14]));
    expect(pooled.some((v) => /[./-]/.test(v)) && pooled.some((v) => /^\d+$/.test(v))).toBe(true);
    expect(new Set(pooled.map((v) => v.replace(/\D/g, '')))).toEqual(new Set(taxNumberPool));
    // The valid body's own number joins the pool, in either form it was written.
    expect(new Set(sample(taxNumber('529.982.247-25')).map((v) => v.replace(/\D/g, '')))).toEqual(new Set(['52998224725', ...taxNumberPool]));
    for (const value of sample(phone())) expect(customFormats['phone-br'].validate(value), value).toBe(true);
    for (const value of sample(cep())) expect(customFormats.cep.validate(value), value).toBe(true);
  });

  test('e-mails mix case; money has at most two decimals within its bounds', () => {
    for (const value of sample(email(254))) {
      expect(value).toMatch(/^[^@\s]+@[^@\s]+\.[A-Za-z.]+$/);
      expect(value).toMatch(/[A-Z]/);
      expect(value).toMatch(/[a-z]/);
    }
    for (const value of sample(money(0, 999_999_999.99))) {
      expect(customFormats.brl.validate(value)).toBe(true);
      expect(value).toBeGreaterThanOrEqual(0);
    }
  });

  test('free text reaches both boundary lengths, holds non-ASCII letters, and never starts or ends with a space', () => {
    const values = sample(freeText(1, 255));
    const lengths = values.map((v) => [...v].length);
    expect(lengths).toContain(1);
    expect(lengths).toContain(255);
    expect(Math.max(...lengths)).toBe(255);
    expect(values.some((v) => /[^\x20-\x7e]/.test(v))).toBe(true);
    for (const v of values) expect(v).toBe(v.trim());
  });
});

describe('every value drawn fits its field', () => {
  // The run's bodies, from the contract's own creates and updates: each drawn field's values, one
  // at a time in the valid body, must keep the body valid. One that does not is never sent (the
  // check skips an invalid body), so a bound the generator ignores (a price `> 0` drawn as 0) hides
  // the very body that would have caught a fault.
  const ctx = new RunContext(testRunOptions({ runId: 'confdrawn1' }));
  giveFixtures(ctx, offlineFixtures);
  const withBodies = ctx.operations.filter((op) => ctx.view(op.operationId).requestBody && validBodies(ctx, op.operationId).length > 0);
  test.each(withBodies.map((op) => op.operationId))('%s', (operationId) => {
    const { schema, pointer } = ctx.view(operationId).requestBody!;
    // The body with the most fields to draw, as the check takes it.
    const body = validBodies(ctx, operationId)
      .map((b) => b.body)
      .sort((a, b) => JSON.stringify(b).length - JSON.stringify(a).length)[0];
    for (const field of drawnFields(ctx.contract, schema, body, new Set())) {
      const values = [...fc.sample(field.arbitrary, { numRuns: 200, seed: 7 }), ...(field.longest ? fc.sample(field.longest, { numRuns: 1, seed: 7 }) : [])];
      for (const [i, value] of values.entries())
        expect(judgeBody(ctx, pointer, withValues(body, [field], [value])).valid, `${field.path.join('.')} = ${JSON.stringify(value)} (draw ${i})`).toBe(true);
    }
  });
});

const server = serverPerTest();

describe('against the reference server', () => {
  test.each(['reference', 'seed'] as const)('every create keeps the generated values (%s profile)', async (profile) => {
    const ctx = await contextOn(server, { profile, more: { seed: 42, examples: 3 } });
    await generatedCheck.run(ctx);
    const results = ctx.recorder.results(ctx.operations.map((op) => op.operationId)).filter((r) => r.check === check);
    // Every create passes, but one whose body leaves no value free (a copy that names only its
    // source, `{ productId }`) has nothing to draw: a skip saying so, not a failure.
    const nothingFree = (r: (typeof results)[number]) =>
      r.outcome === 'skip' && r.skipReason === `no field of ${r.operationId}'s body takes values the contract leaves free`;
    expect(results.filter((r) => r.outcome === 'pass').length).toBeGreaterThanOrEqual(3);
    for (const r of results.filter((r) => !nothingFree(r)))
      expect(r.outcome, `${r.operationId}: ${r.findings.map((f) => f.message).join('; ')} ${r.skipReason ?? ''}`).toBe('pass');
    // What was sent: mixed-case e-mails and non-ASCII text among the bodies.
    const sent = ctx.exchanges.filter((e) => e.request.method === 'POST').map((e) => e.request.body ?? '');
    expect(sent.some((b) => /"email":"[^"]*[A-Z][^"]*"/.test(b))).toBe(true);
    expect(sent.some((b) => /[^\x20-\x7e]/.test(b))).toBe(true);
    // The updates the contract links to a create are drawn too, each sending its generated bodies to a record of the run.
    const updates = updateLinks(ctx).map((l) => l.target);
    expect(updates.length).toBeGreaterThanOrEqual(1);
    for (const op of updates) {
      expect(results.map((r) => r.operationId)).toContain(op.operationId);
      expect(ctx.exchanges.filter((e) => e.operationId === op.operationId && e.response?.status === 200).length, op.operationId).toBeGreaterThanOrEqual(3);
    }
    // Fields inside arrays are drawn: some item's field read back as sent.
    expect(results.some((r) => r.findings.some((f) => /\b\w+\.\d+\.\w+/.test(f.message)))).toBe(true);
  });

  test('the same seed draws the same bodies', async () => {
    const bodies = async () => {
      const ctx = await contextOn(server, { more: { seed: 99, examples: 2 }, only: ['createClient', 'listClients', 'getClient'] });
      const before = ctx.exchanges.length;
      await generatedCheck.run(ctx);
      return ctx.exchanges
        .slice(before)
        .filter((e) => e.request.method === 'POST')
        .map((e) => JSON.parse(e.request.body ?? '{}') as Record<string, unknown>)
        .map(({ email: mail, cpfCnpj, phone: tel }) => [mail, cpfCnpj, tel]);
    };
    expect(await bodies()).toEqual(await bodies());
  });

  test('a drawn body the contract refuses is not sent; when none was valid the check is a skip, not a pass', async () => {
    const ctx = await contextOn(server, { only: ['createClient', 'listClients', 'getClient'], more: { seed: 7, examples: 3 } });
    // The contract as this test states it: only the valid bodies the run starts from are valid,
    // so every body with a drawn value is refused.
    const pointer = ctx.view('createClient').requestBody!.pointer;
    const allowed = new Set(validBodies(ctx, 'createClient').map((b) => JSON.stringify(b.body)));
    expect(allowed.size).toBeGreaterThanOrEqual(1);
    const full = ctx.full;
    const at = (at: string) => {
      if (at !== pointer) return full.at(at);
      const onlyAllowed = ((body: unknown) => allowed.has(JSON.stringify(body))) as ReturnType<typeof full.at>;
      onlyAllowed.errors = [{ instancePath: '', schemaPath: '#', keyword: 'const', params: {}, message: 'not a body this test allows' }];
      return onlyAllowed;
    };
    Object.defineProperty(ctx, 'full', { value: Object.assign(Object.create(full), { at }) });
    const before = ctx.exchanges.filter((e) => e.operationId === 'createClient').length;
    await generatedCheck.run(ctx);
    expect(ctx.exchanges.filter((e) => e.operationId === 'createClient').length, 'no refused body was sent').toBe(before);
    const result = verdict(ctx, 'createClient', check);
    expect(result.outcome).toBe('skip');
    expect(result.skipReason).toMatch(
      /^no drawn body of createClient \(.+\) was valid against the contract, so none was sent; \d+ drawn bodies the contract refuses were not sent \(--seed \d+\)$/,
    );
  });

  test('--stateless skips with the reason, the updates too', async () => {
    const ctx = await contextOn(server, { stateless: true });
    await generatedCheck.run(ctx);
    expect(verdict(ctx, 'createClient', check).skipReason).toBe(statelessReason);
    for (const link of updateLinks(ctx)) expect(verdict(ctx, link.target.operationId, check).skipReason).toBe(statelessReason);
  });
});

describe('values changed on store', () => {
  test.each(generatedFaults.map((f) => [f.name, f] as const))(
    '%s: fails in both profiles with the smallest failing value and the seed',
    async (_name, fault) => {
      for (const profile of ['reference', 'seed'] as const) {
        let built: ReturnType<typeof fault.wrap> | undefined;
        const wrap: Wrapper = (request, next) => {
          built ??= fault.wrap(next, { apiKey: server.apiKey, otherApiKey: server.other.apiKey });
          return built(request);
        };
        const ctx = await contextOn(server, { profile, wrap, more: { seed: 5, examples: 5 } });
        await generatedCheck.run(ctx);
        const v = verdict(ctx, fault.expect.operationId, check);
        expect(v.outcome, v.messages.join('\n')).toBe('fail');
        expect(v.messages.join('\n')).toMatch(fault.expect.message!);
        expect(v.messages.join('\n')).toMatch(/the smallest of \d+ shrinks; --seed 5 --examples 5 draws it again/);
      }
    },
  );
});

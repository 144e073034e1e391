/**
 * paging_walked against the in-process reference server (passes in both profiles), against
 * broken wrappers of it (limit ignored, a page repeating the previous page's last record, the
 * last page linking onward, pages out of order: each fails in the reference profile and is
 * information naming D48 in the seed profile), and in --stateless / --read-only runs.
 *
 * @operation-wide: it runs conformance checks over every operation of the contract, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { describe, expect, test } from 'vitest';
import { maxPages, nextLink, pagedOperations, pageSize, pagingCheck, recordsNeeded } from './paging.js';
import { statelessReason } from './stateful.js';
import { contextOn, serverPerTest, verdict, type Wrapper } from './stateful-test-support.js';
import { pagingFaults } from '../faults/deployments.js';

const check = 'paging_walked';

const server = serverPerTest();

describe('what the contract pages', () => {
  test('every paged list is found from the contract, with its parameters and bounds, and rests on its decision', async () => {
    const ctx = await contextOn(server, { fixtures: false });
    const paged = pagedOperations(ctx);
    expect(paged.length).toBeGreaterThan(0);
    for (const p of paged) {
      expect(p.op.method).toBe('get');
      expect(p.limit.minimum).toBeLessThanOrEqual(2);
      expect(p.limit.maximum).toBeGreaterThan(p.limit.minimum);
      expect(p.cursor).not.toBe(p.limit.name);
      expect(p.decision).toMatch(/^D\d+$/);
    }
  });

  test('a page size makes at least three pages of a small list, and stays within the bounds', () => {
    const limit = { name: 'limit', minimum: 1, maximum: 1000 };
    for (const count of [recordsNeeded, 6, 9, 40, 400, 700, 1000, 100_000]) {
      const size = pageSize(count, limit);
      expect(size).toBeGreaterThanOrEqual(1);
      expect(size).toBeLessThanOrEqual(count <= 700 ? 100 : limit.maximum);
      expect(Math.ceil(count / size)).toBeGreaterThanOrEqual(3);
    }
  });

  test('a list past maxPages - 1 pages of 100 gets pages large enough to be walked to its end and one page on, as far as the maximum allows', () => {
    const limit = { name: 'limit', minimum: 1, maximum: 1000 };
    for (const count of [801, 880, 1000, 5000, (maxPages - 1) * limit.maximum])
      expect(Math.ceil(count / pageSize(count, limit)), `${count} records`).toBeLessThanOrEqual(maxPages - 1);
    expect(pageSize(100_000, limit)).toBe(limit.maximum);
  });

  test('the next link is read as RFC 8288 says', () => {
    expect(nextLink('</client?limit=2&after=abc>; rel="next"')).toBe('/client?limit=2&after=abc');
    expect(nextLink('<https://x.test/a?b=1>; rel="prev", <https://x.test/a?b=2>; rel=next')).toBe('https://x.test/a?b=2');
    expect(nextLink('</a>; rel="prev next"')).toBe('/a');
    expect(nextLink('</a>; rel="prev"')).toBeUndefined();
    expect(nextLink(undefined)).toBeUndefined();
  });
});

describe('the reference server', () => {
  test.each(['reference', 'seed'] as const)('passes in the %s profile, walking at least three pages', async (profile) => {
    const ctx = await contextOn(server, { profile });
    await pagingCheck.run(ctx);
    for (const p of pagedOperations(ctx)) {
      const v = verdict(ctx, p.op.operationId, check);
      expect(v.outcome, `${v.skipReason} ${v.messages.join('\n')}`).toBe('pass');
      const pages = ctx.exchanges.filter((e) => e.operationId === p.op.operationId && e.request.url.includes(`${p.limit.name}=`));
      expect(pages.length).toBeGreaterThanOrEqual(3);
    }
  });

  test('a second run against the same company adds no record: it reuses the list', async () => {
    await pagingCheck.run(await contextOn(server));
    const ctx = await contextOn(server);
    const before = ctx.exchanges.length;
    await pagingCheck.run(ctx);
    expect(ctx.exchanges.slice(before).filter((e) => e.request.method !== 'GET')).toEqual([]);
    expect(verdict(ctx, 'listClients', check).outcome).toBe('pass');
  });

  test('--stateless and --read-only skip with the reason', async () => {
    const stateless = await contextOn(server, { stateless: true });
    await pagingCheck.run(stateless);
    expect(verdict(stateless, 'listClients', check).skipReason).toBe(statelessReason);
    const readOnly = await contextOn(server, { readOnly: true });
    await pagingCheck.run(readOnly);
    // An empty company cannot be walked without adding records.
    expect(verdict(readOnly, 'listClients', check)).toMatchObject({ outcome: 'skip', skipReason: expect.stringMatching(/--read-only/) });
  });
});

describe('broken paging', () => {
  test.each(pagingFaults.map((f) => [f.name, f] as const))('%s: fails in the reference profile, info naming D48 in the seed profile', async (_name, fault) => {
    // One deployment per run: a fault may remember what it answered (the previous page).
    const deployment = () => {
      let built: ReturnType<typeof fault.wrap> | undefined;
      const wrap: Wrapper = (request, next) => {
        built ??= fault.wrap(next, { apiKey: server.apiKey, otherApiKey: server.other.apiKey });
        return built(request);
      };
      return wrap;
    };
    const reference = await contextOn(server, { profile: 'reference', wrap: deployment() });
    await pagingCheck.run(reference);
    const failed = verdict(reference, 'listClients', check);
    expect(failed.outcome, failed.messages.join('\n')).toBe('fail');
    expect(failed.messages.join('\n')).toMatch(fault.expect.message!);
    const seed = await contextOn(server, { profile: 'seed', wrap: deployment() });
    await pagingCheck.run(seed);
    const info = verdict(seed, 'listClients', check);
    expect(info.outcome).toBe('info');
    expect(info.messages.every((m) => m.startsWith('info (D48)'))).toBe(true);
  });
});

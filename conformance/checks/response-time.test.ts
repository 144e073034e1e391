/**
 * response_time: with a budget, an operation with a slower answer fails once, naming the
 * operation, how many answers and the slowest time; the reference server within a generous
 * budget passes; without a budget nothing is recorded.
 *
 * @operation-wide: it runs conformance checks over every operation of the contract, so `npm run test:operation` runs it, but its rows for other operations.
 */
import { expect, test } from 'vitest';
import { responseTimeCheck } from './response-time.js';
import { contextOn, is, serverPerTest, verdict } from './stateful-test-support.js';

const server = serverPerTest();

test('a slow read fails once, naming the operation and the time; the others pass within the budget', async () => {
  const ctx = await contextOn(server, {
    fixtures: false,
    more: { maxResponseTimeMs: 200 },
    wrap: async (request, next) => {
      if (is(request, 'GET', /^\/client$/)) await new Promise((resolve) => setTimeout(resolve, 400));
      return next(request);
    },
  });
  for (let i = 0; i < 3; i++) await ctx.request('listClients');
  await ctx.request('createProduct', { body: { name: 'P', price: 10 } });
  await responseTimeCheck.run(ctx);
  const slow = verdict(ctx, 'listClients', 'response_time');
  expect(slow.outcome).toBe('fail');
  expect(slow.messages).toEqual([
    expect.stringMatching(/^fail: GET \/client: 3 of 3 answers slower than the 200 ms budget \(--max-response-time\), the slowest [4-9]\d\d ms$/),
  ]);
  expect(verdict(ctx, 'createProduct', 'response_time').outcome).toBe('pass');
});

test("--profile own's default budget: the finding says it is the default and which flag sets another", async () => {
  const ctx = await contextOn(server, {
    fixtures: false,
    more: { maxResponseTimeMs: 200, maxResponseTimeDefault: true },
    wrap: async (request, next) => {
      if (is(request, 'GET', /^\/client$/)) await new Promise((resolve) => setTimeout(resolve, 400));
      return next(request);
    },
  });
  await ctx.request('listClients');
  await responseTimeCheck.run(ctx);
  expect(verdict(ctx, 'listClients', 'response_time').messages).toEqual([
    expect.stringMatching(
      /^fail: GET \/client: 1 of 1 answers slower than the 200 ms budget \(--profile own's default; --max-response-time MS sets another\), the slowest [4-9]\d\d ms$/,
    ),
  ]);
});

test('without a budget nothing is recorded', async () => {
  const ctx = await contextOn(server, { fixtures: false });
  await ctx.request('listClients');
  await responseTimeCheck.run(ctx);
  expect(verdict(ctx, 'listClients', 'response_time').outcome).toBe('none');
});

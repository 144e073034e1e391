/**
 * Tests give a run context the records a stateful run would have created, named as the tests
 * think of them; the fixture keys come from the contract's links (conformance/data/relations.ts).
 */
import type { RunContext } from '../engine/context.js';
import type { ConformanceOptions } from '../engine/types.js';
import { runData } from '../data/state.js';

export interface TestFixtures {
  /** The product a payment link's and an order's items name. */
  productId?: string | undefined;
  /** The product a subscription bills. */
  subscriptionProductId?: string | undefined;
  clientId?: string | undefined;
  /** The subscription an update changes (its product and client are the fixtures'). */
  subscriptionId?: string | undefined;
  /** The caller's company (D26). */
  companyId?: string | undefined;
  /** The unit price of both products, when the test says it. */
  price?: number | undefined;
}

function key(ctx: RunContext, operationId: string, field: string): string {
  const found = ctx.view(operationId).fixtureKeyOf(field);
  if (!found) throw new Error(`no link of the contract fills ${operationId}'s ${field}`);
  return found;
}

export function giveFixtures(ctx: RunContext, given: TestFixtures): void {
  const state = runData(ctx);
  const price = given.price === undefined ? {} : { price: given.price };
  const set = (operationId: string, field: string, body: Record<string, unknown> & { id: string | undefined }) => {
    if (typeof body.id === 'string') ctx.fixtures.own.set(key(ctx, operationId, field), { id: body.id, body });
  };
  set('createPaymentLink', 'productId', { id: given.productId, ...price });
  set('createSubscription', 'productId', { id: given.subscriptionProductId, ...price, isSubscription: true });
  set('createOrder', 'clientId', { id: given.clientId });
  set('updateSubscription', 'id', { id: given.subscriptionId, productId: given.subscriptionProductId, clientId: given.clientId });
  for (const id of [given.productId, given.subscriptionProductId]) if (id && given.price !== undefined) state.prices.set(id, given.price);
  if (given.companyId) state.companyId = given.companyId;
}

/** Run options for a test's context: a target at `http://ref.test`, profile `seed`, with `over` on top. */
export function testRunOptions(over: Partial<ConformanceOptions> = {}): ConformanceOptions {
  return {
    baseUrl: 'http://ref.test',
    baseUrlAlt: 'http://ref.test',
    apiKey: 'key',
    profile: 'seed',
    readOnly: false,
    stateless: false,
    timeoutMs: 1000,
    runId: 'conftest',
    ...over,
  };
}

/** Ids of the records a stateful run would have made, well-formed, for tests that send nothing. */
export const offlineFixtures = {
  productId: 'prod_fixtureproduct00000000',
  subscriptionProductId: 'prod_fixturesubscription000',
  clientId: 'clnt_fixtureclient000000000',
  companyId: 'comp_fixturecompany00000000',
  subscriptionId: 'subs_fixturesubscription000',
  price: 89.9,
} satisfies TestFixtures;

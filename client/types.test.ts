/**
 * What the client's types refuse. The `@ts-expect-error` lines are compiled by `npm run
 * typecheck` (tsconfig includes client/): each fails the compile if its line is NOT an error, so
 * the wrong call provably does not compile. The `expectTypeOf` lines fail the compile when the
 * types differ. At run time nothing here is sent: the calls sit in a function never called.
 * test/package/pack.test.ts checks the wrong-base-URL refusal again from the installed package.
 */
import { describe, expectTypeOf, test } from 'vitest';
import { createPixClient, type Problem, type Schemas, type WebhookEvent } from './index.js';
import { verifyWebhook } from './index.js';

const pix = createPixClient({ baseUrl: 'http://localhost:3000', baseUrlAlt: 'http://localhost:3000', apiKey: 'sk_x' });

async function neverCalled(): Promise<void> {
  // Each operation only on its own base URL.
  // @ts-expect-error createPaymentLink lives on {base_url}
  await pix.alt.POST('/charge/payment-link', { body: { total: 500 } });
  // @ts-expect-error createProduct lives on {base_url_alt}
  await pix.base.POST('/product', { body: { name: 'n', description: 'd', price: 1, sku: 's', displayId: 'i' } });
  // @ts-expect-error POST /client (createClient) lives on {base_url_alt}, though GET /client is on {base_url}
  await pix.base.POST('/client', { body: { name: 'n', status: 'ACTIVE', cpfCnpj: '52998224725', email: 'a@b.c', phone: '11987654321' } });
  // @ts-expect-error GET /client (listClients) lives on {base_url}
  await pix.alt.GET('/client');
  // @ts-expect-error no such path
  await pix.base.GET('/charges');

  // Bodies: no unknown field, no missing required one, no wrong type.
  // @ts-expect-error `amount` is not a field of PaymentLinkCreate
  await pix.base.POST('/charge/payment-link', { body: { total: 500, amount: 500 } });
  // @ts-expect-error a product needs sku and displayId
  await pix.alt.POST('/product', { body: { name: 'n', description: 'd', price: 1 } });
  // @ts-expect-error total is a number of cents
  await pix.base.POST('/charge/payment-link', { body: { total: '5.00' } });
  // @ts-expect-error a path parameter is required
  await pix.base.GET('/charge/{id}');

  // Answers: only the fields the contract gives.
  const { data, error } = await pix.base.POST('/charge/payment-link', { body: { total: 500 } });
  if (data) {
    expectTypeOf(data.data).toEqualTypeOf<Schemas['PaymentLinkResponse']['data']>();
    // @ts-expect-error a created payment link has no `status` (only GET /charge/{id} answers one)
    void data.data.status;
  }
  expectTypeOf(error).toEqualTypeOf<Problem | undefined>();
  if (error) {
    // @ts-expect-error a Problem has no `message`
    void error.message;
  }

  const charge = await pix.base.GET('/charge/{id}', { params: { path: { id: 'char_x' } } });
  expectTypeOf(charge.data?.data.status).toEqualTypeOf<Schemas['Charge']['status'] | undefined>();

  expectTypeOf(verifyWebhook).returns.toEqualTypeOf<WebhookEvent>();
  // The event narrows by its `type`: the charge's paymentStatus of the same name (D15), and the status that follows it (D05).
  const event = verifyWebhook('whsec_x', {}, '');
  expectTypeOf(event.data.id).toEqualTypeOf<Schemas['Charge']['id']>();
  expectTypeOf(event.data.paymentStatus).toEqualTypeOf<Schemas['Charge']['paymentStatus']>();
  if (event.type === 'charge.paid') {
    expectTypeOf(event.data.paymentStatus).toEqualTypeOf<'PAID'>();
    expectTypeOf(event.data.status).toEqualTypeOf<'PAID'>();
  }
  if (event.type === 'charge.processing') {
    expectTypeOf(event.data.paymentStatus).toEqualTypeOf<'PROCESSING'>();
    expectTypeOf(event.data.status).toEqualTypeOf<'OPEN'>();
    // @ts-expect-error a processing charge is not paid yet
    expectTypeOf(event.data.status).toEqualTypeOf<'PAID'>();
  }
  if (event.type === 'charge.expired') expectTypeOf(event.data.status).toEqualTypeOf<'EXPIRED'>();
  if (event.type === 'charge.received') expectTypeOf(event.data).toMatchTypeOf<Omit<Schemas['Charge'], 'paymentStatus' | 'status'>>();
}

describe('client types', () => {
  test('compile as asserted (npm run typecheck)', () => {
    expectTypeOf(neverCalled).toBeFunction();
  });
});

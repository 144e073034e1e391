import type { Deps } from '../deps.js';
import { defineOperation, type ResourceOperations } from '../http/define-operation.js';
import { newId } from '../domain/ids.js';
import { deriveDates } from '../domain/subscriptions.js';
import { isWritableInstant, toUtcTimestamp } from '../domain/time.js';
import type { FieldError } from '../../lib/contract/ajv.js';
import { notFound, validationProblem } from '../http/problems.js';
import { referenceError, referencedClient } from '../domain/references.js';
import type { SubscriptionDoc } from '../store/types.js';

const dateFields = ['expiresAt', 'trialEndsAt', 'nextBillingAt', 'cancelledAt'] as const;

/** A product and client named in a body must be the company's (D27) and ACTIVE (D45); every one that is not is named. */
async function mustOwn(deps: Deps, companyId: string, refs: { productId?: string; clientId?: string }): Promise<void> {
  const errors: FieldError[] = [];
  if (refs.productId !== undefined)
    errors.push(...referenceError((await deps.store.getProducts(companyId, [refs.productId])).get(refs.productId), '/productId', 'product'));
  errors.push(...(await referencedClient(deps, companyId, refs.clientId, '/clientId')).errors);
  if (errors.length > 0) throw validationProblem(errors);
}

export const subscriptionOperations: ResourceOperations = (deps) => [
  defineOperation('createSubscription', async ({ body, company }) => {
    const companyId = company.doc.id;
    await mustOwn(deps, companyId, body);
    const now = deps.now();
    const at = now.toISOString();
    const sent = {
      ...(body.expiresAt !== undefined ? { expiresAt: toUtcTimestamp(body.expiresAt, '/expiresAt') } : {}),
      ...(body.trialEndsAt !== undefined ? { trialEndsAt: toUtcTimestamp(body.trialEndsAt, '/trialEndsAt') } : {}),
      ...(body.nextBillingAt !== undefined ? { nextBillingAt: toUtcTimestamp(body.nextBillingAt, '/nextBillingAt') } : {}),
    };
    const derived = deriveDates({ createdAt: now, trialDays: body.trialDays, period: body.period, ...sent });
    if (!isWritableInstant(new Date(derived.nextBillingAt)) || (derived.trialEndsAt && !isWritableInstant(new Date(derived.trialEndsAt)))) {
      throw validationProblem([
        { pointer: sent.trialEndsAt ? '/trialEndsAt' : '/trialDays', detail: 'leaves no next billing date before the year 10000', keyword: 'format' },
      ]);
    }
    const subscription: SubscriptionDoc = {
      id: newId('subscription'),
      productId: body.productId,
      // D38: a subscription may start without a client.
      clientId: body.clientId ?? '',
      period: body.period,
      price: body.price,
      trialDays: body.trialDays,
      status: body.status ?? 'PENDING',
      createdAt: at,
      updatedAt: at,
      ...sent,
      ...derived,
      ...(body.status === 'CANCELLED' ? { cancelledAt: at } : {}),
    };
    await deps.store.insertSubscription(companyId, subscription);
    return { status: 201, body: subscription };
  }),

  defineOperation('updateSubscription', async ({ body, company }) => {
    const companyId = company.doc.id;
    const current = await deps.store.getSubscription(companyId, body.id);
    if (!current) throw notFound('subscription', body.id);
    // D45: only a reference that changes is checked; the subscription keeps the ones it has.
    await mustOwn(deps, companyId, {
      ...(body.productId !== current.productId ? { productId: body.productId } : {}),
      ...(body.clientId !== current.clientId ? { clientId: body.clientId } : {}),
    });
    const at = deps.now().toISOString();
    // D09: only the fields sent change.
    const { id: _id, ...changes } = body;
    const next: SubscriptionDoc = { ...current, ...changes, updatedAt: at };
    for (const field of dateFields) {
      if (body[field] !== undefined) next[field] = toUtcTimestamp(body[field], `/${field}`);
    }
    if (body.status === 'CANCELLED' && current.status !== 'CANCELLED' && body.cancelledAt === undefined) next.cancelledAt = at;
    await deps.store.replaceSubscription(companyId, next);
    return { status: 200, body: next };
  }),

  defineOperation('getSubscription', async ({ params: { id }, company }) => {
    const subscription = await deps.store.getSubscription(company.doc.id, id);
    if (!subscription) throw notFound('subscription', id);
    return { status: 200, body: subscription };
  }),
];

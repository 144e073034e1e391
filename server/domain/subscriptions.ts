import type { components } from '../../generated/openapi.js';
import type { FieldError } from '../../lib/contract/ajv.js';
import type { Deps } from '../deps.js';
import { notFound, validationProblem } from '../http/problems.js';
import type { CompanyRecord, SubscriptionDoc } from '../store/types.js';
import { newId } from './ids.js';
import { referenceError, referencedClient } from './references.js';
import { isWritableInstant, toUtcTimestamp } from './time.js';

type SubscriptionCreate = components['schemas']['SubscriptionCreate'];
type SubscriptionUpdate = components['schemas']['SubscriptionUpdate'];

type Period = components['schemas']['SubscriptionPeriod'];

const periods: Record<Period, { days?: number; months?: number }> = {
  DAILY: { days: 1 },
  WEEKLY: { days: 7 },
  BIWEEKLY: { days: 14 },
  MONTHLY: { months: 1 },
  BIMONTHLY: { months: 2 },
  QUARTERLY: { months: 3 },
  SEMIANNUAL: { months: 6 },
  ANNUAL: { months: 12 },
  BIENNIAL: { months: 24 },
};

/** `from` plus one billing period (D31): calendar months, clamped to the last day of the month. */
export function addPeriod(from: Date, period: Period): Date {
  const { days, months } = periods[period];
  const result = new Date(from.getTime());
  if (days) {
    result.setUTCDate(result.getUTCDate() + days);
    return result;
  }
  const day = from.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months!);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}

export function addDays(from: Date, days: number): Date {
  return new Date(from.getTime() + days * 86_400_000);
}

/** Derived dates of a subscription (D31): the trial end and the next billing after it. */
export function deriveDates(input: { createdAt: Date; trialDays: number; period: Period; trialEndsAt?: string; nextBillingAt?: string }): {
  trialEndsAt?: string;
  nextBillingAt: string;
} {
  const trialEnd = input.trialEndsAt ? new Date(input.trialEndsAt) : input.trialDays > 0 ? addDays(input.createdAt, input.trialDays) : undefined;
  const nextBillingAt = input.nextBillingAt ?? addPeriod(trialEnd ?? input.createdAt, input.period).toISOString();
  return { ...(trialEnd ? { trialEndsAt: trialEnd.toISOString() } : {}), nextBillingAt };
}

const dateFields = ['expiresAt', 'trialEndsAt', 'nextBillingAt', 'cancelledAt'] as const;

/** A product and client named in a body must be the company's (D27) and ACTIVE (D45); every one that is not is named. */
async function mustOwn(deps: Deps, companyId: string, refs: { productId?: string; clientId?: string }): Promise<void> {
  const errors: FieldError[] = [];
  if (refs.productId !== undefined)
    errors.push(
      ...referenceError((await deps.store.getProducts(companyId, [refs.productId], { forWrite: true })).get(refs.productId), '/productId', 'product'),
    );
  errors.push(...(await referencedClient(deps, companyId, refs.clientId, '/clientId')).errors);
  if (errors.length > 0) throw validationProblem(errors);
}

/** A new subscription (seed §4.5, D38, D45): its product and client checked, its dates derived (D35). */
export async function createSubscription(deps: Deps, company: CompanyRecord, body: SubscriptionCreate): Promise<SubscriptionDoc> {
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
  return subscription;
}

/** A subscription after a `PUT` (D09: only the fields sent change; D45: only changed references are checked). */
export async function updateSubscription(deps: Deps, company: CompanyRecord, body: SubscriptionUpdate): Promise<SubscriptionDoc> {
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
  return next;
}

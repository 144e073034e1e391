import type { components } from '../../generated/openapi.js';

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

import { createId } from '../../lib/ids/cuid2.js';
import type { components } from '../../generated/openapi.js';
import type { Deps } from '../deps.js';
import { notFound, ProblemError } from '../http/problems.js';
import type { ChargeDoc, ChargeEventType, NewEvent, StoredCharge } from '../store/types.js';
import { withImage } from './charge-image.js';

type PaymentStatus = components['schemas']['ChargePaymentStatus'];
type Status = components['schemas']['ChargeStatus'];

/**
 * The charge state machine of D05/D39. A move sets `paymentStatus`; `status` follows from it;
 * every move emits the event of the same name (D15), written with the move (the outbox).
 */
const moves: Record<PaymentStatus, readonly PaymentStatus[]> = {
  PENDING: ['PROCESSING', 'PAID', 'EXPIRED'],
  PROCESSING: ['PAID', 'EXPIRED'],
  PAID: ['RECEIVED'],
  RECEIVED: [],
  EXPIRED: [],
};

const statusOf: Record<PaymentStatus, Status> = { PENDING: 'OPEN', PROCESSING: 'OPEN', PAID: 'PAID', RECEIVED: 'PAID', EXPIRED: 'EXPIRED' };
const eventOf: Record<PaymentStatus, ChargeEventType> = {
  PENDING: 'charge.pending',
  PROCESSING: 'charge.processing',
  PAID: 'charge.paid',
  RECEIVED: 'charge.received',
  EXPIRED: 'charge.expired',
};

export function canMove(from: PaymentStatus, to: PaymentStatus): boolean {
  return moves[from].includes(to);
}

/**
 * The Standard Webhooks message of a charge event: `{type, timestamp, data}` (D14). A charge
 * whose image is not rendered yet gets it when the event is sent (`eventBodyWithImage`). Its id
 * and text are made the first time they are read: the store writes only the events a webhook of
 * the company subscribes to, and most charges are made by companies that subscribe to none.
 * The charge must not change after the event is made (every move makes a new one).
 */
export function chargeEvent(charge: StoredCharge, at: Date): NewEvent {
  return new ChargeEvent(eventOf[charge.paymentStatus], at.toISOString(), charge);
}

class ChargeEvent implements NewEvent {
  #id: string | undefined;
  #body: string | undefined;

  constructor(
    readonly type: ChargeEventType,
    readonly createdAt: string,
    private readonly charge: StoredCharge,
  ) {}

  get id(): string {
    this.#id ??= `msg_${createId()}`;
    return this.#id;
  }

  get body(): string {
    this.#body ??= JSON.stringify({ type: this.type, timestamp: this.createdAt, data: this.charge });
    return this.#body;
  }
}

/** Applies moves in order, refusing any the state machine does not allow; returns the charge and its events. */
export function applyMoves(charge: StoredCharge, path: readonly PaymentStatus[], at: Date): { charge: StoredCharge; events: NewEvent[] } {
  let current = charge;
  const events: NewEvent[] = [];
  for (const to of path) {
    if (!canMove(current.paymentStatus, to)) {
      throw new ProblemError('invalidTransition', `The charge ${charge.id} is ${current.paymentStatus}; it cannot become ${to}.`);
    }
    current = { ...current, paymentStatus: to, status: statusOf[to] };
    if (to === 'PAID') current.paymentDate = at.toISOString();
    events.push(chargeEvent(current, at));
  }
  return { charge: current, events };
}

async function devCharge(deps: Deps, companyId: string, id: string): Promise<StoredCharge> {
  const charge = await deps.store.getCharge(companyId, id);
  if (!charge) throw notFound('charge', id);
  if (!charge.devMode) {
    throw new ProblemError('liveCharge', `The charge ${id} was created without devMode; only development charges can be paid or expired by simulation.`);
  }
  return charge;
}

/** Where a simulated payment stops, and whether a PENDING charge skips PROCESSING (D39). */
export interface SimulatedPayment {
  until: 'PROCESSING' | 'PAID' | 'RECEIVED';
  skipProcessing: boolean;
}

/** The payment line of D05; a simulation walks it from the charge's state. */
const paymentLine: readonly PaymentStatus[] = ['PENDING', 'PROCESSING', 'PAID', 'RECEIVED'];

/**
 * The moves a simulated payment makes from `from`: every state after it on the payment line up
 * to `until`, without PROCESSING when a PENDING charge skips it. Empty when there is nothing to
 * do (already at or past `until`, or off the line: EXPIRED).
 */
export function paymentPath(from: PaymentStatus, { until, skipProcessing }: SimulatedPayment): PaymentStatus[] {
  const start = paymentLine.indexOf(from);
  const stop = paymentLine.indexOf(until);
  if (start < 0 || stop <= start) return [];
  return paymentLine.slice(start + 1, stop + 1).filter((to) => !(skipProcessing && from === 'PENDING' && to === 'PROCESSING'));
}

/** D39: pays a development charge as a payer would, from its state up to `until`, one move (and event) at a time. */
export async function simulatePayment(deps: Deps, companyId: string, id: string, given: Partial<SimulatedPayment> = {}): Promise<ChargeDoc> {
  const options: SimulatedPayment = { until: given.until ?? 'RECEIVED', skipProcessing: given.skipProcessing ?? false };
  await devCharge(deps, companyId, id);
  const now = deps.now();
  const moved = await deps.store.transitionCharge(companyId, id, (stored) => {
    // Decided on the charge read inside the store's transaction, so a concurrent move cannot slip in between.
    const path = paymentPath(stored.paymentStatus, options);
    if (path.length === 0) {
      throw new ProblemError(
        'invalidTransition',
        `The charge ${id} is ${stored.paymentStatus}; a simulated payment up to ${options.until} has no move to make from there.`,
      );
    }
    return applyMoves(stored, path, now);
  });
  if (!moved) throw notFound('charge', id);
  return withImage(deps.store, companyId, moved);
}

/** D39: expires a development charge now. */
export async function simulateExpiration(deps: Deps, companyId: string, id: string): Promise<ChargeDoc> {
  await devCharge(deps, companyId, id);
  const now = deps.now();
  const moved = await deps.store.transitionCharge(companyId, id, (stored) => applyMoves(stored, ['EXPIRED'], now));
  if (!moved) throw notFound('charge', id);
  return withImage(deps.store, companyId, moved);
}

/** Expires every OPEN charge whose `expiresAt` has passed (live or development); returns how many. */
export async function expireDueCharges(deps: Deps, batch = 100): Promise<number> {
  const now = deps.now();
  let expired = 0;
  for (const { companyId, id } of await deps.store.openChargesDue(now.toISOString(), batch)) {
    // A charge paid in the meantime is not OPEN any more: nothing to do, not an error.
    const moved = await deps.store.transitionCharge(companyId, id, (stored) =>
      stored.status === 'OPEN' ? applyMoves(stored, ['EXPIRED'], now) : { charge: stored, events: [] },
    );
    if (moved?.paymentStatus === 'EXPIRED') expired += 1;
  }
  return expired;
}

import type { components } from '../../generated/openapi.js';
import { asSerialised, defineOperation, serialise, type ResourceOperations } from '../http/define-operation.js';
import { simulateExpiration, simulatePayment } from '../domain/charge-lifecycle.js';
import { chargeJsonHasImage, withImage } from '../domain/charge-image.js';
import { createCharge } from '../domain/charges.js';
import { EnvelopeBytes, envelopeJson } from '../http/envelope.js';
import { notFound } from '../http/problems.js';
import type { StoredCharge } from '../store/types.js';

type Charge = components['schemas']['Charge'];

export const chargeOperations: ResourceOperations = (deps) => {
  // A charge read again is answered with the bytes of its first answer (its stored text unchanged).
  const found = new EnvelopeBytes(200, 'Charge found');
  return [
    defineOperation('createPaymentLink', async ({ body, company, idempotency }) => ({
      status: 201,
      body: await createCharge(deps, company, body, idempotency),
    })),

    defineOperation('simulatePayment', async ({ params: { id }, body, company }) => {
      // D39: `settle` is the deprecated form of `until` (the contract refuses both together).
      const until = body?.until ?? (body?.settle === false ? 'PAID' : 'RECEIVED');
      const charge = await simulatePayment(deps, company.doc.id, id, { until, skipProcessing: body?.skipProcessing ?? false });
      return { status: 200, body: { status: 200, message: 'Charge updated', data: charge } };
    }),

    defineOperation('simulateExpiration', async ({ params: { id }, company }) => {
      const charge = await simulateExpiration(deps, company.doc.id, id);
      return { status: 200, body: { status: 200, message: 'Charge updated', data: charge } };
    }),

    defineOperation('getCharge', async ({ params: { id }, company }) => {
      const companyId = company.doc.id;
      const stored = await deps.store.getChargeJson(companyId, id);
      if (stored === undefined) throw notFound('charge', id);
      // The stored JSON is sent as it is; only a charge seen for the first time is parsed, to add its image.
      if (chargeJsonHasImage(stored)) return { status: 200, body: found.of(asSerialised<Charge>(stored)) };
      return { status: 200, body: envelopeJson(200, 'Charge found', serialise(await withImage(deps.store, companyId, JSON.parse(stored) as StoredCharge))) };
    }),
  ];
};

import type { ChargeDoc, Store, StoredCharge } from '../store/types.js';
import { qrPngDataUri } from './qr-code.js';

/**
 * A charge's QR image (`brCodeBase64`) is rendered the first time the charge leaves the server
 * (its GET, a simulation's answer, the payment page, a webhook delivery), then stored with it.
 * Creating a charge does not render it: most created charges are never looked at, and the image
 * costs more than everything else a creation does. Never rendered twice for one charge: a
 * render in progress is shared, and the store is read again before rendering.
 */
const rendering = new WeakMap<Store, Map<string, Promise<string>>>();

export async function chargeImage(store: Store, companyId: string, charge: StoredCharge): Promise<string> {
  if (charge.brCodeBase64 !== undefined) return charge.brCodeBase64;
  const inFlight = rendering.get(store) ?? new Map();
  rendering.set(store, inFlight);
  const key = `${companyId}/${charge.id}`;
  const pending = inFlight.get(key);
  if (pending) return pending;
  const image = (async () => {
    // Rendered and stored since `charge` was read? (By a render that has finished, here or elsewhere.)
    const current = await store.getCharge(companyId, charge.id);
    if (current?.brCodeBase64 !== undefined) return current.brCodeBase64;
    const rendered = qrPngDataUri(charge.brCode);
    await store.setChargeImage(companyId, charge.id, rendered);
    return rendered;
  })();
  inFlight.set(key, image);
  const forget = () => inFlight.delete(key);
  image.then(forget, forget);
  return image;
}

/** The charge as the API shows it, its image included. */
export async function withImage<C extends StoredCharge>(store: Store, companyId: string, charge: C): Promise<C & ChargeDoc> {
  return { ...charge, brCodeBase64: await chargeImage(store, companyId, charge) };
}

/** Whether stored charge JSON already holds its image (a key: inside a string value the quotes would be escaped). */
export function chargeJsonHasImage(json: string): boolean {
  return json.includes('"brCodeBase64":');
}

/**
 * The body of a webhook event with its charge's image: events are written when the charge
 * moves, possibly before the image exists, and get it when they are sent. The image is
 * stored once rendered, so every attempt sends the same bytes.
 */
export async function eventBodyWithImage(store: Store, companyId: string, body: string): Promise<string> {
  if (chargeJsonHasImage(body)) return body;
  const event = JSON.parse(body) as { data?: StoredCharge };
  if (!event.data?.brCode) return body;
  return JSON.stringify({ ...event, data: await withImage(store, companyId, event.data) });
}

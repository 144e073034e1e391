import { randomBytes } from 'node:crypto';
import { Hono, type Context } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import { applyMoves, simulatePayment } from '../domain/charge-lifecycle.js';
import { echo, ProblemError, problemResponse } from '../http/problems.js';
import { notFoundPage, pageCsp, paymentPage, payStatus } from '../pay/page.js';
import { NOSNIFF, NOSNIFF_HEADER, pageHeaders } from '../http/security-headers.js';
import type { ChargeDoc, StoredCharge } from '../store/types.js';
import { withImage } from '../domain/charge-image.js';

/**
 * The hosted payment page at the charge `url` (D42), outside the API contract and without an
 * API key: the unguessable charge id is the secret of the link.
 *
 * - `GET /pay/{id}`: the HTML page (a 404 HTML page for a browser when there is no such charge).
 * - `GET /pay/{id}/status`: `{status, paymentStatus, expiresAt, paymentDate?, successUrl?, failedUrl?}`, polled by the page.
 * - `POST /pay/{id}/simulate`: pays a development charge (D39, settled to RECEIVED); answers the
 *   new status as JSON, or `303` back to the page for a plain form post.
 *
 * A charge past its `expiresAt` is expired here before it is shown, so that the page never offers
 * to pay a charge that can no longer be paid, even before the expiry sweep has reached it.
 */
export function payRoutes(deps: Deps): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();

  routes.get('/pay/:id', async (c) => {
    const found = await currentCharge(deps, c.req.param('id'));
    const nonce = randomBytes(18).toString('base64');
    if (!found) {
      if (!prefersHtml(c)) return problem(c, missing(c.req.param('id')));
      return html(notFoundPage(nonce), nonce, 404);
    }
    const charge = await withImage(deps.store, found.companyId, found.charge);
    return html(paymentPage({ charge, nonce, now: deps.now() }), nonce, 200);
  });

  routes.get('/pay/:id/status', async (c) => {
    const id = c.req.param('id');
    const found = await currentCharge(deps, id);
    if (!found) return problem(c, missing(id));
    return json(payStatus(found.charge));
  });

  routes.post('/pay/:id/simulate', async (c) => {
    const id = c.req.param('id');
    const found = await currentCharge(deps, id);
    if (!found) return problem(c, missing(id));
    let charge: ChargeDoc;
    try {
      charge = await simulatePayment(deps, found.companyId, id);
    } catch (error) {
      if (error instanceof ProblemError) return problem(c, error);
      throw error;
    }
    // A form posted without the page's script comes back to the page (which shows the new state).
    if (prefersHtml(c)) return new Response(null, { status: 303, headers: { Location: `../${encodeURIComponent(id)}`, 'Cache-Control': 'no-store' } });
    return json(payStatus(charge));
  });

  for (const [path, allow] of [
    ['/pay/:id', 'GET, HEAD'],
    ['/pay/:id/status', 'GET, HEAD'],
    ['/pay/:id/simulate', 'POST'],
  ] as const) {
    routes.all(path, (c) =>
      problem(
        c,
        new ProblemError('methodNotAllowed', `${echo(c.req.method)} is not allowed on ${echo(c.req.path)}; use ${allow}.`, { headers: { Allow: allow } }),
      ),
    );
  }

  return routes;
}

/** The charge as the payer must see it now: expired if its time is up (D39), whatever the sweep has done yet. */
async function currentCharge(deps: Deps, id: string): Promise<{ companyId: string; charge: StoredCharge } | undefined> {
  const found = await deps.store.findCharge(id);
  if (!found) return undefined;
  const now = deps.now();
  const due = (charge: StoredCharge) => charge.status === 'OPEN' && Date.parse(charge.expiresAt) <= now.getTime();
  // The same move as the expiry sweep: decided again on the stored charge, inside the store's transaction.
  const charge = due(found.charge)
    ? await deps.store.transitionCharge(found.companyId, id, (stored) => (due(stored) ? applyMoves(stored, ['EXPIRED'], now) : { charge: stored, events: [] }))
    : found.charge;
  return charge && { companyId: found.companyId, charge };
}

function missing(id: string): ProblemError {
  return new ProblemError('notFound', `No charge with id ${echo(id)} exists.`);
}

/** A browser navigating (or posting a form) rather than a script asking for JSON. */
function prefersHtml(c: Context<AppEnv>): boolean {
  const accept = c.req.header('accept') ?? '';
  return /\btext\/html\b/i.test(accept) && !/\bapplication\/json\b/i.test(accept);
}

const commonHeaders = { 'Cache-Control': 'no-store', [NOSNIFF_HEADER]: NOSNIFF, 'Referrer-Policy': pageHeaders['Referrer-Policy'] };

/** A page: its own nonce'd policy and the headers of every page (D50), never cached or indexed. */
function html(body: string, nonce: string, status: 200 | 404): Response {
  return new Response(body, {
    status,
    headers: {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Security-Policy': pageCsp(nonce),
      'X-Robots-Tag': 'noindex, nofollow',
      'Cache-Control': 'no-store',
      ...pageHeaders,
    },
  });
}

function json(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json', ...commonHeaders } });
}

/** These routes answer their problems themselves, with their own headers, wherever they are mounted. */
function problem(c: Context<AppEnv>, error: ProblemError): Response {
  return problemResponse(error, new URL(c.req.url).pathname, commonHeaders);
}

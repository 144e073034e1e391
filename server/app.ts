import { Hono } from 'hono';
import { SmartRouter } from 'hono/router/smart-router';
import { TrieRouter } from 'hono/router/trie-router';
import { HTTPException } from 'hono/http-exception';
import type { Context, ErrorHandler } from 'hono';
import { randomUUID } from 'node:crypto';
import type { AppEnv, Deps } from './deps.js';
import { OperationCatalog } from './http/operations.js';
import { requestChecks } from './http/operation.js';
import { mountOperations } from './http/mount-operations.js';
import { pathPattern } from '../lib/contract/paths.js';
import { checkRequestLimits, readRequestHead } from './http/request-limits.js';
import { callerIdentifier, stampRateLimit } from './http/rate-limit.js';
import { stampRequestId } from './http/request-id.js';
import { SegmentRouter } from './http/router.js';
import { requestLogWriter } from './http/access-log.js';
import { echo, ProblemError, problemResponse, problemTypes } from './http/problems.js';
import { chargeOperations } from './routes/charges.js';
import { docsRoutes } from './routes/docs.js';
import { clientOperations } from './routes/clients.js';
import { orderOperations } from './routes/orders.js';
import { payRoutes } from './routes/pay.js';
import { productOperations } from './routes/products.js';
import { sandboxOperations } from './routes/sandbox.js';
import { subscriptionOperations } from './routes/subscriptions.js';
import { webhookOperations } from './routes/webhooks.js';

/** The handlers of the contract's operations, by resource; which path and method each serves is the contract's. */
const resources = [chargeOperations, clientOperations, productOperations, subscriptionOperations, orderOperations, webhookOperations, sandboxOperations];

/**
 * The reference server: both base URLs of the contract on one Hono app, one sub-app per
 * resource, each operation routed by its operationId (`mountOperations`). Every error leaves as
 * an RFC 9457 problem through `onError`. `catalog` is given by whoever warms it up (server/main.ts).
 */
export function createApp(deps: Deps, catalog = new OperationCatalog(deps.validator)): Hono<AppEnv> {
  const checks = requestChecks(deps, catalog);
  // Routes by segment (server/http/router.ts); a path it cannot take goes to Hono's TrieRouter.
  // The contract's operations, each route one handler with the front door inside it (`door`,
  // below), so that Hono composes nothing for them: a middleware in front of every route made
  // each request pay Hono's composition (three async layers). Any other request goes on to `rest`.
  const app = new Hono<AppEnv>({ router: new SmartRouter({ routers: [new SegmentRouter(), new TrieRouter()] }) });
  const logRequest = requestLogWriter(() => deps.logger);
  const onError: ErrorHandler<AppEnv> = (error, c) => {
    if (error instanceof ProblemError) return problem(c, error);
    if (error instanceof HTTPException && error.status < 500) {
      const kind = (Object.keys(problemTypes) as Array<keyof typeof problemTypes>).find((k) => problemTypes[k].status === error.status);
      if (kind) return problem(c, new ProblemError(kind, error.message || problemTypes[kind].title));
    }
    deps.logger.error({ requestId: c.get('requestId'), err: error }, 'unexpected error');
    return problem(
      c,
      new ProblemError('internal', `An unexpected error occurred; nothing was changed. Quote request id ${c.get('requestId')} when reporting it.`),
    );
  };

  const identifyCaller = callerIdentifier(deps);

  // The front door of every request: its id; who is calling and their quota (D11), before
  // anything else is looked at, so that a flood, keyed or not, is refused with 429 before it costs
  // more than a counted write; the size of its URL and headers (D34); then its route (`answer`).
  // Whatever the answer, it carries the id and the quota's fields, and the request's line is
  // logged. What the route throws leaves through the one onError, as does anything thrown that is
  // not an Error (which Hono hands to no error handler).
  const door = async (c: Context<AppEnv>, answer: (c: Context<AppEnv>) => Response | Promise<Response>): Promise<Response> => {
    const started = performance.now();
    const requestId = randomUUID();
    c.set('requestId', requestId);
    let res: Response;
    try {
      const head = readRequestHead(c);
      const identifying = identifyCaller(c, head.apiKey);
      if (identifying !== undefined) await identifying;
      checkRequestLimits(c, head);
      res = await answer(c);
    } catch (thrown) {
      res = await onError(thrown instanceof Error ? thrown : new Error(`non-Error value thrown: ${String(thrown)}`), c);
    }
    stampRateLimit(res, c.get('rateLimit'));
    stampRequestId(res, requestId);
    logRequest({
      requestId,
      method: c.req.method,
      path: c.req.path,
      status: res.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      companyId: c.get('company')?.doc.id,
    });
    return res;
  };

  // Everything but the contract's operations (the docs, the payment pages, unknown paths and
  // methods), each behind the door as Hono's one middleware.
  const rest = new Hono<AppEnv>({ router: new SmartRouter({ routers: [new SegmentRouter(), new TrieRouter()] }) });
  rest.use(async (c, next) => {
    let routed = false;
    const res = await door(c, async () => {
      await next();
      routed = true;
      return c.res;
    });
    // The route's answer is c.res already (stamped in place); the door's own refusal is not.
    if (!routed) c.res = res;
  });
  rest.route('/', docsRoutes(deps));
  rest.route('/', payRoutes(deps));

  mountOperations(
    app,
    deps,
    catalog,
    checks,
    resources.flatMap((operations) => operations(deps)),
    door,
  );
  app.notFound((c) => rest.fetch(c.req.raw, c.env));

  const knownPaths = catalog.all().map((rules) => ({ pattern: pathPattern(rules.path), method: rules.method.toUpperCase() }));

  rest.notFound((c) => {
    const allowed = knownPaths.filter((p) => p.pattern.test(c.req.path)).map((p) => p.method);
    if (allowed.length > 0) {
      const allow = [...new Set(allowed)].join(', ');
      return problem(
        c,
        new ProblemError('methodNotAllowed', `${echo(c.req.method)} is not allowed on ${echo(c.req.path)}; use ${allow}.`, { headers: { Allow: allow } }),
      );
    }
    return problem(c, new ProblemError('notFound', `No operation exists at ${echo(c.req.method)} ${echo(c.req.path)}.`));
  });

  rest.onError(onError);
  app.onError(onError);

  return app;
}

function problem(c: Context<AppEnv>, error: ProblemError): Response {
  return problemResponse(error, new URL(c.req.url).pathname);
}

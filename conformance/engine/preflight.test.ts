/**
 * The preflight's verdicts on targets made of a few answers: what stops the run (and the line it
 * prints), and what a foreign-but-correct deployment answers that must never stop it. The CLI
 * meets real targets in conformance/cli.test.ts.
 */
import { describe, expect, test } from 'vitest';
import { testRunOptions } from '../test-support/fixtures.js';
import { RunContext } from './context.js';
import { detectNoState, NotServingError, preflight } from './preflight.js';
import type { ConformanceOptions } from './types.js';

/** Answers by `METHOD /path` (the first pattern matching it); 404 when none does. */
type Answer = Response | Error | ((request: Request, signal: AbortSignal | undefined) => Response | Error | Promise<Response>);
type Routes = Array<[RegExp, Answer]>;

const json = (body: unknown, status = 200, type = 'application/json') => new Response(JSON.stringify(body), { status, headers: { 'content-type': type } });
const refused = () => new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:80'), { code: 'ECONNREFUSED' }) });
/**
 * Accepts the request and never answers, until the caller's signal aborts it (as fetch does).
 * It listens on the caller's signal itself, not on the Request's: a Request follows its init's
 * signal only through a weak reference, so once nothing else holds the Request, a garbage
 * collection could drop it and the abort never came (a full run timed out here so, twice).
 */
const never = (_request: Request, signal: AbortSignal | undefined) =>
  new Promise<Response>((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));

function target(routes: Routes): { fetch: typeof fetch; sent: string[] } {
  const sent: string[] = [];
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    const line = `${request.method} ${new URL(request.url).pathname}`;
    sent.push(line);
    const found = routes.find(([pattern]) => pattern.test(line))?.[1];
    const answer = typeof found === 'function' ? await found(request, init?.signal ?? undefined) : found;
    if (answer === undefined) return new Response('Not Found', { status: 404 });
    if (answer instanceof Error) throw answer;
    return answer.clone();
  }) as typeof fetch;
  return { fetch: fetchFn, sent };
}

function context(fetchFn: typeof fetch, over: Partial<ConformanceOptions> = {}): RunContext {
  return new RunContext(testRunOptions({ baseUrl: 'http://t.test', baseUrlAlt: 'http://t.test', apiKey: 'sk_key', timeoutMs: 1_000, ...over }), {
    fetch: fetchFn,
  });
}

/** A deployment of this interface, as far as the preflight looks: the list, and creates refusing `{}`. */
const serving: Routes = [
  [/^GET \/client$/, json([])],
  [/^POST \//, json({ status: 422, detail: 'name is required' }, 422, 'application/problem+json')],
];

describe('preflight: runs on', () => {
  const cases: Array<[string, Routes]> = [
    ['a deployment of this interface', serving],
    [
      'a foreign one: its own error bodies and codes, JSON sent as text/plain',
      [
        [/^GET \/client$/, json([], 200, 'text/plain')],
        [/^POST \//, json({ error: 'bad request' }, 400)],
      ],
    ],
    [
      'alt operations behind another authentication (403)',
      [
        [/^GET \/client$/, json([])],
        [/^POST \//, json({ error: 'forbidden' }, 403)],
      ],
    ],
    [
      'a create that looks up what it names first (404), then one that validates',
      [
        [/^GET \/client$/, json([])],
        [/^POST \/client$/, json({ error: 'company not found' }, 404)],
        [/^POST \//, json({ error: 'bad request' }, 400)],
      ],
    ],
    ['a server error on the list: not_a_server_error reports it', [[/^GET \/client$/, json({ error: 'boom' }, 500)], ...serving]],
  ];
  test.each(cases)('%s', async (_name, routes) => {
    const { fetch } = target(routes);
    await expect(preflight(context(fetch), fetch)).resolves.toBeUndefined();
  });
});

describe('preflight: a wrong target stops the run with one line', () => {
  const nothing = /^nothing answers like this API at http:\/\/t\.test: is the base path right\? /;
  const cases: Array<[string, { routes: Routes; over?: Partial<ConformanceOptions>; want: RegExp }]> = [
    [
      'connection refused',
      { routes: [[/^GET \/$/, refused()]], want: /^http:\/\/t\.test does not answer: connection refused: nothing listens on t\.test:80 / },
    ],
    [
      'nothing answers in time (the preflight limit, not a long per-request timeout)',
      {
        routes: [[/^GET \/$/, never]],
        over: { timeoutMs: 300 },
        want: /^http:\/\/t\.test does not answer: timed out: no answer within 300 ms$/,
      },
    ],
    [
      'a wrong base path: the list answered 404',
      { routes: [[/^GET \/$/, json({})]], want: new RegExp(`${nothing.source}GET /client with the key answered 404 \\(no such operation there`) },
    ],
    ['the list answered 405', { routes: [[/^GET \/client$/, new Response('', { status: 405 })], ...serving], want: /GET \/client with the key answered 405 / }],
    [
      'a web page where the list belongs (a single-page app answering every path)',
      {
        routes: [[/^GET /, new Response('<!doctype html><html></html>', { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' } })]],
        want: new RegExp(`${nothing.source}GET /client with the key answered 200 with a web page \\(text/html; charset=utf-8\\), not JSON\\.$`),
      },
    ],
    [
      'nothing of {base_url_alt} there: every create answered 404',
      {
        routes: [[/^GET \/client$/, json([])]],
        want: /^nothing answers like this API at http:\/\/t\.test: is the base path right\? Its creates, each sent \{\}, answered POST \/client → 404, POST \/subscription → 404, POST \/product → 404, POST \/order → 404 \(no such operation there: not an answer the contract has for it\)\. If these operations are served at another address, give it as --base-url-alt\.$/,
      },
    ],
  ];
  test.each(cases)('%s', async (_name, { routes, over, want }) => {
    const { fetch } = target(routes);
    await expect(preflight(context(fetch, over), fetch)).rejects.toThrow(want);
  });

  test.each([
    ['500 with a JSON body (its database down)', json({ error: 'database unavailable' }, 500), '500 (body: {"error":"database unavailable"})'],
    ['503 with a text body (a proxy in front of nothing)', new Response('Service Unavailable', { status: 503 }), '503 (body: Service Unavailable)'],
  ])('a target answering server errors to everything: not serving, %s', async (_name, answer, shown) => {
    const { fetch, sent } = target([[/^(GET|POST) \/(client|subscription|product|order)$/, answer]]);
    const run = preflight(context(fetch), fetch);
    await expect(run).rejects.toThrow(NotServingError);
    await expect(run).rejects.toThrow(
      `the target is not serving: GET /client with the key answered ${shown}, and POST /client sent {} answered ${shown}. Nothing can be judged while it answers server errors (is its database, or a service it needs, down?); the run stops before any check.`,
    );
    // The host probe, the key probe, one create sent {}: nothing else, nothing created.
    expect(sent).toEqual(['GET /', 'GET /client', 'POST /client']);
  });

  test('a wrong --base-url-alt is named, and nothing is created there: every create is sent {}', async () => {
    const { fetch, sent } = target([
      [/^GET \/client$/, json([])],
      [/^POST \/alt\//, json({ error: 'nope' }, 404)],
    ]);
    const run = preflight(context(fetch, { baseUrlAlt: 'http://t.test/alt' }), fetch);
    await expect(run).rejects.toThrow(
      /^nothing answers like this API at http:\/\/t\.test\/alt: is the base path right\? Its creates, each sent \{\}, answered POST \/client → 404, .*\)\.$/,
    );
    expect(sent.filter((line) => line.startsWith('POST'))).toEqual(['POST /alt/client', 'POST /alt/subscription', 'POST /alt/product', 'POST /alt/order']);
  });
});

describe('detectNoState: a target that keeps nothing stops the run, suggesting --stateless', () => {
  const created = (id: string) => json({ status: 201, message: 'created', data: { id, url: 'https://pay.test/x', total: 1000 } }, 201);
  let next = 0;
  const fresh = () => created(`char_${++next}`);

  const cases: Array<[string, { routes: Routes; want?: RegExp }]> = [
    [
      'two creates answered the same id (a mock answering its example)',
      {
        routes: [[/^POST \/charge\/payment-link$/, created('char_example')]],
        want: /^the target keeps no state: two createPaymentLink requests with different bodies were both answered id char_example; if it is a mock or a stub, run again with --stateless/,
      },
    ],
    [
      'the record just created is not found, now and a second later',
      {
        routes: [[/^POST \/charge\/payment-link$/, fresh]],
        want: /^the target keeps no state: getCharge answered 404 for char_\d+, which createPaymentLink had just created \(and again a second later\); .*--stateless/,
      },
    ],
    [
      'the record is read back',
      {
        routes: [
          [/^POST \/charge\/payment-link$/, fresh],
          [/^GET \/charge\//, json({ status: 200, message: 'ok', data: {} })],
        ],
      },
    ],
    [
      'the record is found a second later (a replica catching up)',
      (() => {
        let reads = 0;
        return {
          routes: [
            [/^POST \/charge\/payment-link$/, fresh],
            [/^GET \/charge\//, () => Promise.resolve(++reads === 1 ? new Response('', { status: 404 }) : json({ status: 200, message: 'ok', data: {} }))],
          ] as Routes,
        };
      })(),
    ],
    ['the creates are refused: left to the checks', { routes: [[/^POST /, json({ error: 'no' }, 400)]] }],
  ];
  test.each(cases)('%s', async (_name, { routes, want }) => {
    const { fetch } = target(routes);
    const run = detectNoState(context(fetch));
    if (want) await expect(run).rejects.toThrow(want);
    else await expect(run).resolves.toBeUndefined();
  });

  test('--stateless and --read-only: nothing is sent', async () => {
    for (const over of [{ stateless: true }, { readOnly: true }]) {
      const { fetch, sent } = target([]);
      await detectNoState(context(fetch, over));
      expect(sent).toEqual([]);
    }
  });
});

/**
 * @operation-wide: it runs conformance checks over every operation of the contract, so `npm run test:operation` runs it, but its rows for other operations.
 */
import QRCode from 'qrcode';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadBundledContract, resolvePointer } from '../../lib/contract/bundled.js';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { RunContext } from '../engine/context.js';
import type { CheckName, CheckResult, ConformanceOptions, Outcome, Profile } from '../engine/types.js';
import { crc16CcittFalse, parseTlv } from '../pix/brcode-check.js';
import { domainCheck, readOnlyReason, sentTotal, statelessReason } from './domain.js';
import { fixtureFor } from '../data/fixtures.js';
import { giveFixtures, testRunOptions } from '../test-support/fixtures.js';

const contract = loadBundledContract();
const example = (name: string): Record<string, unknown> =>
  structuredClone(resolvePointer(contract, `/components/examples/${name}/value`)) as Record<string, unknown>;

let server: TestServer;
let otherQr: string;
beforeAll(async () => {
  server = await createTestServer();
  otherQr = await QRCode.toDataURL('00020126not the brCode');
});
afterAll(async () => server.close());

type Data = Record<string, unknown>;
type Next = (request: Request) => Promise<Response>;
/** A deployment: the reference server, or it with a fault in what it answers. */
type Fault = (request: Request, next: Next) => Promise<Response>;

/** Rewrites the `data` of the JSON answers to `method` on paths starting with `prefix`; `sent` is the request body. */
const rewrite =
  (method: string, prefix: string, change: (data: Data, sent: Data) => void): Fault =>
  async (request, next) => {
    const sent = request.method === 'POST' ? ((await request.clone().json()) as Data) : {};
    const response = await next(request);
    if (request.method !== method || !new URL(request.url).pathname.startsWith(prefix) || response.status >= 300) return response;
    const body = (await response.json()) as { data: Data };
    change(body.data, sent);
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  };
const onCharge = (change: (data: Data, sent: Data) => void) => rewrite('GET', '/charge/', change);
const onLink = (change: (data: Data, sent: Data) => void) => rewrite('POST', '/charge/payment-link', change);

/** A BR Code with one field replaced and its CRC recomputed: well formed, but saying something else. */
function withField(brCode: string, tag: string, value: string): string {
  const body = parseTlv(brCode)
    .filter((t) => t.tag !== '63')
    .map((t) => (t.tag === tag ? `${tag}${String(value.length).padStart(2, '0')}${value}` : `${t.tag}${String(t.length).padStart(2, '0')}${t.value}`))
    .join('');
  return `${body}6304${crc16CcittFalse(`${body}6304`)}`;
}

const faults: Record<string, Fault> = {
  correct: (request, next) => next(request),
  brokenCrc: onCharge((d) => {
    const code = d.brCode as string;
    d.brCode = `${code.slice(0, -4)}${code.endsWith('0000') ? '0001' : '0000'}`;
  }),
  amountNotTheTotal: onCharge((d) => {
    d.brCode = withField(d.brCode as string, '54', '1.00');
  }),
  noAmount: onCharge((d) => {
    const code = d.brCode as string;
    const body = parseTlv(code)
      .filter((t) => t.tag !== '54' && t.tag !== '63')
      .map((t) => `${t.tag}${String(t.length).padStart(2, '0')}${t.value}`)
      .join('');
    d.brCode = `${body}6304${crc16CcittFalse(`${body}6304`)}`;
  }),
  qrOfAnotherText: onCharge((d) => {
    d.brCodeBase64 = otherQr;
  }),
  qrNotAPng: onCharge((d) => {
    d.brCodeBase64 = `data:image/png;base64,${Buffer.from('not a png').toString('base64')}`;
  }),
  totalInReaisOnCreate: onLink((d) => {
    d.total = (d.total as number) / 100;
  }),
  totalAsTextOnRead: onCharge((d) => {
    d.total = String(d.total);
  }),
  // A computed total that drops the quantity: only the charge from items is wrong.
  computedTotalIgnoresQuantity: async (request, next) => {
    const sent = request.method === 'POST' ? ((await request.clone().json()) as Data) : {};
    const items = sent.items as Array<{ quantity: number }> | undefined;
    const fault = items ? onLink((d) => (d.total = (d.total as number) / items[0]!.quantity)) : (r: Request, n: Next) => n(r);
    return fault(request, next);
  },
  // A sandbox code naming a tax number as Pix key, as this server did before D43.
  payableSandboxKey: onCharge((d) => {
    d.brCode = withField(d.brCode as string, '26', '0014br.gov.bcb.pix011445723174000110');
  }),
  noBrCode: onCharge((d) => {
    delete d.brCode;
  }),
  noTotalOnCreate: onLink((d) => {
    delete d.total;
  }),
};

function options(profile: Profile, over: Partial<ConformanceOptions> = {}): ConformanceOptions {
  return testRunOptions({ apiKey: server.apiKey, profile, timeoutMs: 5_000, runId: 'confdomain', ...over });
}

function deployment(fault: Fault): typeof fetch {
  return ((url: string | URL | Request, init?: RequestInit) => fault(new Request(url, init), async (r) => server.app.fetch(r))) as typeof fetch;
}

/** A run with a product fixture created the way the run creates it (through ctx.request). */
async function run(profile: Profile, fault: Fault, over: Partial<ConformanceOptions> = {}, product = true): Promise<RunContext> {
  const ctx = new RunContext(options(profile, over), { fetch: deployment(fault) });
  if (product) {
    const created = await ctx.request('createProduct', { body: { ...example('ProductCreateRequest'), name: `Café ${ctx.runId}`, price: 64.95 } });
    giveFixtures(ctx, { productId: (JSON.parse(created.response!.body) as { id: string }).id, price: 64.95 });
  }
  await domainCheck.run(ctx);
  return ctx;
}

const result = (ctx: RunContext, op: string, check: CheckName): CheckResult | undefined => ctx.recorder.results([op]).find((r) => r.check === check);

type Want = Partial<Record<`${'createPaymentLink' | 'getCharge'}.${CheckName}`, Outcome>>;
const allPass: Want = {
  'createPaymentLink.total_in_cents': 'pass',
  'getCharge.total_in_cents': 'pass',
  'getCharge.brcode_well_formed': 'pass',
  'getCharge.qr_matches_brcode': 'pass',
};

// Each case: a fault, and outcomes per profile (seed facts fail in both; a decision is info in seed).
const cases: Array<[string, { given: keyof typeof faults; want: Record<Profile, Want>; message?: RegExp; decision?: string }]> = [
  ['a correct server', { given: 'correct', want: { seed: allPass, reference: allPass } }],
  [
    'a CRC that does not match',
    {
      given: 'brokenCrc',
      want: { seed: { 'getCharge.brcode_well_formed': 'fail' }, reference: { 'getCharge.brcode_well_formed': 'fail' } },
      message: /CRC .* does not match/,
    },
  ],
  [
    'a valid BR Code for another amount',
    {
      given: 'amountNotTheTotal',
      want: { seed: { 'getCharge.brcode_well_formed': 'fail' }, reference: { 'getCharge.brcode_well_formed': 'fail' } },
      message: /amount \(field 54\) is 100 cents, the charge 1234/,
    },
  ],
  // The BCB manual's dynamic BR Code carries no field 54: an amount in the code is D28, not the seed.
  [
    'a BR Code without an amount (its presence is D28)',
    {
      given: 'noAmount',
      want: { seed: { 'getCharge.brcode_well_formed': 'info' }, reference: { 'getCharge.brcode_well_formed': 'fail' } },
      message: /no amount \(field 54\)/,
      decision: 'D28',
    },
  ],
  [
    'a QR code of another text',
    {
      given: 'qrOfAnotherText',
      want: { seed: { 'getCharge.qr_matches_brcode': 'fail', 'getCharge.brcode_well_formed': 'pass' }, reference: { 'getCharge.qr_matches_brcode': 'fail' } },
      message: /the QR code holds "00020126not the brCode", not data.brCode/,
    },
  ],
  [
    'an image that is no PNG',
    {
      given: 'qrNotAPng',
      want: { seed: { 'getCharge.qr_matches_brcode': 'fail' }, reference: { 'getCharge.qr_matches_brcode': 'fail' } },
      message: /not a readable PNG/,
    },
  ],
  [
    'the created total in reais',
    {
      given: 'totalInReaisOnCreate',
      want: {
        seed: { 'createPaymentLink.total_in_cents': 'fail', 'getCharge.total_in_cents': 'pass' },
        reference: { 'createPaymentLink.total_in_cents': 'fail' },
      },
      message: /data.total 12.34 is not an integer number of cents/,
    },
  ],
  [
    'the read total as text',
    {
      given: 'totalAsTextOnRead',
      want: { seed: { 'getCharge.total_in_cents': 'fail' }, reference: { 'getCharge.total_in_cents': 'fail' } },
      message: /data.total "1234" is not an integer/,
    },
  ],
  [
    'a computed total that ignores the quantity',
    {
      given: 'computedTotalIgnoresQuantity',
      want: { seed: { 'createPaymentLink.total_in_cents': 'fail' }, reference: { 'createPaymentLink.total_in_cents': 'fail' } },
      message: /\(items 2 × 64.95\): data.total is 6495, not 12990 \(2 × price 64.95 in cents\)/,
    },
  ],
  [
    "a development charge's BR Code with a key someone may hold (D43)",
    {
      given: 'payableSandboxKey',
      want: { seed: { 'getCharge.brcode_well_formed': 'info' }, reference: { 'getCharge.brcode_well_formed': 'fail' } },
      message: /names the Pix key "45723174000110"/,
      decision: 'D43',
    },
  ],
  [
    'no brCode in the charge (its presence is D21)',
    {
      given: 'noBrCode',
      want: { seed: { 'getCharge.brcode_well_formed': 'info' }, reference: { 'getCharge.brcode_well_formed': 'fail' } },
      message: /data.brCode is missing/,
    },
  ],
  [
    'no total in the payment link (its presence is D21)',
    {
      given: 'noTotalOnCreate',
      want: { seed: { 'createPaymentLink.total_in_cents': 'info' }, reference: { 'createPaymentLink.total_in_cents': 'fail' } },
      message: /data.total is missing/,
    },
  ],
];

describe('domainCheck', () => {
  test.each(cases)('%s', async (_name, { given, want, message, decision = 'D21' }) => {
    for (const profile of ['seed', 'reference'] as const) {
      const ctx = await run(profile, faults[given]!);
      for (const [key, outcome] of Object.entries(want[profile])) {
        const [op, check] = key.split('.') as [string, CheckName];
        const found = result(ctx, op, check);
        expect(found?.outcome, `${profile} ${key}: ${JSON.stringify(found?.findings.map((f) => f.message))}`).toBe(outcome);
        const departure = found?.findings.find((f) => f.outcome !== 'pass');
        if (departure) {
          if (message) expect(departure.message).toMatch(message);
          expect(departure.exchange).toBeDefined();
          if (departure.outcome === 'info') expect(departure.decision).toBe(decision);
        }
      }
    }
  });

  test('creates a charge from a total and one from items, both devMode and tagged, and reads both back', async () => {
    const ctx = await run('reference', faults.correct!);
    const created = ctx.exchanges.filter((e) => e.operationId === 'createPaymentLink').map((e) => JSON.parse(e.request.body!) as Data);
    expect(created).toEqual([
      { total: sentTotal, devMode: true, externalId: 'confdomain-domain-total' },
      { items: [{ productId: fixtureFor(ctx, 'createPaymentLink', 'productId')?.id, quantity: 2 }], devMode: true, externalId: 'confdomain-domain-items' },
    ]);
    expect(ctx.exchanges.filter((e) => e.operationId === 'getCharge')).toHaveLength(2);
    expect(result(ctx, 'getCharge', 'brcode_well_formed')?.findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/\(total 1234\): a valid BR Code of 1234 cents, naming the unregistrable key sandbox@pix.invalid$/),
      expect.stringMatching(/\(items 2 × 64.95\): a valid BR Code of 12990 cents, naming the unregistrable key sandbox@pix.invalid$/),
    ]);
  });

  test('without a product the run creates one of known price for the charge from items', async () => {
    const ctx = new RunContext(options('reference'), { fetch: deployment(faults.correct!) });
    giveFixtures(ctx, { productId: 'prod_createdelsewhere000000' });
    await domainCheck.run(ctx);
    const product = ctx.exchanges.find((e) => e.operationId === 'createProduct');
    expect(JSON.parse(product!.request.body!)).toMatchObject({ price: 12.34, name: expect.stringMatching(/confdomain$/) });
    expect(result(ctx, 'createPaymentLink', 'total_in_cents')?.findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/data.total 1234 cents/),
      expect.stringMatching(/\(items 2 × 12.34\): data.total 2468 cents/),
    ]);
  });

  test('no product fixture: only the charge from a total', async () => {
    const ctx = await run('reference', faults.correct!, {}, false);
    expect(ctx.exchanges.map((e) => e.operationId)).toEqual(['createPaymentLink', 'getCharge']);
  });

  test('--read-only skips every domain check with the reason and sends nothing', async () => {
    const ctx = await run('reference', faults.correct!, { readOnly: true }, false);
    expect(ctx.exchanges).toEqual([]);
    expect(ctx.recorder.results(['createPaymentLink', 'getCharge']).map((r) => [r.operationId, r.check, r.outcome, r.skipReason])).toEqual([
      ['createPaymentLink', 'total_in_cents', 'skip', readOnlyReason],
      ['getCharge', 'brcode_well_formed', 'skip', readOnlyReason],
      ['getCharge', 'qr_matches_brcode', 'skip', readOnlyReason],
      ['getCharge', 'total_in_cents', 'skip', readOnlyReason],
    ]);
  });

  test('a refused payment link is skipped with the answer, not judged', async () => {
    const refuse: Fault = async (request, next) =>
      request.method === 'POST' && request.url.endsWith('/charge/payment-link')
        ? new Response('{}', { status: 422, headers: { 'Content-Type': 'application/problem+json' } })
        : next(request);
    const ctx = await run('reference', refuse, {}, false);
    expect(result(ctx, 'getCharge', 'brcode_well_formed')).toMatchObject({
      outcome: 'skip',
      skipReason: expect.stringMatching(/→ 422: the payment link \(total 1234\) was not created/),
    });
  });
});

describe('domainCheck --stateless (a mock answering the contract example for its example id)', () => {
  const chargeFound = example('ChargeFound');
  const exampleId = (chargeFound.data as Data).id as string;
  const mock = (change: (data: Data) => void = () => {}): typeof fetch =>
    (async (url: string | URL | Request) => {
      const path = new URL(url instanceof Request ? url.url : url).pathname;
      if (path !== `/charge/${exampleId}`) return new Response('{}', { status: 404, headers: { 'Content-Type': 'application/problem+json' } });
      const body = structuredClone(chargeFound);
      change(body.data as Data);
      return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json' } });
    }) as typeof fetch;

  const cases: Array<[string, { given: (data: Data) => void; want: Want }]> = [
    [
      'the example charge',
      {
        given: () => {},
        want: {
          'createPaymentLink.total_in_cents': 'skip',
          'getCharge.brcode_well_formed': 'pass',
          'getCharge.qr_matches_brcode': 'pass',
          'getCharge.total_in_cents': 'pass',
        },
      },
    ],
    ['an example whose BR Code amount is not its total', { given: (d) => (d.total = 5000), want: { 'getCharge.brcode_well_formed': 'fail' } }],
    ['an example whose QR is another code', { given: (d) => (d.brCodeBase64 = otherQr), want: { 'getCharge.qr_matches_brcode': 'fail' } }],
    ['an example total in reais', { given: (d) => (d.total = 129.9), want: { 'getCharge.total_in_cents': 'fail' } }],
  ];
  test.each(cases)('%s', async (_name, { given, want }) => {
    const ctx = new RunContext(options('seed', { stateless: true }), { fetch: mock(given) });
    await domainCheck.run(ctx);
    expect(ctx.exchanges.map((e) => `${e.request.method} ${new URL(e.request.url).pathname}`)).toEqual([`GET /charge/${exampleId}`]);
    for (const [key, outcome] of Object.entries(want)) {
      const [op, check] = key.split('.') as [string, CheckName];
      expect(result(ctx, op, check)?.outcome, key).toBe(outcome);
    }
    expect(result(ctx, 'createPaymentLink', 'total_in_cents')?.skipReason).toBe(statelessReason);
  });
});

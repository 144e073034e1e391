/**
 * The hosted payment page (D42) as HTTP: `GET /pay/{id}` (HTML), `GET /pay/{id}/status` (JSON),
 * `POST /pay/{id}/simulate` (development charges, D39). These paths are outside the contract,
 * so their answers are asserted here directly (not through the harness's contract checker);
 * charges are still created through the contract's operations, and those answers are checked.
 */
import { Hono } from 'hono';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { components } from '../../generated/openapi.js';
import { createCompanyWithKey } from '../bootstrap.js';
import type { AppEnv } from '../deps.js';
import { simulateExpiration } from '../domain/charge-lifecycle.js';
import { contrastRatio, countdownText, escapeHtml, formatBrl, normalizeColor, scriptJson, textColorOn } from '../pay/page.js';
import { createProduct, created, expectProblem, fakeClock, postPaymentLink, read, type FakeClock, type PaymentLinkCreate } from '../test-support/fixtures.js';
import { createTestServer, type TestServer } from '../test-support/harness.js';
import { payRoutes } from './pay.js';

type Charge = components['schemas']['Charge'];

const START = '2026-11-21T14:30:00.000Z';
const SUCCESS = 'https://cafeaurora.example.com/obrigado';
const FAILED = 'https://cafeaurora.example.com/pagamento-falhou';

let server: TestServer;
let clock: FakeClock;
let app: { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

/**
 * The app that serves /pay: the server's own once app.ts mounts `payRoutes`, until then these
 * routes in front of it.
 */
function payApp(s: TestServer): typeof app {
  if (s.app.routes.some((route) => route.path.startsWith('/pay/'))) return s.app;
  const wrapper = new Hono<AppEnv>();
  wrapper.route('/', payRoutes(s.deps));
  wrapper.all('*', (c) => s.app.fetch(c.req.raw));
  return wrapper;
}

beforeEach(async () => {
  clock = fakeClock(START);
  server = await createTestServer({ now: clock.now });
  app = payApp(server);
});

afterEach(async () => {
  try {
    expect(server.violations).toEqual([]);
  } finally {
    await server.close();
  }
});

/** Creates a charge (as company A unless `apiKey`) and returns it as GET /charge/{id} shows it. */
async function newCharge(body: PaymentLinkCreate, apiKey?: string): Promise<Charge> {
  const id = created(await postPaymentLink(server, body, apiKey === undefined ? {} : { apiKey })).data.id;
  const answer = await read(await server.request(`/charge/${id}`, apiKey === undefined ? {} : { apiKey }));
  expect(answer.status, answer.text).toBe(200);
  return (answer.json as components['schemas']['ChargeResponse']).data;
}

/** A request to the pay routes, with no API key (the link's id is its secret). */
async function pay(path: string, init: RequestInit = {}) {
  return read(await app.request(path, init));
}

async function page(id: string): Promise<{ html: string; headers: Headers; status: number }> {
  const response = await app.request(`/pay/${id}`, { headers: { Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
  return { html: await response.text(), headers: response.headers, status: response.status };
}

/** Text of the element with this id (its first text run), entities left as they are. */
function elementText(html: string, id: string): string | undefined {
  return new RegExp(`id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1];
}

const nbsp = (text: string) => text.replace(/\u00a0/g, ' ');

describe('the page of an open development charge', () => {
  let charge: Charge;
  let html: string;
  let headers: Headers;

  beforeEach(async () => {
    charge = await newCharge({ total: 12990, devMode: true, successUrl: SUCCESS, failedUrl: FAILED });
    const got = await page(charge.id);
    expect(got.status).toBe(200);
    ({ html, headers } = got);
  });

  test('is Portuguese HTML with the company, the amount in reais and the countdown', () => {
    expect(headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html).toMatch(/^<!doctype html>\n<html lang="pt-BR">/);
    expect(elementText(html, 'company')).toBe('Café Aurora Ltda');
    expect(elementText(html, 'company-tax-id')).toBe('CNPJ 45.723.174/0001-10');
    expect(elementText(html, 'amount-label')).toBe('Valor a pagar');
    expect(nbsp(elementText(html, 'amount') ?? '')).toBe('R$ 129,90');
    expect(elementText(html, 'status')).toBe('Aguardando pagamento');
    expect(html).toContain('<div class="state-row" id="state-row">');
    expect(elementText(html, 'countdown')).toBe('60:00');
    expect(nbsp(html)).toContain('<title>Pagar R$ 129,90 a Café Aurora Ltda com Pix</title>');
  });

  test('shows the QR image with alt text and the copy-and-paste code in a labelled read-only field', () => {
    const img = /<img class="qr" id="qr" src="([^"]+)" alt="([^"]+)"/.exec(html);
    expect(img?.[1]).toBe(charge.brCodeBase64);
    expect(nbsp(img?.[2] ?? '')).toBe('QR Code Pix para pagar R$ 129,90 a Café Aurora Ltda');
    expect(html).toContain('<label for="brcode">Pix Copia e Cola</label>');
    expect(html).toContain(`<input id="brcode" type="text" readonly value="${charge.brCode}"`);
    expect(html).toContain('<button type="button" class="primary" id="copy">Copiar</button>');
    expect(html).toMatch(/id="copy-feedback" aria-live="polite"/);
  });

  test('offers "Simular pagamento", posting to the charge\'s simulate address', () => {
    expect(html).toContain(`<form id="simulate-form" method="post" action="${charge.id}/simulate">`);
    expect(html).toContain('>Simular pagamento</button>');
    expect(html).toContain('Cobrança de teste.');
  });

  test('uses the company colour with the text colour of better contrast', () => {
    expect(html).toContain('--brand: #0e7c66; --on-brand: #ffffff;');
  });

  test('loads nothing from anywhere: every src, href and action is a data: URI, relative, or "#"', () => {
    const addresses = [...html.matchAll(/\s(?:src|href|action)="([^"]*)"/g)].map((m) => m[1]!);
    expect(addresses.length).toBeGreaterThan(0);
    for (const address of addresses) expect(address).toMatch(/^(?:data:|#$|char_[0-9a-z]+\/simulate$)/);
    expect(html).not.toMatch(/<link[^>]+stylesheet/i);
    const css = /<style[^>]*>([^<]*)<\/style>/.exec(html)?.[1] ?? '';
    expect(css).toContain('--brand');
    expect(css).not.toMatch(/@import|url\(/i);
  });

  test('is sent with a strict CSP whose nonce is on its only style and scripts', () => {
    const csp = headers.get('content-security-policy') ?? '';
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(csp).toBe(
      `default-src 'none'; img-src data:; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`,
    );
    const executable = [...html.matchAll(/<(script|style)(?![^>]*type="application\/json")([^>]*)>/g)].map((m) => `${m[1]}${m[2]}`);
    expect(executable).toEqual([`style nonce="${nonce}"`, `script nonce="${nonce}"`]);
    expect(html).not.toMatch(/\son[a-z]+=|style="/i);
  });

  test.each([
    ['Cache-Control', 'no-store'],
    ['X-Content-Type-Options', 'nosniff'],
    ['Referrer-Policy', 'no-referrer'],
    ['X-Frame-Options', 'DENY'],
    ['X-Robots-Tag', 'noindex, nofollow'],
  ])('is sent with %s: %s', (name, value) => {
    expect(headers.get(name)).toBe(value);
  });

  test('a new nonce for every response', async () => {
    const again = await page(charge.id);
    expect(again.headers.get('content-security-policy')).not.toBe(headers.get('content-security-policy'));
  });

  test('embeds the state for its script, as the status address answers it', async () => {
    const data = JSON.parse(/<script type="application\/json" id="pay-data">([^<]*)<\/script>/.exec(html)![1]!) as Record<string, unknown>;
    expect(data).toEqual({
      id: charge.id,
      amount: formatBrl(12990),
      now: Date.parse(START),
      statusUrl: `${charge.id}/status`,
      status: 'OPEN',
      paymentStatus: 'PENDING',
      expiresAt: charge.expiresAt,
      successUrl: SUCCESS,
      failedUrl: FAILED,
    });
  });
});

describe('what the page shows, by charge', () => {
  test('a live charge: no simulate button, no test notice', async () => {
    const charge = await newCharge({ total: 5000 });
    const { html, status } = await page(charge.id);
    expect(status).toBe(200);
    expect(html).not.toContain('id="simulate-form"');
    expect(html).not.toContain('>Simular pagamento</button>');
    expect(html).not.toMatch(/\/simulate"/);
    expect(html).not.toContain('Cobrança de teste');
  });

  const testCodeCases: Array<[string, { given: { devMode: boolean; pixKey?: string }; want: boolean }]> = [
    ['a development charge of a company without a Pix key', { given: { devMode: true }, want: true }],
    ['a live charge of a company without a Pix key', { given: { devMode: false }, want: true }],
    ['a development charge of a company with a Pix key', { given: { devMode: true, pixKey: 'financeiro@padaria.example.com.br' }, want: true }],
    ['a live charge of a company with a Pix key', { given: { devMode: false, pixKey: 'financeiro@padaria.example.com.br' }, want: false }],
  ];
  test.each(testCodeCases)('D43: the test-code notice next to the QR code, for %s: %s', async (_name, { given, want }) => {
    const apiKey =
      given.pixKey === undefined
        ? undefined
        : (await createCompanyWithKey(server.deps.store, { name: 'Padaria Bom Dia', taxId: '11222333000181', pixKey: given.pixKey })).apiKey;
    const charge = await newCharge({ total: 5000, devMode: given.devMode }, apiKey);
    const { html } = await page(charge.id);
    const notice =
      '<p class="test-code" id="test-code" role="note"><strong>Código de teste:</strong> não pague este QR Code com dinheiro real — ele não leva a nenhuma conta.</p>\n<img class="qr"';
    expect(html.includes(notice)).toBe(want);
    expect(html.includes('aria-describedby="test-code copy-feedback"')).toBe(want);
    expect(html.includes('Código de teste')).toBe(want);
  });

  test.each([
    ['a charge to be delivered says the address is asked for after payment', true],
    ['a charge without shipping says nothing of delivery', false],
  ])('%s (D44)', async (_name, needShipping) => {
    const charge = await newCharge({ total: 5000, needShipping });
    expect(charge.needShipping).toBe(needShipping);
    const { html } = await page(charge.id);
    const line = 'Este pedido será entregue: o endereço de entrega é pedido após o pagamento.';
    if (needShipping) expect(elementText(html, 'shipping')).toBe(line);
    else expect(html).not.toContain(line);
  });

  test('the items, by quantity and name', async () => {
    const product = await createProduct(server.api, { name: 'Café especial torrado 1 kg', price: 64.95 });
    const charge = await newCharge({ items: [{ productId: product.id, quantity: 2 }] });
    const { html } = await page(charge.id);
    expect(nbsp(elementText(html, 'amount') ?? '')).toBe('R$ 129,90');
    expect(html).toContain('<summary>1 item</summary>');
    expect(html).toContain('<li>2 × Café especial torrado 1 kg</li>');
  });

  test('every value of the charge is escaped: names with markup, a light colour gets black text', async () => {
    const evil = `<script>alert("x")</script> & 'Cia'`;
    const { apiKey } = await createCompanyWithKey(server.deps.store, { name: evil, color: '#FE0' });
    const product = await createProduct(server.api, { name: '<img src=x onerror=alert(1)>', price: 10 });
    expect(product.id).toBeDefined();
    // The product is company A's; company "evil" charges a total with its own name on the page.
    const charge = await newCharge({ total: 1000, successUrl: 'https://loja.example.com/obrigado?pedido=1&x=2' }, apiKey);
    await server.deps.store.transitionCharge((await server.deps.store.findCharge(charge.id))!.companyId, charge.id, (stored) => ({
      charge: { ...stored, status: 'PAID', paymentStatus: 'PAID', paymentDate: START },
      events: [],
    }));
    const { html } = await page(charge.id);
    expect(html).not.toContain('<script>alert');
    expect(elementText(html, 'company')).toBe('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Cia&#39;');
    expect(html).toContain('--brand: #ffee00; --on-brand: #000000;');
    expect(html).toContain('href="https://loja.example.com/obrigado?pedido=1&amp;x=2"');
    const json = /<script type="application\/json" id="pay-data">([^<]*)<\/script>/.exec(html)?.[1];
    expect((JSON.parse(json!) as { successUrl: string }).successUrl).toBe('https://loja.example.com/obrigado?pedido=1&x=2');

    const itemCharge = await newCharge({ items: [{ productId: product.id, quantity: 1 }] });
    const items = await page(itemCharge.id);
    expect(items.html).toContain('<li>1 × &lt;img src=x onerror=alert(1)&gt;</li>');
  });

  test("another company's charge shows that company, by id alone", async () => {
    const id = created(await postPaymentLink(server, { total: 2500 }, { apiKey: server.other.apiKey })).data.id;
    const { html, status } = await page(id);
    expect(status).toBe(200);
    expect(elementText(html, 'company')).toBe('Padaria Bom Dia Ltda');
    expect(elementText(html, 'company-tax-id')).toBe('CNPJ 11.222.333/0001-81');
  });

  test('the tax number of a merchant that is a person: its CPF, so labelled', async () => {
    const { apiKey } = await createCompanyWithKey(server.deps.store, { name: 'Maria Doces', taxId: '12345678909' });
    const { html } = await page(created(await postPaymentLink(server, { total: 2500 }, { apiKey })).data.id);
    expect(elementText(html, 'company')).toBe('Maria Doces');
    expect(elementText(html, 'company-tax-id')).toBe('CPF 123.456.789-09');
  });

  test('a paid charge: the confirmation and the way back to successUrl, no payment section', async () => {
    const charge = await newCharge({ total: 12990, devMode: true, successUrl: SUCCESS });
    expect((await pay(`/pay/${charge.id}/simulate`, { method: 'POST' })).status).toBe(200);
    const { html } = await page(charge.id);
    // The closing card says it; the status row that said it while open is hidden, so it is said once.
    expect(html).toContain('<div class="state-row" id="state-row" hidden>');
    expect(elementText(html, 'amount-label')).toBe('Valor pago');
    expect(html).toContain('id="pay" aria-labelledby="pay-title" hidden>');
    expect(html).toContain('class="card done paid" id="done" aria-labelledby="done-title">');
    expect(elementText(html, 'done-title')).toBe('Pagamento confirmado');
    expect(html).toContain(`<a class="button primary" id="done-link" href="${SUCCESS}">Voltar à loja</a>`);
    expect(html).toMatch(/id="countdown-wrap" hidden/);
  });

  test('an expired charge without failedUrl: the final state, no link', async () => {
    const charge = await newCharge({ total: 12990, devMode: true });
    await simulateExpiration(server.deps, server.companyId, charge.id);
    const { html } = await page(charge.id);
    expect(html).toContain('<div class="state-row" id="state-row" hidden>');
    expect(elementText(html, 'amount-label')).toBe('Valor a pagar');
    expect(elementText(html, 'done-title')).toBe('Cobrança expirada');
    expect(elementText(html, 'done-text')).toBe('O prazo para pagar esta cobrança terminou. Nenhum valor foi cobrado.');
    expect(html).toContain('id="done-link" href="#" hidden>');
  });

  test('an unknown id: a 404 page for a browser, a problem for anyone else', async () => {
    const browser = await page('char_zz000000000000000000');
    expect(browser.status).toBe(404);
    expect(browser.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(browser.headers.get('content-security-policy')).toMatch(/^default-src 'none'/);
    expect(browser.html).toContain('<h1>Cobrança não encontrada</h1>');
    await expectProblem((await app.request('/pay/char_zz000000000000000000')) as Response, 404, '/problems/not-found', '/pay/char_zz000000000000000000');
  });

  test('HEAD answers as GET, without a body', async () => {
    const charge = await newCharge({ total: 5000 });
    const response = await app.request(`/pay/${charge.id}`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toBe('');
  });
});

describe('GET /pay/{id}/status', () => {
  test('the state as JSON, never cached; paymentDate once paid', async () => {
    const charge = await newCharge({ total: 12990, devMode: true, successUrl: SUCCESS, failedUrl: FAILED });
    const before = await pay(`/pay/${charge.id}/status`);
    expect(before.status).toBe(200);
    expect(before.headers.get('content-type')).toBe('application/json');
    expect(before.headers.get('cache-control')).toBe('no-store');
    expect(before.json).toEqual({ status: 'OPEN', paymentStatus: 'PENDING', expiresAt: charge.expiresAt, successUrl: SUCCESS, failedUrl: FAILED });

    clock.advance(90_000);
    await pay(`/pay/${charge.id}/simulate`, { method: 'POST' });
    const after = await pay(`/pay/${charge.id}/status`);
    expect(after.json).toEqual({
      status: 'PAID',
      paymentStatus: 'RECEIVED',
      expiresAt: charge.expiresAt,
      paymentDate: '2026-11-21T14:31:30.000Z',
      successUrl: SUCCESS,
      failedUrl: FAILED,
    });
  });

  test('without successUrl and failedUrl, neither appears', async () => {
    const charge = await newCharge({ total: 5000 });
    expect((await pay(`/pay/${charge.id}/status`)).json).toEqual({ status: 'OPEN', paymentStatus: 'PENDING', expiresAt: charge.expiresAt });
  });

  test('an unknown id is a 404 problem', async () => {
    await expectProblem(
      (await app.request('/pay/char_zz000000000000000000/status')) as Response,
      404,
      '/problems/not-found',
      '/pay/char_zz000000000000000000/status',
    );
  });

  test('a charge past expiresAt is expired as it is read, once (and GET /charge/{id} agrees)', async () => {
    const charge = await newCharge({ total: 5000, devMode: true });
    clock.advance(60 * 60 * 1000 - 1);
    expect((await pay(`/pay/${charge.id}/status`)).json).toMatchObject({ status: 'OPEN', paymentStatus: 'PENDING' });
    clock.advance(1);
    expect((await pay(`/pay/${charge.id}/status`)).json).toMatchObject({ status: 'EXPIRED', paymentStatus: 'EXPIRED' });
    expect((await pay(`/pay/${charge.id}/status`)).json).toMatchObject({ status: 'EXPIRED', paymentStatus: 'EXPIRED' });
    const stored = await read(await server.request(`/charge/${charge.id}`));
    expect((stored.json as { data: Charge }).data).toMatchObject({ status: 'EXPIRED', paymentStatus: 'EXPIRED' });
    expect((await page(charge.id)).html).toContain('Cobrança expirada');
  });
});

describe('POST /pay/{id}/simulate', () => {
  type Setup = (id: string) => Promise<void>;
  const cases: Array<
    [
      string,
      { given: { devMode: boolean; before?: Setup; id?: string }; want: { status: number; type?: string; state?: { status: string; paymentStatus: string } } },
    ]
  > = [
    [
      'a pending development charge is paid and settled',
      { given: { devMode: true }, want: { status: 200, state: { status: 'PAID', paymentStatus: 'RECEIVED' } } },
    ],
    ['a live charge cannot be simulated', { given: { devMode: false }, want: { status: 403, type: '/problems/live-charge' } }],
    [
      'a charge already paid',
      {
        given: { devMode: true, before: async (id) => void (await app.request(`/pay/${id}/simulate`, { method: 'POST' })) },
        want: { status: 409, type: '/problems/invalid-transition' },
      },
    ],
    [
      'an expired charge',
      {
        given: { devMode: true, before: async (id) => void (await simulateExpiration(server.deps, server.companyId, id)) },
        want: { status: 409, type: '/problems/invalid-transition' },
      },
    ],
    [
      'a charge whose time is up, not yet swept',
      { given: { devMode: true, before: async () => clock.advance(60 * 60 * 1000) }, want: { status: 409, type: '/problems/invalid-transition' } },
    ],
    ['an unknown id', { given: { devMode: true, id: 'char_zz000000000000000000' }, want: { status: 404, type: '/problems/not-found' } }],
  ];

  test.each(cases)('%s', async (_name, { given, want }) => {
    const charge = await newCharge({ total: 12990, devMode: given.devMode });
    await given.before?.(charge.id);
    const id = given.id ?? charge.id;
    const response = (await app.request(`/pay/${id}/simulate`, { method: 'POST', headers: { Accept: 'application/json' } })) as Response;
    if (want.type) {
      await expectProblem(response, want.status, want.type, `/pay/${id}/simulate`);
      return;
    }
    const answer = await read(response);
    expect(answer.status).toBe(want.status);
    expect(answer.headers.get('content-type')).toBe('application/json');
    expect(answer.json).toMatchObject(want.state!);
    expect((await pay(`/pay/${id}/status`)).json).toMatchObject(want.state!);
  });

  test('a plain form post (no script) goes back to the page with 303', async () => {
    const charge = await newCharge({ total: 12990, devMode: true });
    const response = await app.request(`/pay/${charge.id}/simulate`, {
      method: 'POST',
      headers: { Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(response.status).toBe(303);
    const location = response.headers.get('location')!;
    expect(new URL(location, `http://pay.test/pay/${charge.id}/simulate`).pathname).toBe(`/pay/${charge.id}`);
    expect((await pay(`/pay/${charge.id}/status`)).json).toMatchObject({ status: 'PAID', paymentStatus: 'RECEIVED' });
  });

  test('needs no API key, and a key of another company changes nothing', async () => {
    const charge = await newCharge({ total: 12990, devMode: true });
    const response = await app.request(`/pay/${charge.id}/simulate`, { method: 'POST', headers: { 'X-API-KEY': server.other.apiKey } });
    expect(response.status).toBe(200);
  });
});

describe('other methods', () => {
  const cases: Array<[string, { given: { method: string; path: string }; want: string }]> = [
    ['POST on the page', { given: { method: 'POST', path: '' }, want: 'GET, HEAD' }],
    ['DELETE on the page', { given: { method: 'DELETE', path: '' }, want: 'GET, HEAD' }],
    ['PUT on the status', { given: { method: 'PUT', path: '/status' }, want: 'GET, HEAD' }],
    ['GET on simulate', { given: { method: 'GET', path: '/simulate' }, want: 'POST' }],
  ];
  test.each(cases)('%s: 405 with Allow', async (_name, { given, want }) => {
    const path = `/pay/char_zz000000000000000000${given.path}`;
    const response = (await app.request(path, { method: given.method })) as Response;
    expect(response.headers.get('allow')).toBe(want);
    await expectProblem(response, 405, '/problems/method-not-allowed', path);
  });
});

describe('the page builder', () => {
  const brlCases: Array<[number, string]> = [
    [0, 'R$ 0,00'],
    [1, 'R$ 0,01'],
    [500, 'R$ 5,00'],
    [12990, 'R$ 129,90'],
    [123456789, 'R$ 1.234.567,89'],
    [99_999_999_999, 'R$ 999.999.999,99'],
  ];
  test.each(brlCases)('%i cents are %s', (cents, want) => {
    expect(nbsp(formatBrl(cents))).toBe(want);
  });

  const colorCases: Array<[string, { given: string; want: { text: string; normalized: string } }]> = [
    ['the default green', { given: '#0E7C66', want: { text: '#ffffff', normalized: '#0e7c66' } }],
    ['yellow, short form', { given: '#FE0', want: { text: '#000000', normalized: '#ffee00' } }],
    ['white', { given: '#ffffff', want: { text: '#000000', normalized: '#ffffff' } }],
    ['black', { given: '#000', want: { text: '#ffffff', normalized: '#000000' } }],
    ['mid grey #767676 (black 4.6:1 beats white 4.5:1)', { given: '#767676', want: { text: '#000000', normalized: '#767676' } }],
    ['dark blue', { given: '#1d3557', want: { text: '#ffffff', normalized: '#1d3557' } }],
    ['light blue', { given: '#8ecae6', want: { text: '#000000', normalized: '#8ecae6' } }],
    ['not a colour falls back to the default', { given: 'red;}</style>', want: { text: '#ffffff', normalized: '#0e7c66' } }],
  ];
  test.each(colorCases)('text on %s', (_name, { given, want }) => {
    expect(normalizeColor(given)).toBe(want.normalized);
    expect(textColorOn(given)).toBe(want.text);
    // Whichever is chosen reaches at least the 4.5:1 of WCAG 1.4.3 for these colours.
    expect(contrastRatio(want.normalized, want.text)).toBeGreaterThanOrEqual(4.5);
  });

  test.each([
    ['black on white', '#000000', '#ffffff', 21],
    ['white on white', '#ffffff', '#ffffff', 1],
    ['#767676 on white', '#767676', '#ffffff', 4.54],
  ] as const)('contrast of %s', (_name, a, b, want) => {
    expect(contrastRatio(a, b)).toBeCloseTo(want, 2);
  });

  test.each([
    [60 * 60 * 1000, '60:00'],
    [60 * 60 * 1000 + 1000, '1:00:01'],
    [61 * 60 * 1000 + 5000, '1:01:05'],
    [59_001, '01:00'],
    [1, '00:01'],
    [0, '00:00'],
    [-5000, '00:00'],
  ] as const)('%i ms left read %s', (ms, want) => {
    expect(countdownText(ms)).toBe(want);
  });

  test('escapeHtml and scriptJson leave nothing that ends an element or attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
    const text = scriptJson({ name: '</script><!-- & \u2028' });
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual({ name: '</script><!-- & \u2028' });
  });
});

/**
 * A caller-chosen id or path is echoed cut (D49, issue 34): an 8,000-character id made a
 * `detail` of 8,126 characters against the contract's 2,048.
 */
describe('a long id or path is echoed cut, never whole', () => {
  const longId = `char_${'z'.repeat(8_000)}`;
  const cases: Array<[string, { method: string; path: string; status: number; type: string }]> = [
    ['GET /pay/{id}', { method: 'GET', path: `/pay/${longId}`, status: 404, type: '/problems/not-found' }],
    ['GET /pay/{id}/status', { method: 'GET', path: `/pay/${longId}/status`, status: 404, type: '/problems/not-found' }],
    ['POST /pay/{id}/simulate', { method: 'POST', path: `/pay/${longId}/simulate`, status: 404, type: '/problems/not-found' }],
    ['DELETE /pay/{id} (405)', { method: 'DELETE', path: `/pay/${longId}`, status: 405, type: '/problems/method-not-allowed' }],
    ['PUT /charge/{id} (405, the API)', { method: 'PUT', path: `/charge/${longId}`, status: 405, type: '/problems/method-not-allowed' }],
    ['GET of no operation (404, the API)', { method: 'GET', path: `/nothing/${'x'.repeat(8_000)}`, status: 404, type: '/problems/not-found' }],
  ];
  test.each(cases)('%s', async (_name, { method, path, status, type }) => {
    const response = (await app.request(path, { method })) as Response;
    const p = await expectProblem(response, status, type);
    expect(p.detail.length).toBeLessThanOrEqual(2048);
    expect(p.detail.length).toBeLessThan(500);
    // The echo is the value's start, cut with an ellipsis.
    expect(p.detail).toMatch(/(char_|x)z*…|x+…/);
    expect(p.instance?.length ?? 0).toBeLessThanOrEqual(2048);
  });
});

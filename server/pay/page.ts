/**
 * The hosted payment page of a charge (D42): one self-contained HTML document, its CSS and
 * script inline (allowed by a per-response nonce), its only image the QR code as a `data:` URI,
 * so nothing is loaded from any other host. Every value taken from the charge is escaped.
 */
import { carriesUnpayableKey } from '../../lib/pix/brcode.js';
import type { ChargeDoc, StoredCharge } from '../store/types.js';

/** What the page (and `GET /pay/{id}/status`) tells about a charge's state. */
export interface PayStatus {
  status: ChargeDoc['status'];
  paymentStatus: ChargeDoc['paymentStatus'];
  expiresAt: string;
  paymentDate?: string;
  successUrl?: string;
  failedUrl?: string;
}

export function payStatus(charge: StoredCharge): PayStatus {
  return {
    status: charge.status,
    paymentStatus: charge.paymentStatus,
    expiresAt: charge.expiresAt,
    ...(charge.paymentDate !== undefined ? { paymentDate: charge.paymentDate } : {}),
    ...(charge.successUrl !== undefined ? { successUrl: charge.successUrl } : {}),
    ...(charge.failedUrl !== undefined ? { failedUrl: charge.failedUrl } : {}),
  };
}

/** The Content-Security-Policy of the page: nothing but its own nonce'd style and script, data: images and its own origin for the status. */
export function pageCsp(nonce: string): string {
  return [
    "default-src 'none'",
    'img-src data:',
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe in HTML content and in quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch]!);
}

/** JSON safe inside a `<script type="application/json">` element (no `</script>`, no `<!--`). */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

/** An amount in cents as Brazilians write it: `R$ 129,90` (with a no-break space after `R$`). */
export function formatBrl(cents: number): string {
  return brl.format(cents / 100);
}

const DEFAULT_COLOR = '#0E7C66';

/** `#RGB` or `#RRGGBB` as six lower-case digits, or the default colour when it is not a hex colour. */
export function normalizeColor(color: string | undefined): string {
  const match = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(color ?? '');
  if (!match) return normalizeColor(DEFAULT_COLOR);
  const hex = match[1]!.toLowerCase();
  return `#${hex.length === 3 ? [...hex].map((d) => d + d).join('') : hex}`;
}

/** WCAG 2.2 relative luminance of a hex colour. */
export function relativeLuminance(color: string): number {
  const hex = normalizeColor(color).slice(1);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const channel = parseInt(hex.slice(i, i + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG 2.2 contrast ratio of two colours, 1 to 21. */
export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** Black or white, whichever contrasts more with the background colour. */
export function textColorOn(background: string): '#000000' | '#ffffff' {
  return contrastRatio(background, '#000000') >= contrastRatio(background, '#ffffff') ? '#000000' : '#ffffff';
}

/** Pixel size of a PNG `data:` URI (from its IHDR chunk), to reserve the QR image's space. */
function pngSize(dataUri: string): { width: number; height: number } | undefined {
  const base64 = /^data:image\/png;base64,([A-Za-z0-9+/]+={0,2})$/.exec(dataUri)?.[1];
  if (!base64) return undefined;
  const head = Buffer.from(base64.slice(0, 44), 'base64');
  if (head.length < 24 || head.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

/** `mm:ss` (or `h:mm:ss` beyond 60 minutes) left until `expiresAt`, never negative. */
export function countdownText(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const pad = (n: number) => String(n).padStart(2, '0');
  // Up to the charge's 60 minutes as `mm:ss`; hours only beyond that.
  if (total <= 3600) return `${pad(Math.floor(total / 60))}:${pad(total % 60)}`;
  return `${Math.floor(total / 3600)}:${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
}

export const statusLabels: Record<ChargeDoc['paymentStatus'], string> = {
  PENDING: 'Aguardando pagamento',
  PROCESSING: 'Pagamento em processamento…',
  PAID: 'Pagamento confirmado',
  RECEIVED: 'Pagamento confirmado',
  EXPIRED: 'Cobrança expirada',
};

function httpUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function finalText(charge: ChargeDoc, amount: string): { title: string; text: string; link?: string } {
  if (charge.status === 'PAID') {
    const link = httpUrl(charge.successUrl);
    return { title: 'Pagamento confirmado', text: `Obrigado! O pagamento de ${amount} foi confirmado.`, ...(link ? { link } : {}) };
  }
  const link = httpUrl(charge.failedUrl);
  return { title: 'Cobrança expirada', text: 'O prazo para pagar esta cobrança terminou. Nenhum valor foi cobrado.', ...(link ? { link } : {}) };
}

export interface PaymentPageInput {
  charge: ChargeDoc;
  /** The nonce of this response's CSP. */
  nonce: string;
  now: Date;
}

/** The payment page of a charge. Addresses are relative to `/pay/{id}`, so a path prefix in front of the server keeps working. */
export function paymentPage({ charge, nonce, now }: PaymentPageInput): string {
  const e = escapeHtml;
  const brand = normalizeColor(charge.company.color);
  const onBrand = textColorOn(brand);
  // A button in the brand colour needs a visible edge on the white card (WCAG 1.4.11, 3:1).
  const brandEdge = contrastRatio(brand, '#ffffff') >= 3 ? brand : '#1f1f1f';
  const amount = formatBrl(charge.total);
  const company = charge.company.name;
  const open = charge.status === 'OPEN';
  const final = open ? undefined : finalText(charge, amount);
  const idPath = encodeURIComponent(charge.id);
  const size = pngSize(charge.brCodeBase64);
  const left = Date.parse(charge.expiresAt) - now.getTime();
  const items = charge.items;
  // D43: a code that leads to no account says so where the payer looks before scanning it.
  const testCode = carriesUnpayableKey(charge.brCode);

  const data = {
    id: charge.id,
    amount,
    now: now.getTime(),
    statusUrl: `${idPath}/status`,
    ...payStatus(charge),
  };

  return `${documentStart(`Pagar ${e(amount)} a ${e(company)} com Pix`)}
<style nonce="${nonce}">
:root { --brand: ${brand}; --on-brand: ${onBrand}; --brand-edge: ${brandEdge}; --ink: #1f1f1f; --muted: #4a4a4a; --line: #c4c4c4; --focus: #1f1f1f; }
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #f2f2f2; }
.brand { background: var(--brand); color: var(--on-brand); padding: 14px 16px; }
.brand p { margin: 0; font-size: .875rem; }
.brand h1 { margin: 0; font-size: 1.25rem; line-height: 1.3; overflow-wrap: anywhere; }
main { max-width: 480px; margin: 0 auto; padding: 12px; }
.card { background: #fff; border-radius: 12px; padding: 16px; margin-bottom: 12px; box-shadow: 0 1px 2px rgba(0,0,0,.12); }
.dev { background: #fff4ce; color: #3d2c00; border: 1px solid #8a6d00; border-radius: 8px; padding: 8px 12px; margin: 0 0 12px; font-size: .875rem; }
.label { margin: 0; color: var(--muted); font-size: .875rem; }
.amount { margin: 0; font-size: 2rem; font-weight: 700; line-height: 1.2; }
.state-row { display: flex; flex-wrap: wrap; justify-content: space-between; gap: 4px 12px; margin-top: 8px; }
.state { margin: 0; font-weight: 600; }
.countdown { margin: 0; color: var(--muted); font-variant-numeric: tabular-nums; }
.countdown.urgent { color: #a4001d; font-weight: 600; }
.connection { margin: 4px 0 0; color: #a4001d; font-size: .875rem; }
.shipping { margin: 8px 0 0; color: var(--muted); font-size: .875rem; }
details { margin-top: 8px; color: var(--muted); font-size: .875rem; }
details ul { margin: 4px 0 0; padding-left: 20px; }
h2 { font-size: 1.125rem; margin: 0 0 8px; }
.steps { margin: 16px 0 0; padding-left: 20px; color: var(--muted); font-size: .875rem; }
.test-code { background: #fde7e9; color: #5c0011; border: 1px solid #a4001d; border-radius: 8px; padding: 8px 12px; margin: 0 0 12px; font-size: .875rem; }
.qr { display: block; width: min(224px, 64vw); height: auto; margin: 0 auto 12px; image-rendering: pixelated; image-rendering: crisp-edges; }
label { display: block; font-weight: 600; margin-bottom: 4px; }
.copy-row { display: flex; gap: 8px; }
.copy-row input { flex: 1 1 auto; min-width: 0; font: .875rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--ink); background: #f7f7f7; border: 1px solid #767676; border-radius: 8px; padding: 10px; }
button, .button { font: inherit; font-weight: 600; min-height: 44px; border-radius: 8px; padding: 10px 16px; cursor: pointer; text-decoration: none; display: inline-block; text-align: center; }
.primary { background: var(--brand); color: var(--on-brand); border: 2px solid var(--brand-edge); }
.secondary { background: #fff; color: var(--ink); border: 2px solid var(--ink); width: 100%; margin-top: 12px; }
button:disabled { cursor: progress; opacity: .75; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; box-shadow: 0 0 0 5px #fff; }
.feedback { min-height: 1.5em; margin: 4px 0 0; font-size: .875rem; font-weight: 600; color: #0b5d1e; }
.error { margin: 8px 0 0; color: #a4001d; font-weight: 600; }
.error:empty { display: none; }
.done h2 { font-size: 1.375rem; }
.done.paid h2 { color: #0b5d1e; }
.done.expired h2 { color: #a4001d; }
.done p { margin: 0 0 12px; }
footer { text-align: center; color: var(--muted); font-size: .75rem; padding: 0 12px 16px; overflow-wrap: anywhere; }
</style>
</head>
<body>
<header class="brand">
<p>Pagamento para</p>
<h1 id="company">${e(company)}</h1>
</header>
<main>
${charge.devMode ? '<p class="dev" role="note"><strong>Cobrança de teste.</strong> Nenhum dinheiro real é movimentado.</p>\n' : ''}<section class="card" aria-labelledby="amount-label">
<p class="label" id="amount-label">Valor a pagar</p>
<p class="amount" id="amount">${e(amount)}</p>
<div class="state-row">
<p class="state" id="status" role="status" aria-live="polite">${e(statusLabels[charge.paymentStatus])}</p>
<p class="countdown${open && left < 5 * 60_000 ? ' urgent' : ''}" id="countdown-wrap"${open ? '' : ' hidden'}>Expira em <span id="countdown" role="timer" aria-live="off">${e(countdownText(left))}</span></p>
</div>
<p class="connection" id="connection" role="alert" hidden></p>
${
  items.length > 0
    ? `<details>
<summary>${items.length === 1 ? '1 item' : `${items.length} itens`}</summary>
<ul>
${items.map((item) => `<li>${e(String(item.quantity))} × ${e(item.product.name)}</li>`).join('\n')}
</ul>
</details>
`
    : ''
}${charge.needShipping ? '<p class="shipping" id="shipping">Este pedido será entregue: o endereço de entrega é pedido após o pagamento.</p>\n' : ''}</section>
<section class="card" id="pay" aria-labelledby="pay-title"${open ? '' : ' hidden'}>
<h2 id="pay-title">Pague com Pix</h2>
${testCode ? '<p class="test-code" id="test-code" role="note"><strong>Código de teste:</strong> não pague este QR Code com dinheiro real — ele não leva a nenhuma conta.</p>\n' : ''}<img class="qr" id="qr" src="${e(charge.brCodeBase64)}" alt="${e(`QR Code Pix para pagar ${amount} a ${company}`)}"${size ? ` width="${size.width}" height="${size.height}"` : ''}>
<label for="brcode">Pix Copia e Cola</label>
<div class="copy-row">
<input id="brcode" type="text" readonly value="${e(charge.brCode)}" autocomplete="off" autocapitalize="off" spellcheck="false" aria-describedby="${testCode ? 'test-code ' : ''}copy-feedback">
<button type="button" class="primary" id="copy">Copiar</button>
</div>
<p class="feedback" id="copy-feedback" aria-live="polite"></p>
${
  charge.devMode
    ? `<form id="simulate-form" method="post" action="${e(idPath)}/simulate">
<button type="submit" class="secondary" id="simulate">Simular pagamento</button>
</form>
`
    : ''
}<p class="error" id="error" role="alert"></p>
<ol class="steps" aria-label="Como pagar">
<li>Abra o app do seu banco e escolha pagar com Pix.</li>
<li>Escaneie o QR Code ou use o Pix Copia e Cola.</li>
<li>Confirme o pagamento: esta página se atualiza sozinha.</li>
</ol>
<noscript><p>Depois de pagar, atualize esta página para ver a confirmação.</p></noscript>
</section>
<section class="card done${final ? (charge.status === 'PAID' ? ' paid' : ' expired') : ''}" id="done" aria-labelledby="done-title"${final ? '' : ' hidden'}>
<h2 id="done-title" tabindex="-1">${e(final?.title ?? '')}</h2>
<p id="done-text">${e(final?.text ?? '')}</p>
<p id="done-note"></p>
<a class="button primary" id="done-link" href="${e(final?.link ?? '#')}"${final?.link ? '' : ' hidden'}>Voltar à loja</a>
</section>
</main>
<footer>
<p>Pagamento via Pix · Cobrança <span id="charge-id">${e(charge.id)}</span></p>
</footer>
<script type="application/json" id="pay-data">${scriptJson(data)}</script>
<script nonce="${nonce}">
${clientScript}
</script>
</body>
</html>
`;
}

/** The start of every page, up to its styles: Portuguese, phone-sized, not indexed, no referrer, no favicon request. */
function documentStart(escapedTitle: string): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${escapedTitle}</title>
<link rel="icon" href="data:,">`;
}

/** The page of a link whose charge does not exist. */
export function notFoundPage(nonce: string): string {
  return `${documentStart('Cobrança não encontrada')}
<style nonce="${nonce}">
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #1f1f1f; background: #f2f2f2; }
main { max-width: 480px; margin: 0 auto; padding: 24px 16px; }
h1 { font-size: 1.375rem; }
</style>
</head>
<body>
<main>
<h1>Cobrança não encontrada</h1>
<p>Este link de pagamento não existe. Confira o endereço ou peça um novo link a quem fez a cobrança.</p>
</main>
</body>
</html>
`;
}

/**
 * The page's behaviour: countdown, polling of the status every 2 s, copy to the clipboard,
 * simulated payment of development charges, and the move to `successUrl`/`failedUrl` at the end.
 * Plain ES2017 (no build step), run under the page's CSP nonce.
 */
const clientScript = String.raw`(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var data = JSON.parse($('pay-data').textContent);
  var labels = { PENDING: 'Aguardando pagamento', PROCESSING: 'Pagamento em processamento…', PAID: 'Pagamento confirmado', RECEIVED: 'Pagamento confirmado', EXPIRED: 'Cobrança expirada' };
  var POLL_MS = 2000;
  var HIDDEN_POLL_MS = 10000;
  var REDIRECT_MS = 1500;
  // The server's clock, not the device's, decides when the charge expires.
  var skew = data.now - Date.now();
  var expiresAt = Date.parse(data.expiresAt);
  var finished = false;
  var pollTimer = null;
  var tickTimer = null;
  var feedbackTimer = null;

  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function clock(ms) {
    var s = Math.max(0, Math.ceil(ms / 1000));
    if (s <= 3600) return pad(Math.floor(s / 60)) + ':' + pad(s % 60);
    return Math.floor(s / 3600) + ':' + pad(Math.floor((s % 3600) / 60)) + ':' + pad(s % 60);
  }
  function httpUrl(value) {
    if (!value) return null;
    try {
      var url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
    } catch (e) {
      return null;
    }
  }

  function tick() {
    if (finished) return;
    var left = expiresAt - (Date.now() + skew);
    $('countdown').textContent = clock(left);
    $('countdown-wrap').classList.toggle('urgent', left < 5 * 60 * 1000);
  }

  function apply(state) {
    if (!state || !labels[state.paymentStatus]) return;
    var label = labels[state.paymentStatus];
    // Only a change is written, so that screen readers announce each state once.
    if ($('status').textContent !== label) $('status').textContent = label;
    if (state.status === 'PAID' || state.status === 'EXPIRED') finish(state);
  }

  function finish(state) {
    if (finished) return;
    finished = true;
    clearTimeout(pollTimer);
    clearInterval(tickTimer);
    var paid = state.status === 'PAID';
    var target = httpUrl(paid ? state.successUrl : state.failedUrl);
    $('pay').hidden = true;
    $('countdown-wrap').hidden = true;
    var done = $('done');
    done.className = 'card done ' + (paid ? 'paid' : 'expired');
    $('done-title').textContent = paid ? 'Pagamento confirmado' : 'Cobrança expirada';
    $('done-text').textContent = paid
      ? 'Obrigado! O pagamento de ' + data.amount + ' foi confirmado.'
      : 'O prazo para pagar esta cobrança terminou. Nenhum valor foi cobrado.';
    var link = $('done-link');
    if (target) {
      link.href = target;
      link.hidden = false;
      $('done-note').textContent = 'Você será levado de volta à loja em instantes.';
    } else {
      link.hidden = true;
      $('done-note').textContent = '';
    }
    done.hidden = false;
    if (target) setTimeout(function () { window.location.replace(target); }, REDIRECT_MS);
  }

  function connection(ok) {
    var note = $('connection');
    note.hidden = ok;
    note.textContent = ok ? '' : 'Sem conexão com o servidor. Tentando de novo…';
  }

  function schedule() {
    clearTimeout(pollTimer);
    if (!finished) pollTimer = setTimeout(poll, document.hidden ? HIDDEN_POLL_MS : POLL_MS);
  }

  function poll() {
    if (finished) return;
    clearTimeout(pollTimer);
    fetch(data.statusUrl, { headers: { Accept: 'application/json' }, cache: 'no-store', credentials: 'same-origin' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (state) { connection(true); apply(state); }, function () { connection(false); })
      .then(schedule, schedule);
  }

  function say(text) {
    var feedback = $('copy-feedback');
    clearTimeout(feedbackTimer);
    // Emptied first, so that a second "Copiado" is announced again.
    feedback.textContent = '';
    feedbackTimer = setTimeout(function () {
      feedback.textContent = text;
      feedbackTimer = setTimeout(function () { feedback.textContent = ''; }, 5000);
    }, 50);
  }

  function copyByHand(field) {
    field.focus();
    field.select();
    field.setSelectionRange(0, field.value.length);
    var copied = false;
    try { copied = document.execCommand('copy'); } catch (e) { copied = false; }
    say(copied ? 'Copiado' : 'Não foi possível copiar: selecione o código e copie manualmente.');
  }

  $('copy').addEventListener('click', function () {
    var field = $('brcode');
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(field.value).then(function () { say('Copiado'); }, function () { copyByHand(field); });
    } else {
      copyByHand(field);
    }
  });
  $('brcode').addEventListener('focus', function (event) { event.target.select(); });

  var form = $('simulate-form');
  if (form) {
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var button = $('simulate');
      button.disabled = true;
      button.textContent = 'Simulando…';
      $('error').textContent = '';
      fetch(form.action, { method: 'POST', headers: { Accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (response) {
          if (response.ok) return response.json();
          var reason = response.status === 409 ? 'esta cobrança não está mais aberta.'
            : response.status === 403 ? 'só cobranças de teste podem ser simuladas.'
            : response.status === 404 ? 'a cobrança não foi encontrada.'
            : 'tente de novo.';
          throw new Error('Não foi possível simular o pagamento: ' + reason);
        })
        .then(apply)
        .catch(function (error) {
          button.disabled = false;
          button.textContent = 'Simular pagamento';
          $('error').textContent = error && error.message && error.message.indexOf('Não foi') === 0 ? error.message : 'Não foi possível simular o pagamento: tente de novo.';
          poll();
        });
    });
  }

  document.addEventListener('visibilitychange', function () { if (!document.hidden) poll(); });

  if (data.status === 'PAID' || data.status === 'EXPIRED') {
    finish(data);
  } else {
    tick();
    tickTimer = setInterval(tick, 1000);
    schedule();
  }
})();`;

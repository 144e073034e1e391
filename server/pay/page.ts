/**
 * The hosted payment page of a charge (D42): one self-contained HTML document, its CSS and
 * script inline (allowed by a per-response nonce), its only image the QR code as a `data:` URI,
 * so nothing is loaded from any other host. The pages are `hono/html` templates, which escape
 * every interpolated value; `raw` marks the few texts that are trusted as they are.
 */
import { html, raw } from 'hono/html';
import { escapeToBuffer } from 'hono/utils/html';
import { formatTaxId } from '../../lib/brazil/tax-id.js';
import { carriesUnpayableKey } from '../../lib/pix/brcode.js';
import type { ChargeDoc, StoredCharge } from '../store/types.js';
import { brandColors } from './brand-colors.js';
import { paymentPageScript } from './page-script.js';
import { notFoundPageStyle, paymentPageStyle } from './page-style.js';
import { amountLabel, countdownText, finalText, formatBrl, statusLabels } from './page-text.js';

export { contrastRatio, normalizeColor, relativeLuminance, textColorOn } from './brand-colors.js';
export { amountLabel, countdownText, formatBrl, statusLabels } from './page-text.js';

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

/** Text as the pages' templates write it: safe in HTML content and in quoted attribute values. */
export function escapeHtml(value: string): string {
  const buffer: [string] = [''];
  escapeToBuffer(value, buffer);
  return buffer[0];
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

/** Pixel size of a PNG `data:` URI (from its IHDR chunk), to reserve the QR image's space. */
function pngSize(dataUri: string): { width: number; height: number } | undefined {
  const base64 = /^data:image\/png;base64,([A-Za-z0-9+/]+={0,2})$/.exec(dataUri)?.[1];
  if (!base64) return undefined;
  const head = Buffer.from(base64.slice(0, 44), 'base64');
  if (head.length < 24 || head.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
}

/** A piece of a page, as `html` returns it. */
type Fragment = ReturnType<typeof html>;

export interface PaymentPageInput {
  charge: ChargeDoc;
  /** The nonce of this response's CSP. */
  nonce: string;
  now: Date;
}

/** The payment page of a charge. Addresses are relative to `/pay/{id}`, so a path prefix in front of the server keeps working. */
export function paymentPage({ charge, nonce, now }: PaymentPageInput): string {
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
  // Payers check who they pay by the tax number, as their bank app shows it after the scan.
  const taxId = formatTaxId(charge.company.taxId);

  const data = {
    id: charge.id,
    amount,
    now: now.getTime(),
    statusUrl: `${idPath}/status`,
    ...payStatus(charge),
  };

  // Each optional block carries its own line end, so that a block left out leaves no empty line.
  const devNote = charge.devMode ? html`<p class="dev" role="note"><strong>Cobrança de teste.</strong> Nenhum dinheiro real é movimentado.</p>\n` : '';
  const itemList =
    items.length > 0
      ? html`<details>
<summary>${items.length === 1 ? '1 item' : `${items.length} itens`}</summary>
<ul>
${items.map((item) => html`<li>${item.quantity} × ${item.product.name}</li>\n`)}</ul>
</details>
`
      : '';
  const shipping = charge.needShipping
    ? html`<p class="shipping" id="shipping">Este pedido será entregue: o endereço de entrega é pedido após o pagamento.</p>\n`
    : '';
  // The dash written as an escape: the compiled server then holds no character past Latin-1
  // (see `compact` in scripts/bundle-node.mjs).
  const testCodeNote = testCode
    ? html`<p class="test-code" id="test-code" role="note"><strong>Código de teste:</strong> não pague este QR Code com dinheiro real \u2014 ele não leva a nenhuma conta.</p>\n`
    : '';
  const simulateForm = charge.devMode
    ? html`<form id="simulate-form" method="post" action="${idPath}/simulate">
<button type="submit" class="secondary" id="simulate">Simular pagamento</button>
</form>
`
    : '';

  const body = html`<header class="brand">
<p>Pagamento para</p>
<h1 id="company">${company}</h1>
${taxId ? html`<p id="company-tax-id">${taxId.kind} ${taxId.text}</p>\n` : ''}</header>
<main>
${devNote}<section class="card" aria-labelledby="amount-label">
<p class="label" id="amount-label">${amountLabel(charge.status)}</p>
<p class="amount" id="amount">${amount}</p>
<div class="state-row" id="state-row"${hiddenUnless(open)}>
<p class="state" id="status" role="status" aria-live="polite">${statusLabels[charge.paymentStatus]}</p>
<p class="countdown${open && left < 5 * 60_000 ? ' urgent' : ''}" id="countdown-wrap"${hiddenUnless(open)}>Expira em <span id="countdown" role="timer" aria-live="off">${countdownText(left)}</span></p>
</div>
<p class="connection" id="connection" role="alert" hidden></p>
${itemList}${shipping}</section>
<section class="card" id="pay" aria-labelledby="pay-title"${hiddenUnless(open)}>
<h2 id="pay-title">Pague com Pix</h2>
${testCodeNote}<img class="qr" id="qr" src="${charge.brCodeBase64}" alt="QR Code Pix para pagar ${amount} a ${company}"${size ? html` width="${size.width}" height="${size.height}"` : ''}>
<label for="brcode">Pix Copia e Cola</label>
<div class="copy-row">
<input id="brcode" type="text" readonly value="${charge.brCode}" autocomplete="off" autocapitalize="off" spellcheck="false" aria-describedby="${testCode ? 'test-code ' : ''}copy-feedback">
<button type="button" class="primary" id="copy">Copiar</button>
</div>
<p class="feedback" id="copy-feedback" aria-live="polite"></p>
${simulateForm}<p class="error" id="error" role="alert"></p>
<ol class="steps" aria-label="Como pagar">
<li>Abra o app do seu banco e escolha pagar com Pix.</li>
<li>Escaneie o QR Code ou use o Pix Copia e Cola.</li>
<li>Confirme o pagamento: esta página se atualiza sozinha.</li>
</ol>
<noscript><p>Depois de pagar, atualize esta página para ver a confirmação.</p></noscript>
</section>
<section class="card done${final ? (charge.status === 'PAID' ? ' paid' : ' expired') : ''}" id="done" aria-labelledby="done-title"${hiddenUnless(final !== undefined)}>
<h2 id="done-title" tabindex="-1">${final?.title ?? ''}</h2>
<p id="done-text">${final?.text ?? ''}</p>
<p id="done-note"></p>
<a class="button primary" id="done-link" href="${final?.link ?? '#'}"${hiddenUnless(final?.link !== undefined)}>Voltar à loja</a>
</section>
</main>
<footer>
<p>Pagamento via Pix · Cobrança <span id="charge-id">${charge.id}</span></p>
</footer>
<script type="application/json" id="pay-data">${raw(scriptJson(data))}</script>
<script nonce="${nonce}">
${raw(paymentPageScript)}
</script>
`;

  return pageDocument({ title: `Pagar ${amount} a ${company} com Pix`, nonce, style: paymentPageStyle(brandColors(charge.company.color)), body });
}

/** The page of a link whose charge does not exist. */
export function notFoundPage(nonce: string): string {
  const body = html`<main>
<h1>Cobrança não encontrada</h1>
<p>Este link de pagamento não existe. Confira o endereço ou peça um novo link a quem fez a cobrança.</p>
</main>
`;
  return pageDocument({ title: 'Cobrança não encontrada', nonce, style: notFoundPageStyle, body });
}

/** The ` hidden` attribute, on an element shown only while the condition holds. */
function hiddenUnless(shown: boolean): Fragment | '' {
  return shown ? '' : html` hidden`;
}

interface PageDocumentInput {
  /** Plain text; the template escapes it. */
  title: string;
  nonce: string;
  /** The page's CSS, trusted as it is (page-style.ts). */
  style: string;
  body: Fragment;
}

/** Every page: Portuguese, phone-sized, not indexed, no referrer, no favicon request, its one style under the nonce. */
function pageDocument({ title, nonce, style, body }: PageDocumentInput): string {
  return rendered(html`<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${title}</title>
<link rel="icon" href="data:,">
<style nonce="${nonce}">
${raw(style)}</style>
</head>
<body>
${body}</body>
</html>
`);
}

/** The finished text of a template. `html` answers a promise only when a part is one, and no part of these pages is. */
function rendered(page: Fragment): string {
  if (page instanceof Promise) throw new TypeError('A /pay page was built from an asynchronous part; its templates take only text.');
  return page.toString();
}

/**
 * The styles of the pages under /pay (D42), inlined under each response's CSP nonce. The only
 * values taken from a charge are the brand colours, `#rrggbb` by construction (brand-colors.ts),
 * so no style text here can end its `<style>` element: the template inserts it unescaped.
 */
import type { BrandColors } from './brand-colors.js';

/** The payment page's styles: the company's colours as custom properties, then the rules that use them. */
export function paymentPageStyle({ brand, onBrand, brandEdge }: BrandColors): string {
  return `:root { --brand: ${brand}; --on-brand: ${onBrand}; --brand-edge: ${brandEdge}; --ink: #1f1f1f; --muted: #4a4a4a; --line: #c4c4c4; --focus: #1f1f1f; }
${PAYMENT_PAGE_RULES}`;
}

/** The page of a link that leads to no charge: no brand, so no custom properties. */
export const notFoundPageStyle = `body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; color: #1f1f1f; background: #f2f2f2; }
main { max-width: 480px; margin: 0 auto; padding: 24px 16px; }
h1 { font-size: 1.375rem; }
`;

const PAYMENT_PAGE_RULES = `*, *::before, *::after { box-sizing: border-box; }
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
/* The script focuses the title only to have it read out; a heading is no control, so it gets no focus ring. */
.done h2:focus { outline: none; box-shadow: none; }
.done.paid h2 { color: #0b5d1e; }
.done.expired h2 { color: #a4001d; }
.done p { margin: 0 0 12px; }
footer { text-align: center; color: var(--muted); font-size: .75rem; padding: 0 12px 16px; overflow-wrap: anywhere; }
`;

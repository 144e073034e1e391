/**
 * The payment page (D42) escapes every value a merchant or a payer controls: each field is set
 * to a value that is markup, a quote and an ampersand, and the page must show it as text where
 * it shows it, keep it out of the markup everywhere, and give it to its script intact.
 */
import { describe, expect, test } from 'vitest';
import type { ChargeDoc } from '../store/types.js';
import { formatBrl, paymentPage, payStatus } from './page.js';

const EVIL = `<script>alert(1)</script>"'&`;
const ESCAPED = '&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;';
/** The same value where it stands in a URL: the parts a URL keeps as they are, escaped. */
const IN_PATH = `%3Cscript%3Ealert(1)%3C/script%3E%22&#39;&amp;`;
const IN_QUERY = `%3Cscript%3Ealert(1)%3C/script%3E%22%27&amp;`;
const PLAIN = 'Texto comum';

const NOW = new Date('2026-11-21T14:30:00.000Z');
const PNG = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const AMOUNT = formatBrl(12990);

const company: ChargeDoc['company'] = { taxId: '11222333000181', name: 'Café Aurora Ltda', color: '#0E7C66' };

const base: ChargeDoc = {
  id: 'char_ndvw35rd8w4vqozp8gqwwcxt',
  total: 12990,
  url: 'https://sandbox.example.com/pay/char_ndvw35rd8w4vqozp8gqwwcxt',
  status: 'OPEN',
  paymentStatus: 'PENDING',
  devMode: true,
  needShipping: false,
  expiresAt: '2026-11-21T15:30:00.000Z',
  company,
  brCode:
    '00020101021226410014br.gov.bcb.pix0119sandbox@pix.invalid5204000053039865406129.905802BR5916CAFE AURORA LTDA6009SAO PAULO62280524ndvw35rd8w4vqozp8gqwwcxt6304E4BC',
  brCodeBase64: PNG,
  items: [],
};

function withProduct(name: string): ChargeDoc['items'][number] {
  return {
    productId: 'prod_1',
    companyId: 'comp_1',
    quantity: 2,
    product: { id: 'prod_1', name, description: 'Moído na hora', price: 64.95, needShipping: false, companyId: 'comp_1', status: 'ACTIVE' },
  };
}

const customer = (patch: Partial<NonNullable<ChargeDoc['customer']>>): ChargeDoc['customer'] => ({
  name: 'Maria Souza',
  taxId: '12345678909',
  email: 'maria@example.com',
  phone: '11987654321',
  ...patch,
});

const paid = { status: 'PAID', paymentStatus: 'PAID', paymentDate: '2026-11-21T14:31:00.000Z' } as const;
const expired = { status: 'EXPIRED', paymentStatus: 'EXPIRED' } as const;

/**
 * `given` sets one field to a value; `shows` are the exact places the value must stand in,
 * escaped (none for a field the page does not show, which must then leave no trace at all).
 */
const cases: Array<[string, { given: (value: string) => Partial<ChargeDoc>; want: { shows: string[] } }]> = [
  [
    'the company name: title, header and the QR image alt text',
    {
      given: (name) => ({ company: { ...company, name } }),
      want: {
        shows: [
          `<title>Pagar ${AMOUNT} a ${ESCAPED} com Pix</title>`,
          `<h1 id="company">${ESCAPED}</h1>`,
          `alt="QR Code Pix para pagar ${AMOUNT} a ${ESCAPED}"`,
        ],
      },
    },
  ],
  ['the company tax number, shown only as the digits of a CPF or CNPJ', { given: (taxId) => ({ company: { ...company, taxId } }), want: { shows: [] } }],
  ['a product name, in the item list', { given: (name) => ({ items: [withProduct(name)] }), want: { shows: [`<li>2 × ${ESCAPED}</li>`] } }],
  ['the company colour, replaced by the default', { given: (color) => ({ company: { ...company, color } }), want: { shows: [] } }],
  [
    'successUrl, its path and fragment, as the link of a paid charge',
    {
      given: (value) => ({ ...paid, successUrl: `https://loja.example.com/${value}#${value}` }),
      want: { shows: [`id="done-link" href="https://loja.example.com/${IN_PATH}#${IN_PATH}">`] },
    },
  ],
  [
    'failedUrl, its query, as the link of an expired charge',
    {
      given: (value) => ({ ...expired, failedUrl: `https://loja.example.com/falhou?pedido=${value}` }),
      want: { shows: [`id="done-link" href="https://loja.example.com/falhou?pedido=${IN_QUERY}"`] },
    },
  ],
  [
    'a successUrl that is no http address, never a link',
    { given: (successUrl) => ({ ...paid, successUrl }), want: { shows: ['id="done-link" href="#" hidden>'] } },
  ],
  ['the customer name, not shown', { given: (name) => ({ customer: customer({ name }) }), want: { shows: [] } }],
  ['the customer e-mail, not shown', { given: (email) => ({ customer: customer({ email }) }), want: { shows: [] } }],
  ['externalId, not shown', { given: (externalId) => ({ externalId }), want: { shows: [] } }],
];

const PAY_DATA = /(<script type="application\/json" id="pay-data">)([^<]*)(<\/script>)/;

/** The page with text and attribute values blanked, so that only its markup is left to compare. */
function markup(html: string): string {
  return html
    .replace(PAY_DATA, '$1$3')
    .replace(/="[^"]*"/g, '=""')
    .replace(/>[^<]*</g, '><');
}

describe('every value a merchant or payer controls is escaped on the payment page', () => {
  test.each(cases)('%s', (_name, { given, want }) => {
    const charge: ChargeDoc = { ...base, ...given(EVIL) };
    const html = paymentPage({ charge, nonce: 'bm9uY2U=', now: NOW });
    const plain = paymentPage({ charge: { ...base, ...given(PLAIN) }, nonce: 'bm9uY2U=', now: NOW });

    for (const place of want.shows) expect(html).toContain(place);
    if (want.shows.length === 0) {
      expect(html).not.toContain(ESCAPED);
      expect(html).toBe(plain);
    }
    expect(html).not.toContain(EVIL);
    expect(html).not.toContain('<script>');
    // Never markup: the same elements and attributes as with a harmless value in its place.
    expect(markup(html)).toBe(markup(plain));
    // The page's script gets the state as it is, through JSON that cannot end its element.
    const json = PAY_DATA.exec(html)?.[2];
    expect(json).not.toMatch(/[<>&]/);
    expect(JSON.parse(json!)).toEqual({ id: charge.id, amount: AMOUNT, now: NOW.getTime(), statusUrl: `${charge.id}/status`, ...payStatus(charge) });
  });
});

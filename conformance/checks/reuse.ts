/**
 * ensure_resource_availability, for D48's reuse by tax number: a payment link whose `customer`
 * has the tax number of one of the company's `ACTIVE` clients makes no new client. The oldest
 * such client is used as it is stored (its name, e-mail and phone are not changed), and when the
 * company has none, one client is made, from the first link's data; either way each charge's
 * `customer` holds what its request sent.
 *
 * Five requests: the client list, two payment links with the same tax number and different names,
 * e-mails and phones, the list again, and the second charge read by id. The tax number is always
 * the same one, so a company the suite runs against again and again gains one client from this
 * check, once, ever (the charges stay, as every charge the run makes does). Every finding rests on
 * D48, so it is information in the `seed` profile.
 */
import type { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import { idOf } from '../data/fixtures.js';
import { isPlainObject } from '../data/schema.js';
import { answered, envelopeData, isSuccess, jsonOf } from './stateful.js';

const check = 'ensure_resource_availability' as const;
export const reuseDecision = 'D48';
const create = 'createPaymentLink';
const list = 'listClients';
const read = 'getCharge';

/** A valid CPF no example of the contract uses (529.982.247-25 is theirs), the same on every run. */
export const reusedTaxId = '39053344705';

type Json = Record<string, unknown>;
const digits = (value: unknown) => (typeof value === 'string' ? value.replace(/\D/g, '') : value);

export const reuseByTaxIdCheck: CheckModule = {
  checks: [check],
  async run(ctx: RunContext): Promise<void> {
    if (ctx.options.stateless || ctx.options.readOnly || !ctx.covers(create) || !ctx.covers(list)) return;
    const before = await clientsWithTaxId(ctx);
    if (!before) return;
    const customer = (n: 1 | 2): Json => ({
      name: `Cliente reaproveitado ${n} ${ctx.runId}`,
      taxId: reusedTaxId,
      email: `reuse-${n}-${ctx.runId.toLowerCase()}@example.com`,
      phone: n === 1 ? '11987654321' : '21987654321',
    });
    const links: Exchange[] = [];
    for (const n of [1, 2] as const) {
      const exchange = await ctx.request(create, { body: { total: 1000, devMode: true, externalId: `${ctx.runId}-reuse-${n}`, customer: customer(n) } });
      if (!isSuccess(exchange))
        return ctx.recorder.partial(create, check, `reuse by tax number (D48) not tried: a payment link with a customer ${answered(exchange)}`);
      links.push(exchange);
    }
    const after = await clientsWithTaxId(ctx);
    if (!after) return;
    const depart = (message: string, exchange: Exchange, related: Exchange[]) =>
      ctx.judge(create, check, false, `${message} (${reuseDecision})`, { decision: reuseDecision, exchange, related });
    const oldest = before.clients[0];
    const made = after.clients.filter((c) => !before.clients.some((b) => b.id === c.id));
    const wanted = oldest ? 0 : 1;
    let ok = true;
    if (made.length !== wanted) {
      ok = false;
      depart(
        `two payment links whose customer has tax number ${reusedTaxId} made ${made.length} new client${made.length === 1 ? '' : 's'} with it, where the company had ${oldest ? `the ACTIVE client ${String(oldest.id)} to reuse` : 'none, so one is made'}`,
        after.exchange,
        links,
      );
    }
    const kept = oldest ? after.clients.find((c) => c.id === oldest.id) : made[0];
    const want = oldest ?? customer(1);
    const changed = kept ? (['name', 'email', 'phone'] as const).filter((f) => digitsOrText(kept[f], f) !== digitsOrText(want[f], f)) : [];
    if (kept && changed.length > 0) {
      ok = false;
      depart(
        `the client reused by tax number ${reusedTaxId} (${String(kept.id)}) reads ${changed.map((f) => `\`${f}\` ${JSON.stringify(kept[f])}`).join(', ')}, where it ${oldest ? 'had' : 'was made with'} ${changed.map((f) => JSON.stringify(want[f])).join(', ')}: a payment link's customer does not change the client it reuses`,
        after.exchange,
        links,
      );
    }
    // The second charge's customer is what its request sent, not the reused client's data.
    const id = idOf(links[1]!);
    if (id && ctx.covers(read)) {
      const charge = await ctx.request(read, { pathParams: { id } });
      const shown = envelopeData(jsonOf(charge))?.customer;
      const sent = customer(2);
      const shownAs = isPlainObject(shown) ? shown : {};
      const differs = (['name', 'email', 'phone'] as const).filter((f) => digitsOrText(shownAs[f], f) !== digitsOrText(sent[f], f));
      if (isSuccess(charge) && differs.length > 0) {
        ok = false;
        depart(
          `the charge ${id} shows its customer's ${differs.map((f) => `\`${f}\` ${JSON.stringify(shownAs[f])}`).join(', ')}, sent ${differs.map((f) => JSON.stringify(sent[f])).join(', ')}: the charge's customer holds what was sent`,
          charge,
          [links[1]!],
        );
      }
    }
    if (ok)
      ctx.judge(create, check, true, `two payment links with one tax number reused one ACTIVE client, unchanged; each charge's customer is what was sent`, {
        exchange: after.exchange,
      });
  },
};

/** Phones are compared as digits (D46), names and e-mails as they are. */
function digitsOrText(value: unknown, field: string): unknown {
  return field === 'phone' ? digits(value) : value;
}

/** The company's ACTIVE clients with the reused tax number, oldest first (D08's order), and the list's exchange. */
async function clientsWithTaxId(ctx: RunContext): Promise<{ clients: Json[]; exchange: Exchange } | undefined> {
  const exchange = await ctx.request(list);
  const body = jsonOf(exchange);
  if (!isSuccess(exchange) || !Array.isArray(body)) {
    ctx.recorder.partial(create, check, `reuse by tax number (D48) not judged: the client list ${answered(exchange)}`);
    return undefined;
  }
  const clients = body
    .filter(isPlainObject)
    .filter((c) => digits(c.taxId ?? c.cpfCnpj) === reusedTaxId && (c.status ?? 'ACTIVE') === 'ACTIVE')
    .sort((a, b) => instant(a.createdAt) - instant(b.createdAt) || String(a.id).localeCompare(String(b.id)));
  return { clients, exchange };
}

function instant(value: unknown): number {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? 0 : ms;
}

/**
 * The domain checks on real charges: what the contract's schemas cannot say about a charge.
 *
 * - `total_in_cents`: `total` is an integer number of cents (seed §1 "Units"), returned as
 *   sent; when computed from `items` it is price × quantity, the price being in currency
 *   units (seed §1, §4.1 "computed from the products in items").
 * - `brcode_well_formed`: `brCode` is a Pix BR Code (the EMV® QRCPS merchant-presented
 *   payload the Banco Central do Brasil's Pix BR Code manual specifies: TLV, GUI
 *   br.gov.bcb.pix, CRC16/CCITT-FALSE) whose amount (field 54) is the charge total, and, for
 *   a development charge, whose Pix key no one can register (D43).
 * - `qr_matches_brcode`: `brCodeBase64` is a PNG whose QR code holds exactly `brCode`
 *   (seed §1: "its image form").
 *
 * These are seed facts: a departure fails in both profiles. Only the presence of a field
 * the contract decided to require (D21, D20), of an amount in the BR Code (D28), and an
 * unregistrable Pix key in a development charge's BR Code (D43), are decisions.
 *
 * The run creates a charge from a `total` and, when it has a product, one from `items`,
 * both `devMode: true` and tagged with the run id, and reads each back with
 * `GET /charge/{id}`. With `--stateless` (the Prism mock) it reads the contract's example
 * charge instead; with `--read-only` it cannot create charges and skips.
 */
import { resolvePointer, type JsonObject } from '../../lib/contract/bundled.js';
import { brCodeAmountCents, brCodePixKey, brCodeProblems, qrTextOfDataUri } from '../pix/brcode-check.js';
import { isUnregistrablePixKey } from '../../lib/pix/pix-key.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import type { CheckName, Exchange } from '../engine/types.js';
import { devModeField, validBodies } from '../data/bodies.js';
import { fixtureFor } from '../data/fixtures.js';
import { describeExchange, isObject } from './responses.js';
import { followRef } from '../../lib/contract/bundled.js';
import { isSuccess, jsonOf } from './stateful.js';

export const statelessReason = '--stateless: the target keeps no state, so it cannot return the charge the run created';
export const readOnlyReason = '--read-only: the run cannot create the charges to check';

const createOp = 'createPaymentLink';
const readOp = 'getCharge';
const domainChecks: CheckName[] = ['brcode_well_formed', 'qr_matches_brcode', 'total_in_cents'];

/** A charge total for the run: well above the seed's minimum of 500 cents, with both reais and centavos. */
export const sentTotal = 1234;
/** Fallback product price (currency units) when the run has no product of known price. */
const fallbackPrice = 12.34;

interface Expected {
  /** Which charge, for messages: `total 1234` or `items 2 × 6495`. */
  label: string;
  /** The total in cents the charge must have; undefined when only its own consistency can be checked. */
  cents?: number;
  /** How `cents` came about, for messages. */
  why: string;
}

export const domainCheck: CheckModule = {
  checks: domainChecks,
  async run(ctx: RunContext): Promise<void> {
    if (!ctx.covers(createOp) && !ctx.covers(readOp)) return;
    if (ctx.options.stateless) {
      ctx.recorder.skip(createOp, 'total_in_cents', statelessReason);
      if (ctx.covers(readOp)) await checkExampleCharge(ctx);
      else for (const check of domainChecks) ctx.recorder.skip(readOp, check, statelessReason);
      return;
    }
    if (ctx.options.readOnly) {
      ctx.recorder.skip(createOp, 'total_in_cents', readOnlyReason);
      for (const check of domainChecks) ctx.recorder.skip(readOp, check, readOnlyReason);
      return;
    }
    await checkCreated(ctx, { label: `total ${sentTotal}`, cents: sentTotal, why: 'the total sent' }, { total: sentTotal });
    const items = await itemsCharge(ctx);
    if (items) await checkCreated(ctx, items.expected, { items: items.items });
  },
};

// ---------------------------------------------------------------------------
// Reading responses
// ---------------------------------------------------------------------------

/** The schema of the property at `path` (names of nested properties) in an operation's success body, `$ref`s followed. */
function successSchemaAt(ctx: RunContext, operationId: string, path: string[]): unknown {
  const start = ctx.view(operationId).success?.schemaPointer;
  if (!start) return undefined;
  let { node } = followRef(ctx.contract, resolvePointer(ctx.contract, start), start);
  for (const key of path) node = followRef(ctx.contract, isObject(node) && isObject(node.properties) ? node.properties[key] : undefined, '').node;
  return node;
}

/**
 * Whether the contract requires member `name` of the object at `path` in an operation's
 * success body, and the decision behind that requirement (`x-decided: {required: …}`).
 */
function requirement(ctx: RunContext, operationId: string, path: string[], name: string): { required: boolean; decision?: string } {
  const node = successSchemaAt(ctx, operationId, path);
  const required = isObject(node) && Array.isArray(node.required) && node.required.includes(name);
  const decision = RunContext.decisionOf(node, 'required');
  return { required, ...(decision ? { decision } : {}) };
}

/**
 * The `data` of the seed's charge envelope `{status, message, data}` (seed §2.1), or why
 * there is none: judged under `check` (absent where required: info on a decision, else fail).
 */
function envelopeData(ctx: RunContext, operationId: string, check: CheckName, exchange: Exchange): JsonObject | undefined {
  const body = jsonOf(exchange);
  if (isObject(body) && isObject(body.data)) return body.data;
  const what = describeExchange(exchange);
  if (isObject(body) && !('data' in body)) {
    const { required, decision } = requirement(ctx, operationId, [], 'data');
    if (required) ctx.judge(operationId, check, false, `${what}: no data in the response envelope`, { decision, exchange });
    else ctx.recorder.skip(operationId, check, `${what}: no data to check`);
  } else {
    ctx.judge(operationId, check, false, `${what}: the body is not the charge envelope {status, message, data}`, { exchange });
  }
  return undefined;
}

/** A member of `data` that must be there: undefined after judging its absence. */
function member(ctx: RunContext, operationId: string, check: CheckName, exchange: Exchange, data: JsonObject, name: string): unknown {
  if (name in data && data[name] !== null) return data[name];
  const { required, decision } = requirement(ctx, operationId, ['data'], name);
  const what = describeExchange(exchange);
  if (required) ctx.judge(operationId, check, false, `${what}: data.${name} is missing`, { decision, exchange });
  else ctx.recorder.skip(operationId, check, `${what}: data.${name} is not present`);
  return undefined;
}

// ---------------------------------------------------------------------------
// The checks on one charge
// ---------------------------------------------------------------------------

function checkTotal(ctx: RunContext, operationId: string, exchange: Exchange, data: JsonObject, expected: Expected): void {
  const total = member(ctx, operationId, 'total_in_cents', exchange, data, 'total');
  if (total === undefined) return;
  const what = `${describeExchange(exchange)} (${expected.label})`;
  if (typeof total !== 'number' || !Number.isInteger(total)) {
    ctx.judge(operationId, 'total_in_cents', false, `${what}: data.total ${JSON.stringify(total)} is not an integer number of cents`, { exchange });
  } else if (expected.cents !== undefined && total !== expected.cents) {
    ctx.judge(operationId, 'total_in_cents', false, `${what}: data.total is ${total}, not ${expected.cents} (${expected.why})`, { exchange });
  } else {
    ctx.judge(operationId, 'total_in_cents', true, `${what}: data.total ${total} cents`, { exchange });
  }
}

function checkBrCode(ctx: RunContext, exchange: Exchange, data: JsonObject, expected: Expected): string | undefined {
  const check = 'brcode_well_formed';
  const brCode = member(ctx, readOp, check, exchange, data, 'brCode');
  if (brCode === undefined) return undefined;
  const what = `${describeExchange(exchange)} (${expected.label})`;
  if (typeof brCode !== 'string') {
    ctx.judge(readOp, check, false, `${what}: data.brCode is ${JSON.stringify(brCode)}, not a string`, { exchange });
    return undefined;
  }
  const problems = brCodeProblems(brCode);
  if (problems.length > 0) {
    ctx.judge(readOp, check, false, `${what}: ${problems.join('; ')}`, { exchange });
    return brCode;
  }
  // An amount (field 54) is the charge total in reais: another amount asks the payer for the
  // wrong sum. That the code carries one at all is D28: the BCB manual's dynamic BR Code leaves
  // field 54 out (the amount is in the payload its URL serves), and the seed says nothing.
  const cents = expected.cents ?? (typeof data.total === 'number' ? data.total : undefined);
  const amount = brCodeAmountCents(brCode);
  // A development charge's code must not be payable with real money: its Pix key is one no one
  // can register (D43). The seed says nothing of keys, so this is a decision.
  const key = brCodePixKey(brCode);
  const payableSandbox = data.devMode === true && !(key !== undefined && isUnregistrablePixKey(key));
  if (amount === undefined)
    ctx.judge(readOp, check, false, `${what}: the BR Code has no amount (field 54) for a charge of ${cents ?? '?'} cents`, {
      decision: brCodeDecision(ctx),
      exchange,
    });
  else if (cents !== undefined && amount !== cents)
    ctx.judge(readOp, check, false, `${what}: the BR Code amount (field 54) is ${amount} cents, the charge ${cents}`, { exchange });
  else if (payableSandbox) {
    const decision = RunContext.decisionOf(successSchemaAt(ctx, readOp, ['data', 'brCode']), 'description');
    ctx.judge(
      readOp,
      check,
      false,
      `${what}: a development charge's BR Code names the Pix key ${JSON.stringify(key)}, which someone may have registered; a sandbox code must name a key no one can (an e-mail at .invalid)`,
      { decision, exchange },
    );
  } else
    ctx.judge(readOp, check, true, `${what}: a valid BR Code of ${amount} cents${data.devMode === true ? `, naming the unregistrable key ${key}` : ''}`, {
      exchange,
    });
  return brCode;
}

/**
 * The decision behind the content of `brCode` beyond "a Pix copy-and-paste code" (seed §2.3):
 * the one the contract marks on the property's decided keywords (`x-decided: {pattern: D28}`).
 */
function brCodeDecision(ctx: RunContext): string | undefined {
  const node = successSchemaAt(ctx, readOp, ['data', 'brCode']);
  const decided = isObject(node) && isObject(node['x-decided']) ? Object.values(node['x-decided']) : [];
  return RunContext.decisionOf(node) ?? decided.find((d): d is string => typeof d === 'string');
}

function checkQr(ctx: RunContext, exchange: Exchange, data: JsonObject, brCode: string | undefined, expected: Expected): void {
  const check = 'qr_matches_brcode';
  const image = member(ctx, readOp, check, exchange, data, 'brCodeBase64');
  if (image === undefined) return;
  const what = `${describeExchange(exchange)} (${expected.label})`;
  if (typeof image !== 'string') {
    ctx.judge(readOp, check, false, `${what}: data.brCodeBase64 is not a string`, { exchange });
    return;
  }
  const qr = qrTextOfDataUri(image);
  if ('problem' in qr) ctx.judge(readOp, check, false, `${what}: data.brCodeBase64 is ${qr.problem}`, { exchange });
  else if (typeof brCode !== 'string') ctx.recorder.skip(readOp, check, `${what}: no brCode to compare the QR code with`);
  else if (qr.text !== brCode)
    ctx.judge(readOp, check, false, `${what}: the QR code holds ${JSON.stringify(qr.text.slice(0, 60))}, not data.brCode`, { exchange });
  else ctx.judge(readOp, check, true, `${what}: the QR code holds exactly data.brCode`, { exchange });
}

/** GET /charge/{id} and the checks on what it returns. */
async function readBack(ctx: RunContext, id: string, expected: Expected): Promise<void> {
  const names = Object.keys(ctx.view(readOp).pathExamples);
  const exchange = await ctx.request(readOp, { pathParams: { [names[0] ?? 'id']: id } });
  if (!isSuccess(exchange)) {
    const reason = `${describeExchange(exchange)}${exchange.error ? ` (${exchange.error})` : ''}: the charge could not be read`;
    for (const check of domainChecks) ctx.recorder.skip(readOp, check, reason);
    return;
  }
  const data = envelopeData(ctx, readOp, 'total_in_cents', exchange);
  if (!data) return;
  checkTotal(ctx, readOp, exchange, data, expected);
  const brCode = checkBrCode(ctx, exchange, data, expected);
  checkQr(ctx, exchange, data, brCode, expected);
}

/** Creates a charge from `fields` and checks the answer and the charge read back. */
async function checkCreated(ctx: RunContext, expected: Expected, fields: JsonObject): Promise<void> {
  const tag = `domain-${Object.keys(fields).join('-')}`;
  const body = { ...fields, [devModeField]: true, externalId: `${ctx.runId}-${tag}` };
  const exchange = await ctx.request(createOp, { body });
  if (!isSuccess(exchange)) {
    // Refusing a valid request is positive_data_acceptance's finding; here there is nothing to check.
    const reason = `${describeExchange(exchange)}${exchange.error ? ` (${exchange.error})` : ''}: the payment link (${expected.label}) was not created`;
    ctx.recorder.skip(createOp, 'total_in_cents', reason);
    for (const check of domainChecks) ctx.recorder.skip(readOp, check, reason);
    return;
  }
  const data = envelopeData(ctx, createOp, 'total_in_cents', exchange);
  if (!data) return;
  if (ctx.covers(createOp)) checkTotal(ctx, createOp, exchange, data, expected);
  if (!ctx.covers(readOp)) return;
  if (typeof data.id !== 'string' || data.id === '') {
    for (const check of domainChecks) ctx.recorder.skip(readOp, check, `${describeExchange(exchange)}: no charge id to read back`);
    return;
  }
  await readBack(ctx, data.id, expected);
}

/** The contract's example charge, which a stateless mock answers for its example id. */
async function checkExampleCharge(ctx: RunContext): Promise<void> {
  const params = ctx.view(readOp).pathExamples;
  const id = Object.values(params)[0];
  if (id === undefined) {
    for (const check of domainChecks) ctx.recorder.skip(readOp, check, 'the contract gives no example charge id');
    return;
  }
  await readBack(ctx, id, { label: 'example charge', why: 'the example' });
}

// ---------------------------------------------------------------------------
// The charge from items
// ---------------------------------------------------------------------------

/** A product of known price: the run's fixture, or one created from the contract's example. */
async function pricedProduct(ctx: RunContext): Promise<{ productId: string; price: number } | undefined> {
  // The run's product, priced as the answer that created it says.
  const fixture = fixtureFor(ctx, createOp, 'productId');
  const price = isObject(fixture?.body) ? fixture.body.price : undefined;
  if (fixture && typeof price === 'number') return { productId: fixture.id, price };
  const valid = validBodies(ctx, 'createProduct')[0]?.body;
  if (!isObject(valid)) return undefined;
  const body = { ...valid, price: fallbackPrice };
  const exchange = await ctx.request('createProduct', { body });
  const created = jsonOf(exchange);
  if (!isSuccess(exchange) || !isObject(created) || typeof created.id !== 'string') return undefined;
  return { productId: created.id, price: typeof created.price === 'number' ? created.price : fallbackPrice };
}

async function itemsCharge(ctx: RunContext): Promise<{ items: JsonObject[]; expected: Expected } | undefined> {
  if (!fixtureFor(ctx, createOp, 'productId')) return undefined;
  const product = await pricedProduct(ctx);
  if (!product) return undefined;
  // Prices are currency units (seed §1); the total is in cents.
  const priceCents = Math.round(product.price * 100);
  if (priceCents <= 0) return undefined;
  // At least two units, and enough to reach the seed's 500-cent minimum.
  const quantity = Math.max(2, Math.ceil(sentTotal / priceCents));
  const cents = priceCents * quantity;
  return {
    items: [{ productId: product.productId, quantity }],
    expected: { label: `items ${quantity} × ${product.price}`, cents, why: `${quantity} × price ${product.price} in cents` },
  };
}

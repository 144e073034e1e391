/**
 * negative_data_rejection, for D45: a request naming an `INACTIVE` record (a product or client,
 * which the contract lets a create make `INACTIVE`: `status` of `POST /client`, `POST /product`)
 * is refused with `422`, one field error with keyword `active` at each such reference.
 *
 * Which requests name which records is the contract's `use` links (conformance/data/relations.ts),
 * and whether a record can be made `INACTIVE` is whether a valid body of its create can say
 * `status: INACTIVE`: an operation the contract links so is tried with no change here. One
 * request per operation: the valid body that names the run's records, each such record replaced
 * by an `INACTIVE` one of its kind; when it names records of more than one kind, one request more
 * for each kind, its record alone replaced (an `INACTIVE` product with an `ACTIVE` client). The `INACTIVE` records are those the run already made (the
 * positive check sends every value of `status`), else one made here, once a run, of each kind.
 * Every finding rests on D45, so it is information in the `seed` profile.
 */
import { validBodies, validBodyWith } from '../data/bodies.js';
import { idOf } from '../data/fixtures.js';
import { pathText, recordNoun, type BodyReference, type FixtureSpec } from '../data/relations.js';
import { isPlainObject, replaceValues } from '../data/schema.js';
import type { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import { escapeToken } from '../../lib/contract/pointer.js';
import { answered, containsValue, isSuccess, jsonOf } from './stateful.js';

const check = 'negative_data_rejection' as const;
export const inactiveDecision = 'D45';
const inactive = { status: 'INACTIVE' } as const;

export const inactiveReferencesCheck: CheckModule = {
  checks: [check],
  async run(ctx: RunContext): Promise<void> {
    if (ctx.options.stateless || ctx.options.readOnly) return; // negative_data_rejection says why it did not run in full
    const byOperation = new Map<string, BodyReference[]>();
    for (const ref of ctx.contractView.referencesWith('use')) {
      const opId = ref.link.target.operationId;
      if (ctx.covers(opId) && ctx.fixtures.own.has(ref.fixture.key)) byOperation.set(opId, [...(byOperation.get(opId) ?? []), ref]);
    }
    const twins = new Map<string, string | undefined>();
    for (const [opId, refs] of byOperation) {
      const replaced = new Map<string, { inactiveId: string; noun: string; field: string }>();
      for (const ref of refs) {
        const own = ctx.fixtures.own.get(ref.fixture.key)!.id;
        if (replaced.has(own)) continue;
        if (!twins.has(ref.fixture.key)) twins.set(ref.fixture.key, await inactiveTwin(ctx, ref.fixture));
        const inactiveId = twins.get(ref.fixture.key);
        if (inactiveId) replaced.set(own, { inactiveId, noun: recordNoun(ref.link.source), field: pathText(ref.field.path) });
      }
      if (replaced.size === 0) continue;
      // The valid body naming most of the run's records that have an INACTIVE twin.
      const named = (body: unknown) => [...replaced.keys()].filter((id) => containsValue(body, id)).length;
      const body = validBodies(ctx, opId)
        .map((b) => b.body)
        .sort((a, b) => named(b) - named(a))[0];
      if (body === undefined || named(body) === 0) continue;
      // Every INACTIVE record at once, then, when the body names records of more than one kind, each
      // alone among ACTIVE ones: a service that looks at one kind's status only when another's
      // refuses the request (or at one kind only) is caught by the request naming the other alone.
      const inBody = [...replaced].filter(([own]) => containsValue(body, own));
      const kinds = [...new Set(inBody.map(([, { noun }]) => noun))];
      const sets = kinds.length > 1 ? [inBody, ...kinds.map((kind) => inBody.filter(([, { noun }]) => noun === kind))] : [inBody];
      for (const set of sets) {
        const sent = replaceValues(body, new Map(set.map(([own, { inactiveId }]) => [own, inactiveId])));
        const expected = set.flatMap(([, { inactiveId, noun }]) => pointersOf(sent, inactiveId).map((pointer) => ({ pointer, noun })));
        const exchange = await ctx.request(opId, { body: sent });
        judgeAnswer(ctx, opId, exchange, expected);
      }
    }
  },
};

/**
 * An `INACTIVE` record of the fixture's kind, made with the values its link asks for (a product a
 * subscription bills has `isSubscription: true`): one the run already created, else a new one.
 * Undefined when no valid body of its create can say `status: INACTIVE`, or the create failed.
 */
async function inactiveTwin(ctx: RunContext, fixture: FixtureSpec): Promise<string | undefined> {
  const wanted: Record<string, unknown> = { ...fixture.createdWith, ...inactive };
  const made = ctx.exchanges.find((e) => {
    if (e.operationId !== fixture.source.operationId || !idOf(e) || e.request.apiKey?.of !== 'first') return false;
    const sent = parseJson(e.request.body);
    const answer = jsonOf(e);
    return isPlainObject(sent) && isPlainObject(answer) && answer.status === 'INACTIVE' && Object.entries(wanted).every(([k, v]) => sent[k] === v);
  });
  if (made) return idOf(made);
  const body = validBodyWith(ctx, fixture.source.operationId, wanted);
  if (body === undefined) return undefined;
  return idOf(await ctx.request(fixture.source.operationId, { body }));
}

/** The JSON Pointers of `body` where the string `id` stands. */
export function pointersOf(body: unknown, id: string, at = ''): string[] {
  if (body === id) return [at];
  if (Array.isArray(body)) return body.flatMap((item, i) => pointersOf(item, id, `${at}/${i}`));
  if (isPlainObject(body)) return Object.entries(body).flatMap(([key, value]) => pointersOf(value, id, `${at}/${escapeToken(key)}`));
  return [];
}

function judgeAnswer(ctx: RunContext, opId: string, exchange: Exchange, expected: ReadonlyArray<{ pointer: string; noun: string }>): void {
  const named = expected.map(({ pointer, noun }) => `\`${pointer}\` (an INACTIVE ${noun})`).join(', ');
  const departure = departureOf(exchange, named, expected);
  if (departure) ctx.judge(opId, check, false, `${departure} (${inactiveDecision})`, { decision: inactiveDecision, exchange });
  else ctx.judge(opId, check, true, `a request naming ${named} was refused with 422, keyword \`active\` at each`, { exchange });
}

/** What is wrong with the answer to a request naming INACTIVE records, or undefined when nothing is. */
function departureOf(exchange: Exchange, named: string, expected: ReadonlyArray<{ pointer: string }>): string | undefined {
  if (isSuccess(exchange)) return `a request naming ${named} was accepted (${exchange.response!.status}); an INACTIVE record cannot be sold or billed`;
  if (exchange.response?.status !== 422) return `a request naming ${named} ${answered(exchange)}, not 422 with a field error for each`;
  const problem = jsonOf(exchange);
  const errors = isPlainObject(problem) && Array.isArray(problem.errors) ? problem.errors.filter(isPlainObject) : [];
  const missing = expected.filter(({ pointer }) => !errors.some((e) => e.pointer === pointer && e.keyword === 'active'));
  if (missing.length === 0) return undefined;
  const shown = errors.map((e) => `${String(e.pointer ?? e.parameter ?? '?')} ${String(e.keyword ?? '?')}`).join(', ') || 'none';
  return `a request naming ${named} was refused with 422, but no field error with keyword \`active\` names ${missing.map((m) => `\`${m.pointer}\``).join(', ')} (errors: ${shown})`;
}

function parseJson(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

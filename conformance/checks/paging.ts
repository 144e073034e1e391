/**
 * paging_walked: a list the contract lets callers page (D48: a GET whose success documents a
 * `Link` header and that takes an integer page size and a string cursor as query parameters)
 * is walked page by page at a small page size, following `Link: <…>; rel="next"` to the end,
 * and the pages are compared with the unpaged list. It fails when a page holds more records
 * than the page size asked for, when a record appears on two pages or on none (compared with
 * the unpaged list), when the pages' order is not the list's (D08: oldest first), when the
 * list is not oldest first, or when the last page still links onward.
 *
 * The operations, their page size and cursor parameters and their bounds are the contract's; a
 * new paged list is walked with no change here. To need at least three pages the run makes
 * records through the create the contract links to the list (`POST /client`) until the list holds five; the
 * contract has no delete for them, so it reuses what a company already holds: a company the
 * suite runs against over and over gains at most five clients from this check, ever.
 * Every finding rests on the decision marked on the page size parameter (D48), so it is
 * information in the `seed` profile: the seed has no paging.
 */
import { deref, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { validBodies } from '../data/bodies.js';
import { RunContext } from '../engine/context.js';
import type { CheckModule } from '../engine/check-module.js';
import type { Exchange } from '../engine/types.js';
import { answered, isObject, isSuccess, jsonOf, show, skipAll, statelessReason } from './stateful.js';

const check = 'paging_walked' as const;

/** Records a walk needs: three pages at a page size of two. */
export const recordsNeeded = 5;
/** At most this many pages are followed; a longer list is compared as far as they reach (reported as not run in full). */
export const maxPages = 8;

/** How an operation pages, read off the contract: its page size and cursor query parameters. */
export interface Paging {
  op: ContractOperation;
  limit: { name: string; minimum: number; maximum: number };
  cursor: string;
  decision?: string | undefined;
}

/** The paged lists of the contract: GETs documenting a `Link` header on success with an integer and a string query parameter. */
export function pagedOperations(ctx: RunContext): Paging[] {
  const found: Paging[] = [];
  for (const op of ctx.operations) {
    if (op.method !== 'get') continue;
    const headers = Object.keys((ctx.view(op).success?.response.response.headers ?? {}) as JsonObject).map((h) => h.toLowerCase());
    if (!headers.includes('link')) continue;
    const params = ctx.view(op).queryParameters.map((p) => ({ p, schema: deref(ctx.contract, p.schema) as JsonObject }));
    const limit = params.find(({ schema }) => schema.type === 'integer');
    const cursor = params.find(({ schema }) => schema.type === 'string');
    if (!limit || !cursor) continue;
    found.push({
      op,
      limit: {
        name: limit.p.name,
        minimum: typeof limit.schema.minimum === 'number' ? limit.schema.minimum : 1,
        maximum: typeof limit.schema.maximum === 'number' ? limit.schema.maximum : 1000,
      },
      cursor: cursor.p.name,
      decision: RunContext.decisionOf(limit.p.parameter),
    });
  }
  return found;
}

/**
 * The page size a walk of `count` records uses: about four pages of at most 100, within the
 * parameter's bounds; a list too long for `maxPages` such pages (a company the suite has run
 * against many times: creates leave their records) gets pages large enough for `maxPages - 1` to
 * hold it, so that the walk reaches its end and can follow a last page's `Link` onward (which
 * fails), as far as the parameter's maximum allows.
 */
export function pageSize(count: number, limit: Paging['limit']): number {
  return Math.min(Math.max(Math.ceil(count / 4), limit.minimum, 2), limit.maximum, Math.max(100, Math.ceil(count / (maxPages - 1))));
}

/** The target of a `Link` header's `rel="next"` (RFC 8288), or undefined when it names none. */
export function nextLink(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(/,(?=\s*<)/)) {
    const match = /^\s*<([^>]*)>(.*)$/.exec(part);
    if (match && /;\s*rel\s*=\s*"?(?:[^";]*\s)?next(?:\s[^";]*)?"?\s*(;|$)/i.test(match[2]!)) return match[1];
  }
  return undefined;
}

function idsOf(body: unknown): string[] | undefined {
  if (!Array.isArray(body)) return undefined;
  return body.map((item, i) => (isObject(item) && (typeof item.id === 'string' || typeof item.id === 'number') ? String(item.id) : `#${i}`));
}

export const pagingCheck: CheckModule = {
  checks: [check],
  async run(ctx) {
    const paged = pagedOperations(ctx);
    if (ctx.options.stateless) {
      skipAll(
        ctx,
        paged.map((p) => p.op.operationId),
        check,
        statelessReason,
      );
      return;
    }
    for (const paging of paged) await walk(ctx, paging);
  },
};

async function walk(ctx: RunContext, paging: Paging): Promise<void> {
  const { op, decision } = paging;
  const opId = op.operationId;
  let whole = await ctx.request(op);
  let list = jsonOf(whole);
  if (!isSuccess(whole) || !Array.isArray(list)) {
    ctx.recorder.skip(opId, check, `the unpaged list ${answered(whole)} without an array, so there is nothing to compare the pages with`);
    return;
  }
  if (list.length < recordsNeeded) {
    // The create whose answer the contract links to this list (`createClient` → `listClients`), else the POST on its path.
    const create =
      ctx.view(op).linksIn.find((link) => link.source.method === 'post' && ctx.covers(link.source.operationId))?.source ??
      ctx.operations.find((o) => o.method === 'post' && o.path === op.path);
    const body = create ? validBodies(ctx, create.operationId)[0] : undefined;
    if (ctx.options.readOnly || !create || !body) {
      const why = ctx.options.readOnly ? '--read-only' : create ? `no valid ${create.operationId} body` : `no create of the contract links to ${opId}`;
      ctx.recorder.skip(
        opId,
        check,
        `the list holds ${list.length} records, fewer than the ${recordsNeeded} three pages need, and the run cannot add any (${why})`,
      );
      return;
    }
    for (let i = list.length; i < recordsNeeded; i++) {
      const made = await ctx.request(create, { body: body.body });
      if (!isSuccess(made)) {
        ctx.recorder.skip(opId, check, `adding records to walk failed: ${create.operationId} ${answered(made)} (positive_data_acceptance reports it)`);
        return;
      }
    }
    whole = await ctx.request(op);
    list = jsonOf(whole);
    if (!isSuccess(whole) || !Array.isArray(list)) {
      ctx.recorder.skip(opId, check, `the unpaged list ${answered(whole)} without an array, so there is nothing to compare the pages with`);
      return;
    }
  }
  const expected = idsOf(list)!;
  const size = pageSize(expected.length, paging.limit);
  const judge = (ok: boolean, message: string, exchange: Exchange, related?: Exchange[]) =>
    ctx.judge(opId, check, ok, message, { decision, exchange, ...(related ? { related } : {}) });
  const findings: Array<{ message: string; exchange: Exchange }> = [];
  const fail = (message: string, exchange: Exchange) => {
    if (!findings.some((f) => f.message === message)) findings.push({ message, exchange });
  };

  // D08: oldest first (`createdAt`, then `id`): read where the records show `createdAt`.
  const unordered = firstOutOfOrder(list);
  if (unordered !== undefined) fail(`the unpaged list is not oldest first (D08): ${unordered}`, whole);

  const seen: Array<{ id: string; page: number }> = [];
  let query: Record<string, string> = { [paging.limit.name]: String(size) };
  let previous: Exchange | undefined;
  let pages = 0;
  let complete = false;
  const cursors = new Set<string>();
  for (;;) {
    pages += 1;
    const page = await ctx.request(op, { query });
    const body = jsonOf(page);
    const ids = idsOf(body);
    if (!isSuccess(page) || !ids) {
      fail(`page ${pages} (${new URLSearchParams(query)}) ${answered(page)} without an array of records`, page);
      break;
    }
    const where = `page ${pages} (${paging.limit.name}=${query[paging.limit.name] ?? `unset, ${paging.cursor} only`})`;
    const asked = Number(query[paging.limit.name] ?? 100);
    if (ids.length > asked) fail(`${where} holds ${ids.length} records, more than the ${asked} asked for`, page);
    if (ids.length === 0 && previous) fail(`page ${pages - 1} links onward, to a page with no records: the last page must not link to another (D48)`, page);
    const order = firstOutOfOrder(body as unknown[]);
    if (order !== undefined) fail(`${where} is not oldest first (D08): ${order}`, page);
    for (const id of ids) seen.push({ id, page: pages });
    const next = nextLink(page.response?.headers.link);
    if (!next) {
      complete = true;
      break;
    }
    const target = parseNext(ctx, op, next);
    if ('error' in target) {
      fail(`${where} links onward with ${show(next)}: ${target.error}`, page);
      break;
    }
    const cursor = target.query[paging.cursor];
    if (cursor === undefined || cursors.has(cursor)) {
      fail(
        cursor === undefined
          ? `${where} links onward without a \`${paging.cursor}\` cursor: ${show(next)}`
          : `${where} links to a page already walked (\`${paging.cursor}\`=${show(cursor)} again)`,
        page,
      );
      break;
    }
    cursors.add(cursor);
    if (pages >= maxPages || pages > expected.length + 1) break;
    previous = page;
    query = target.query;
  }

  // Each record of the unpaged list once, in its order, across the pages walked.
  const first = new Map<string, number>();
  for (const { id, page } of seen) {
    const at = first.get(id);
    if (at !== undefined) fail(`record ${id} is on page ${at} and again on page ${page}: a walk must show each record once`, whole);
    else first.set(id, page);
  }
  const walked = [...first.keys()];
  const reach = complete ? expected : expected.slice(0, walked.length);
  const missing = reach.filter((id) => !first.has(id));
  if (missing.length > 0)
    fail(
      `${missing.length} of the ${expected.length} records of the unpaged list are on no page (first: ${missing[0]}, page size ${size}, ${pages} pages)`,
      whole,
    );
  const inBoth = walked.filter((id) => expected.includes(id));
  const listOrder = expected.filter((id) => first.has(id));
  const swapped = inBoth.findIndex((id, i) => listOrder[i] !== id);
  if (swapped >= 0 && missing.length === 0)
    fail(`the pages show ${inBoth[swapped]} where the unpaged list has ${listOrder[swapped]}: the pages must keep the list's order (D08)`, whole);

  if (findings.length === 0) {
    judge(
      true,
      `${pages} pages of at most ${size} walked through \`Link: rel="next"\`: each of the ${expected.length} records once, in the list's order`,
      whole,
    );
    if (!complete) ctx.recorder.partial(opId, check, `only the first ${pages} pages of ${Math.ceil(expected.length / size)} were walked (at most ${maxPages})`);
    return;
  }
  for (const finding of findings) judge(false, finding.message, finding.exchange);
}

/** The query of a `Link` target on the list's own path (relative to the service, or absolute), or what is wrong with it. */
function parseNext(ctx: RunContext, op: ContractOperation, link: string): { query: Record<string, string> } | { error: string } {
  const base = ctx.url(op);
  let url: URL;
  try {
    url = link.startsWith('/') ? new URL(`${new URL(base).origin}${link}`) : new URL(link, base);
  } catch {
    return { error: 'not a URL' };
  }
  if (!url.pathname.endsWith(op.path)) return { error: `it names ${url.pathname}, not ${op.path}` };
  return { query: Object.fromEntries(url.searchParams) };
}

/** Where a list breaks oldest-first order by `createdAt` (when its records show one), or undefined. */
function firstOutOfOrder(list: unknown[]): string | undefined {
  let before: { id: unknown; at: number } | undefined;
  for (const item of list) {
    if (!isObject(item) || typeof item.createdAt !== 'string') continue;
    const at = Date.parse(item.createdAt);
    if (Number.isNaN(at)) continue;
    if (before && at < before.at) return `${String(item.id)} (created ${item.createdAt}) comes after ${String(before.id)}, created later`;
    before = { id: item.id, at };
  }
  return undefined;
}

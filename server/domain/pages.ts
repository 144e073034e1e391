import type { ContractValidator } from '../../lib/contract/ajv.js';
import { ProblemError, validationProblem } from '../http/problems.js';
import type { ListPage, ListPosition, PagedTable, Store } from '../store/types.js';
import { pagedList } from '../../lib/contract/lists.js';
import { isWritableInstant } from './time.js';

/** Most cursors whose position is kept decoded, per list. */
const KEPT_CURSORS = 10_000;

/** D48: the size of a page asked for with `after` alone. */
export const DEFAULT_PAGE_SIZE = 100;

/** One page of a list to read: at most `limit` records, from the start or after `after`. */
export interface PageRequest {
  limit: number;
  after?: ListPosition;
}

/**
 * The paging of one list of the contract (D48), read from the contract (lib/contract/lists.ts):
 * its largest page, its bound (D49), the page a query asks for and the `Link` to the next one.
 * Every paged list uses it: a new list writes only its store method and its handler.
 */
export interface ListPaging {
  /** The `maximum` of the list's `limit`. */
  largestPage: number;
  /** The `maxItems` of the list's answer: most records one answer holds (D49). */
  bound: number;
  /**
   * The page a query asks for, or undefined for the whole list when neither paging parameter was
   * sent (the seed's answer). The parameters have passed their schemas; a cursor this service did
   * not make for this list is refused here with a 422 naming it, as a schema failure would be.
   */
  request(query: { limit?: number; after?: string }): PageRequest | undefined;
  /** The `Link` header of a page that has a next one: the same size, after the page's last record; `path` is the operation's own. */
  nextLink(path: string, limit: number, next: ListPosition): string;
}

export function listPaging(validator: ContractValidator, operationId: string): ListPaging {
  const list = pagedList(validator.contract, operationId);
  const isId = validator.at(list.idSchema!);
  // A cursor's position is a function of its text alone: a cursor asked for again (a page read
  // again, by one client or many) is decoded and checked once. Bounded: past it, it starts over.
  const positions = new Map<string, ListPosition>();
  return {
    largestPage: list.largestPage,
    bound: list.bound,
    request(query) {
      if (query.limit === undefined && query.after === undefined) return undefined;
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      if (query.after === undefined) return { limit };
      let after = positions.get(query.after);
      if (after === undefined) {
        after = positionOf(query.after, isId);
        if (after !== undefined) {
          if (positions.size >= KEPT_CURSORS) positions.clear();
          positions.set(query.after, after);
        }
      }
      if (!after) {
        throw validationProblem([
          { parameter: 'after', detail: 'is not a cursor of this service; send the `after` of a `Link` header as it came', keyword: 'cursor' },
        ]);
      }
      return { limit, after };
    },
    nextLink(path, limit, next) {
      return `<${path}?limit=${limit}&after=${cursorOf(next)}>; rel="next"`;
    },
  };
}

/**
 * A cursor names a position in the list's order, not a stored record, so nothing is kept per walk
 * and a cursor stays valid for ever. base64url keeps it one opaque token in a URL.
 */
export function cursorOf(position: ListPosition): string {
  return Buffer.from(`${position.createdAt} ${position.id}`).toString('base64url');
}

function positionOf(cursor: string, isId: (value: unknown) => boolean): ListPosition | undefined {
  const [createdAt, id, ...rest] = Buffer.from(cursor, 'base64url').toString('utf8').split(' ');
  if (createdAt === undefined || id === undefined || rest.length > 0) return undefined;
  // As the store writes them: an id of the list's records, a timestamp in D35's one form.
  const date = new Date(createdAt);
  if (!isWritableInstant(date) || date.toISOString() !== createdAt || !isId(id)) return undefined;
  const position = { createdAt, id };
  // base64url decoding skips what is not base64url; only the cursor as made names this position.
  return cursorOf(position) === cursor ? position : undefined;
}

/**
 * Most records of a whole list read at once; a longer list is sent in parts of `WHOLE_LIST_PART`
 * records. Both bound the memory one answer holds whatever its reader does (issue 34): a client
 * at its fields' bounds is about 6.6 KB stored, so one part of clients is at most about 6.6 MB.
 */
export const WHOLE_LIST_AT_ONCE = 1_000;
export const WHOLE_LIST_PART = 1_000;
/** Streamed whole lists one company may have in flight in this instance, of all lists; one more is a 429 (issue 34). */
export const WHOLE_LISTS_PER_COMPANY = 4;
/** The bytes a streamed list puts around and between its parts' items. */
const [OPEN, COMMA, CLOSE] = ['[', ',', ']'].map((text) => new TextEncoder().encode(text)) as [Uint8Array, Uint8Array, Uint8Array];

/** A whole list: its JSON bytes or stream, and where the list goes on when it was cut at its bound (D49). */
export interface WholeList {
  body: Uint8Array | ReadableStream<Uint8Array>;
  next?: ListPosition;
}

/**
 * The streamed whole lists in flight, per company (issue 34): each holds one part in memory until
 * its reader takes it, so a company's readers that stop reading hold at most
 * `WHOLE_LISTS_PER_COMPANY` parts; a list past that is refused with a 429 problem and `Retry-After`
 * until one ends (read to its end, or its connection closed, by its client or the idle timeout).
 */
export class ListsInFlight {
  private readonly open = new Map<string, number>();

  constructor(private readonly perCompany = WHOLE_LISTS_PER_COMPANY) {}

  /** Lists of `companyId` in flight now. */
  count(companyId: string): number {
    return this.open.get(companyId) ?? 0;
  }

  /** Takes a slot of `companyId`, or throws the 429 (`what`: the list's records, for its message); the returned function gives it back (once, however often it is called). */
  take(companyId: string, what = 'record'): () => void {
    const count = this.count(companyId);
    if (count >= this.perCompany) {
      throw new ProblemError(
        'rateLimited',
        `This company already has ${this.perCompany} unpaged ${what} lists being sent; retry after 1 second, or read the list in pages (limit and after), which have no such bound.`,
        { headers: { 'Retry-After': '1' } },
      );
    }
    this.open.set(companyId, count + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = this.count(companyId) - 1;
      if (left <= 0) this.open.delete(companyId);
      else this.open.set(companyId, left);
    };
  }
}

const inFlightOfStore = new WeakMap<object, ListsInFlight>();

/** The streamed whole lists in flight on `store` (one per server instance), of every list: a company's slots are shared by all its lists. */
export function listsInFlight(store: object): ListsInFlight {
  let inFlight = inFlightOfStore.get(store);
  if (!inFlight) {
    inFlight = new ListsInFlight();
    inFlightOfStore.set(store, inFlight);
  }
  return inFlight;
}

/** How a whole list is read: the records read at once, those of each streamed part, and the slots its streams take. */
export interface WholeListOptions {
  atOnce: number;
  part: number;
  inFlight?: ListsInFlight;
}

/** Its records' name in a message: `clients` → `client`. */
const recordsOf = (table: PagedTable) => table.replace(/s$/, '');

/**
 * A company's whole list of `table`'s records (the seed's answer to a paged list's `GET` without
 * paging, as `GET /client`): one JSON array, read at once up to `atOnce` records, and past that
 * streamed in keyset parts written only as fast as the socket takes them (backpressure: the next
 * part is read from the store when the reader has taken the one before, never ahead), so the
 * server's memory holds one part per answer however long the history and whatever its reader does
 * (D48, issue 34). A record created while the list streams is listed at its end, as the order puts
 * it. A list holds at most `max` records (the contract's `maxItems`, D49): a company with more gets
 * the first `max` and `next`, where the list goes on, for a `Link` as D48's pages have. Every
 * list's store access is the one `listPageJson` (its bound's position, `listPositionAt`).
 */
export async function wholeList(
  store: Pick<Store, 'listPageJson' | 'listPositionAt'>,
  table: PagedTable,
  companyId: string,
  max: number,
  { atOnce: atOnceSize, part: partSize, inFlight }: WholeListOptions = { atOnce: WHOLE_LIST_AT_ONCE, part: WHOLE_LIST_PART },
): Promise<WholeList> {
  // The at-once read is the list's first page: the whole list when no page follows it, else the
  // first part of the stream (read once, never twice).
  const firstSize = Math.min(atOnceSize, max);
  const first = await store.listPageJson(table, companyId, firstSize);
  if (!first.next) return { body: first.json };
  if (firstSize === max) return { body: first.json, next: first.next };
  const release = inFlight?.take(companyId, recordsOf(table)) ?? (() => {});
  let last: ListPosition | undefined;
  try {
    last = await store.listPositionAt(table, companyId, max);
  } catch (error) {
    release();
    throw error;
  }
  let pending: ListPage | undefined = first;
  let after: ListPosition | undefined;
  let left = max - firstSize;
  let started = false;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          let part: ListPage;
          if (pending) {
            part = pending;
            pending = undefined;
          } else {
            part = await store.listPageJson(table, companyId, Math.min(partSize, left), after);
            left -= Math.min(partSize, left);
          }
          // The part is an array: its items go on from the items before, and the last part closes it.
          const items = part.json.subarray(1, -1);
          if (!started) controller.enqueue(OPEN);
          else if (items.length > 0) controller.enqueue(COMMA);
          if (items.length > 0) controller.enqueue(items);
          started = true;
          after = part.next;
          if (!part.next || left === 0) {
            controller.enqueue(CLOSE);
            controller.close();
            release();
          }
        } catch (error) {
          release();
          throw error;
        }
      },
      // The connection closed before the end (the client went away, or the idle timeout destroyed it).
      cancel: release,
    },
    // Nothing is read ahead of the reader: a part is read from the store when the socket asks.
    { highWaterMark: 0 },
  );
  return last ? { body, next: last } : { body };
}

/** A paged list's answer: its body (bytes, or a stream of a long whole list) and the `Link` to its next page when one follows. */
export interface ListAnswer {
  body: Uint8Array | ReadableStream<Uint8Array>;
  link?: string;
}

/**
 * The answer to a paged list's `GET` (D48), for any list: the page `query` asks for, or without
 * `limit` and `after` the whole list (`wholeList`, cut at the list's bound, D49), with the `Link`
 * to the next page; `table` is the list's (`pagedTables`), `path` the operation's own. A handler
 * of a paged list is this and its status.
 */
export async function readList(
  store: Pick<Store, 'listPageJson' | 'listPositionAt'>,
  paging: ListPaging,
  table: PagedTable,
  companyId: string,
  query: { limit?: number; after?: string },
  path: string,
): Promise<ListAnswer> {
  const page = paging.request(query);
  if (!page) {
    const whole = await wholeList(store, table, companyId, paging.bound, { atOnce: WHOLE_LIST_AT_ONCE, part: WHOLE_LIST_PART, inFlight: listsInFlight(store) });
    // Past its bound the list goes on in pages of the largest size (D48, D49).
    return whole.next ? { body: whole.body, link: paging.nextLink(path, paging.largestPage, whole.next) } : { body: whole.body };
  }
  const { json, next } = await store.listPageJson(table, companyId, page.limit, page.after);
  return next ? { body: json, link: paging.nextLink(path, page.limit, next) } : { body: json };
}

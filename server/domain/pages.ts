import type { ContractValidator } from '../../lib/contract/ajv.js';
import { validationProblem } from '../http/problems.js';
import type { ListPosition, Store } from '../store/types.js';
import { pagedList } from '../../lib/contract/lists.js';
import { isWritableInstant } from './time.js';

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
  return {
    largestPage: list.largestPage,
    bound: list.bound,
    request(query) {
      if (query.limit === undefined && query.after === undefined) return undefined;
      const limit = query.limit ?? DEFAULT_PAGE_SIZE;
      if (query.after === undefined) return { limit };
      const after = positionOf(query.after, isId);
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

/** Most clients of a whole list read at once; a longer list is sent in parts of `WHOLE_LIST_PART` clients. */
export const WHOLE_LIST_AT_ONCE = 10_000;
const WHOLE_LIST_PART = 5_000;
/** The bytes a streamed list puts around and between its parts' items. */
const [OPEN, COMMA, CLOSE] = ['[', ',', ']'].map((text) => new TextEncoder().encode(text)) as [Uint8Array, Uint8Array, Uint8Array];

/** A whole client list: its JSON bytes or stream, and where the list goes on when it was cut at its bound (D49). */
export interface WholeClientList {
  body: Uint8Array | ReadableStream<Uint8Array>;
  next?: ListPosition;
}

/**
 * A company's whole client list (the seed's answer to `GET /client` without paging): one JSON
 * array, read at once up to `WHOLE_LIST_AT_ONCE` clients, and past that streamed in keyset
 * parts, so the server's memory holds one part (about 1.7 MB) however long the history (D48).
 * A client created while the list streams is listed at its end, as the order puts it. A list
 * holds at most `max` clients (the contract's `maxItems`, D49): a company with more gets the
 * first `max` and `next`, where the list goes on, for a `Link` as D48's pages have.
 */
export async function wholeClientList(
  store: Store,
  companyId: string,
  max: number,
  sizes: { atOnce: number; part: number } = { atOnce: WHOLE_LIST_AT_ONCE, part: WHOLE_LIST_PART },
): Promise<WholeClientList> {
  const atOnce = await store.listClientsJson(companyId, Math.min(sizes.atOnce, max));
  if (atOnce !== undefined) return { body: atOnce };
  const last = await store.lastClientBefore(companyId, max);
  let after: ListPosition | undefined;
  let left = max;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const part = await store.listClientsPageJson(companyId, Math.min(sizes.part, left), after);
      left -= Math.min(sizes.part, left);
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
      }
    },
  });
  return last ? { body, next: last } : { body };
}

/**
 * What each check proves, one line each: `pix-conformance --list-checks` prints them (with the
 * matrix's short names), so the installed package says what its checks are without the guide.
 * A `Record` over the check names: a new check does not compile without its line.
 */
import { checkNames, type CheckName } from '../engine/types.js';
import { shortNames } from './matrix.js';

export const checkDescriptions: Record<CheckName, string> = {
  not_a_server_error: 'no request of the run, valid or not, is answered with a 5xx or not at all',
  status_code_conformance: "every answer's status is one the contract documents for the operation",
  content_type_conformance: "every answer's media type is one documented for that status",
  response_schema_conformance: 'bodies valid against their schema; timestamps UTC ms Z (D35); problem status = HTTP status (D02); secret on create only (D40)',
  response_headers_conformance: 'documented headers (Location, Link …) valid; every answer says nosniff (D50), and carries RateLimit if any does (D11)',
  ignored_auth: 'a request without a key, with an unissued key or with garbage is refused with 401',
  negative_data_rejection: 'bodies, headers and query parameters the contract makes invalid (an INACTIVE record named, D45) are refused with a 4xx',
  positive_data_acceptance: "bodies the contract makes valid (examples, every enum value, D46's punctuation) are accepted",
  ensure_resource_availability: 'a create reads back as sent: by id, listed, updated, at its Location (D01); cancelledAt on CANCELLED (D09); reuse by tax id',
  idempotency_replay: 'a retry with the same Idempotency-Key answers the first response; another body with it is refused',
  tenant_isolation: "one company's records are invisible and unusable with another company's key; lists hold only the caller's",
  brcode_well_formed: "a charge's brCode is a valid Pix BR Code (TLV, CRC16) whose amount is the total",
  qr_matches_brcode: "a charge's QR image decodes to exactly its brCode",
  total_in_cents: "a charge's total is whole cents, as sent or as price × quantity of its items",
  use_after_free: 'after a DELETE answered 2xx, every GET of the record answers 404',
  generated_values_kept: 'generated values of creates and updates (mixed-case e-mails, non-ASCII text, money, CPF/CNPJ, phones, CEPs) read back as sent',
  paging_walked: 'a paged list walked through Link rel="next" holds each record once, in order, never more than limit a page',
  unsupported_method: 'a method a path does not define is answered 405 with an Allow header',
  bounded_input: 'an array of a request grown past its maxItems to about 512 KiB is refused with a 4xx within 2 s',
  webhook_url_policy: '--production: webhook registrations at internal addresses are refused',
  auth_flood_limited: '--flood: requests with a wrong key are limited with 429 and Retry-After within the announced quota',
  webhook_signature: '--webhook-receiver: each delivery carries a valid Standard Webhooks signature and a fresh timestamp',
  webhook_schema: "--webhook-receiver: each delivery's body is valid against the contract's webhooks schema",
  webhook_delivery: '--webhook-receiver: every event of a charge arrives, in order, and a failed delivery is retried',
  response_time: '--max-response-time (1000 ms under --profile own): no answer is slower than the budget',
};

/** The text of `--list-checks`: one line per check, in the matrix's order. */
export function formatCheckList(): string {
  const width = Math.max(...checkNames.map((c) => c.length));
  return checkNames.map((c) => `${shortNames[c].padEnd(3)}  ${c.padEnd(width)}  ${checkDescriptions[c]}`).join('\n');
}

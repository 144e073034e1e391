/**
 * Which checks hold each decision of the contract (openapi/DECISIONS.md), and what of it no run
 * can observe, and why: the one source the conformance guide's "Each decision and the checks that
 * hold it" section is generated from (scripts/docs/conformance-decisions.ts), per decision and per
 * operation (each operation listing the decisions its `x-decision`/`x-decided` marks name). A test
 * fails when a decision has no entry here, or the guide differs from what this generates.
 *
 * A check named with a note (`['negative_data_rejection', 'unknown parameters ignored']`) holds only
 * what the note says. `notObserved` says what no run can see, and why; an entry with no check is
 * observed by no run at all.
 */
import type { CheckName } from '../engine/types.js';

export type Holder = CheckName | readonly [CheckName, string];

export interface DecisionHold {
  /** What the decision is about, in a few words (its heading in DECISIONS.md is longer). */
  subject: string;
  held: readonly Holder[];
  notObserved?: string;
  /**
   * Unmarked decisions (**Not marked.** in DECISIONS.md) that state what every answer of every
   * operation carries: listed once, for every operation.
   */
  everyAnswer?: true;
}

export const decisionChecks: Readonly<Record<string, DecisionHold>> = {
  D01: {
    subject: 'success statuses',
    held: [
      'status_code_conformance',
      ['response_headers_conformance', "a create's Location present"],
      ['ensure_resource_availability', "a create's Location names the record"],
    ],
  },
  D02: {
    subject: 'error statuses and bodies',
    held: ['status_code_conformance', 'content_type_conformance', 'response_schema_conformance', 'negative_data_rejection'],
  },
  D03: { subject: 'auth of `{base_url_alt}`', held: ['ignored_auth'] },
  D04: { subject: 'issuing and rotating keys', held: [], notObserved: 'done outside the API (`npm run keys`), no request shows it' },
  D05: {
    subject: 'charge statuses and moves',
    held: ['response_schema_conformance', 'webhook_delivery'],
    notObserved: 'moves the sandbox cannot cause (a real payment)',
  },
  D06: { subject: 'webhook statuses and events', held: ['response_schema_conformance', 'negative_data_rejection', 'positive_data_acceptance'] },
  D07: {
    subject: '`shippingAddress` fields',
    held: ['response_schema_conformance', 'negative_data_rejection', 'positive_data_acceptance', 'ensure_resource_availability'],
  },
  D08: {
    subject: '`GET /client` query and order',
    held: [
      ['negative_data_rejection', 'unknown parameters ignored'],
      ['paging_walked', 'oldest first'],
    ],
  },
  D09: { subject: '`PUT /subscription`', held: ['positive_data_acceptance', 'negative_data_rejection', 'ensure_resource_availability'] },
  D10: { subject: '`Idempotency-Key`', held: ['idempotency_replay'], notObserved: 'the 24-hour retention (a run lasts seconds)' },
  D11: {
    subject: 'rate limits',
    held: [['auth_flood_limited', '`--flood`'], 'response_headers_conformance'],
    notObserved: 'the per-key quota without flooding it',
  },
  D12: { subject: 'versioning', held: [], notObserved: 'a policy for future contract versions' },
  D13: { subject: 'identifier forms', held: ['response_schema_conformance'] },
  D14: { subject: 'delivery, signing, retries', held: ['webhook_signature', 'webhook_delivery'], notObserved: 'retries after the first (hours apart)' },
  D15: { subject: 'which operation emits which event', held: ['webhook_delivery'], notObserved: 'events of moves the sandbox cannot cause' },
  D16: { subject: "the seed's order events", held: ['webhook_schema'] },
  D17: { subject: 'order amounts as numbers', held: ['response_schema_conformance', 'negative_data_rejection'] },
  D18: { subject: 'payment-link required fields', held: ['negative_data_rejection', 'positive_data_acceptance'] },
  D19: {
    subject: 'other transitions',
    held: ['positive_data_acceptance', ['ensure_resource_availability', 'subscription updates']],
    notObserved: 'transitions that take time or a payment',
  },
  D20: { subject: 'charge envelope `status`/`message`', held: ['response_schema_conformance'] },
  D21: { subject: 'fields present, nulls', held: ['response_schema_conformance', 'ensure_resource_availability'] },
  D22: { subject: 'unknown request fields', held: ['negative_data_rejection', 'positive_data_acceptance'] },
  D23: { subject: 'tax numbers', held: ['negative_data_rejection', 'positive_data_acceptance', 'generated_values_kept'] },
  D24: { subject: 'input limits and formats', held: ['negative_data_rejection', ['generated_values_kept', 'lengths 1 and max']] },
  D25: { subject: 'numeric ranges', held: ['negative_data_rejection', ['generated_values_kept', 'money']] },
  D26: { subject: '`companyId` in bodies', held: ['negative_data_rejection', 'tenant_isolation'] },
  D27: { subject: 'unknown and foreign ids', held: ['use_after_free', 'tenant_isolation', 'negative_data_rejection'] },
  D28: {
    subject: 'charge expiry, page, Pix code',
    held: ['brcode_well_formed', 'qr_matches_brcode', 'response_schema_conformance'],
    notObserved: 'the expiry passing (sandbox `simulate-expiration` only)',
  },
  D29: { subject: 'order creation', held: ['total_in_cents', 'positive_data_acceptance', 'negative_data_rejection'] },
  D30: { subject: 'sales record fees', held: ['response_schema_conformance'], notObserved: 'the fee amounts (the contract fixes their shape, not the rates)' },
  D31: { subject: 'subscription defaults', held: ['response_schema_conformance'], notObserved: 'dates that come due later' },
  D32: { subject: 'product defaults', held: ['response_schema_conformance'] },
  D33: { subject: 'duplicate tax numbers', held: [['positive_data_acceptance', 'each `POST /client` creates']] },
  D34: { subject: 'malformed JSON, wrong type, big body', held: ['negative_data_rejection', 'content_type_conformance', 'bounded_input'] },
  D35: {
    subject: 'timestamps',
    held: [
      ['response_schema_conformance', 'the form written: UTC, milliseconds, Z'],
      ['ensure_resource_availability', 'compared as instants'],
    ],
  },
  D36: { subject: 'base URL placeholders', held: [], notObserved: "a deployment's configuration (`--base-url`, `--base-url-alt`)" },
  D37: { subject: 'operations the seed does not list', held: ['ensure_resource_availability', 'unsupported_method', 'use_after_free'] },
  D38: { subject: 'subscription without `clientId`', held: ['positive_data_acceptance'] },
  D39: { subject: 'sandbox moves', held: ['webhook_delivery', 'positive_data_acceptance'] },
  D40: {
    subject: 'webhook registration',
    held: [
      'positive_data_acceptance',
      'use_after_free',
      ['response_schema_conformance', "the secret in the create's answer only"],
      ['webhook_url_policy', '`--production`'],
    ],
  },
  D41: { subject: 'deliveries seen by the merchant', held: [['ensure_resource_availability', '`GET /webhook/{id}/deliveries`']] },
  D42: { subject: 'hosted payment page', held: [], notObserved: "an HTML page for people, outside the contract's JSON" },
  D43: { subject: 'the Pix key of a BR Code', held: ['brcode_well_formed'], notObserved: "a live company's own key (development charges only)" },
  D44: { subject: 'seed fields without effect', held: ['positive_data_acceptance'], notObserved: 'their lack of effect' },
  D45: {
    subject: '`INACTIVE` products and clients',
    held: [['negative_data_rejection', 'a record made `INACTIVE` named: `422`, keyword `active`']],
    notObserved: 'records made before a product or client became `INACTIVE` (the contract has no update that makes one so)',
  },
  D46: { subject: 'Brazilian punctuation', held: ['positive_data_acceptance', 'ensure_resource_availability', 'generated_values_kept', 'idempotency_replay'] },
  D47: { subject: 'value forms', held: ['response_schema_conformance'] },
  D48: {
    subject: 'paging and reuse by tax number',
    held: [
      'paging_walked',
      'negative_data_rejection',
      'response_headers_conformance',
      ['ensure_resource_availability', 'reuse by tax number: one client, the oldest `ACTIVE`, unchanged'],
    ],
    notObserved: "the unpaged list's bounds (four lists of more than 1,000 clients in flight)",
  },
  D49: {
    subject: 'bounds',
    held: ['bounded_input', 'negative_data_rejection', 'response_schema_conformance', 'generated_values_kept'],
    notObserved: 'lists past 100,000 records, the 16th registration',
  },
  D50: {
    subject: 'security headers',
    held: [['response_headers_conformance', '`nosniff` on every answer']],
    notObserved: "the HTML pages' own headers (no operation of the contract serves a page, D42)",
    everyAnswer: true,
  },
  D51: { subject: 'sandbox reset', held: [], notObserved: 'never sent: it deletes every record of the company' },
};

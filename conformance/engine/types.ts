/**
 * The vocabulary of a conformance run: the checks, their outcomes, the HTTP exchanges they
 * rest on, and the report. Every module of conformance/ speaks in these terms.
 */

/** Every check the suite runs, reported by these names. */
export const checkNames = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'response_headers_conformance',
  'ignored_auth',
  'negative_data_rejection',
  'positive_data_acceptance',
  'ensure_resource_availability',
  'idempotency_replay',
  'tenant_isolation',
  'brcode_well_formed',
  'qr_matches_brcode',
  'total_in_cents',
  'use_after_free',
  'generated_values_kept',
  'paging_walked',
  'unsupported_method',
  'bounded_input',
  'webhook_url_policy',
  'auth_flood_limited',
  'webhook_signature',
  'webhook_schema',
  'webhook_delivery',
  'response_time',
] as const;

export type CheckName = (typeof checkNames)[number];

/** Generated bodies per create (generated_values_kept) when `--examples` is not given: a full run stays near 30 s locally. */
export const defaultExamples = 5;

/**
 * - `pass`: the check looked, all of it, and found the deployment right;
 * - `fail`: the deployment breaks what the profile holds it to;
 * - `info`: it departs only from a decision of the contract (an `x-decision`/`x-decided`
 *   mark) that the `seed` profile does not hold it to;
 * - `skip`: the check could not run here (with the reason: `--stateless`, `--read-only`,
 *   no second key, nothing to check), or ran only in part and found nothing wrong in that part
 *   ("not run in full", `Recorder.partial`): a pass resting on part of a check is never `pass`.
 */
export type Outcome = 'pass' | 'fail' | 'info' | 'skip';

export type Profile = 'seed' | 'reference';

export interface ConformanceOptions {
  baseUrl: string;
  baseUrlAlt: string;
  apiKey: string;
  secondApiKey?: string;
  profile: Profile;
  /** Checks that did not run for a missing flag (`no --second-api-key` …) fail the run (`--strict`, `--profile own`). */
  strict?: boolean;
  /** Only these operationIds; all when undefined. */
  only?: string[];
  /** Send GET requests only. */
  readOnly: boolean;
  /** The target keeps no state (the Prism mock): stateful checks are skipped. */
  stateless: boolean;
  /** The target is a production deployment: webhook registrations at internal addresses must be refused (D40). */
  production?: boolean;
  /** Send a flood of requests with a wrong key and expect them limited (`auth_flood_limited`). */
  flood?: boolean;
  junit?: string;
  html?: string;
  /** Where to write the run's exchanges as a HAR 1.2 file. */
  har?: string;
  /** Tags every record the run creates (names, externalId); random when not given. */
  runId?: string;
  /** The seed the generated values are drawn with (`--seed`); random, and printed with every failure, when not given. */
  seed?: number;
  /** How many generated bodies each create is sent (`--examples`); `defaultExamples` when not given. */
  examples?: number;
  /** Answers slower than this fail `response_time` (`--max-response-time`); no budget when not given, except under `--profile own`. */
  maxResponseTimeMs?: number;
  /** The budget is `--profile own`'s default, not a `--max-response-time` the user gave (findings say so). */
  maxResponseTimeDefault?: boolean;
  /** Per-request timeout. */
  timeoutMs: number;
  /**
   * Where the suite listens for the deliveries of a webhook it registers (`--webhook-receiver`);
   * without it the webhook checks are skipped. Port 0: any free port.
   */
  webhookReceiver?: { host: string; port: number };
  /** How long to wait for the deliveries; 20 s by default (tests with a fast retry schedule shorten it). */
  webhookWaitMs?: number;
  /**
   * Where the webhooks the run registers point. Unset: `https://<runId>.invalid/<runId>`, a
   * reserved name that never resolves (RFC 6761 §6.4), which any deployment, production
   * included, may accept and whose deliveries reach no one.
   */
  webhookUrl?: string;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /**
   * Whose key the (masked) key header carried, so that a reproduction (report/curl.ts) sends the
   * same: the run's key, the second company's, or one a check made up (an unknown or malformed
   * key, no secret: kept as it was sent).
   */
  apiKey?: KeyUsed;
}

/** The key a request carried: `header` is its name among the request's headers. */
export type KeyUsed = { header: string; of: 'first' | 'second' } | { header: string; of: 'made-up'; value: string };

export interface RecordedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request the run sent and what came back (or why nothing did). API keys are masked. */
export interface Exchange {
  operationId: string;
  request: RecordedRequest;
  response?: RecordedResponse;
  error?: string;
  ms: number;
  /** When the request left (ISO 8601), for the HAR file of the run (`--har`). */
  startedAt?: string;
}

export interface Finding {
  outcome: Exclude<Outcome, 'skip'>;
  message: string;
  /** The decision a finding of outcome `info` departs from. */
  decision?: string;
  /** The exchange the finding was made on (the read that showed a value, the answer judged). */
  exchange?: Exchange;
  /**
   * Earlier exchanges the finding rests on too: the request that wrote a value a read shows
   * otherwise (the create of a payment link whose read shows its URLs swapped). Reports print
   * them before `exchange`, with their curl lines, so the fault can be made again on a new record.
   */
  related?: Exchange[];
  /**
   * What belongs to this one finding and not to its kind: which items of a list an error was at
   * (`/*: at 56 items (0–55)`). Printed with the finding, never part of what groups findings
   * (report/groups.ts), so one fault in lists of different lengths is one group.
   */
  detail?: string;
  /**
   * One cause behind findings of several checks (no webhook delivery arrived, so none could be
   * judged for its signature, its schema or its delivery): the findings of an operation with the
   * same cause and message are one group whatever their check (report/groups.ts).
   */
  cause?: string;
}

export interface CheckResult {
  operationId: string;
  check: CheckName;
  /** fail if any finding failed, else info if any was info, else pass; skip when it did not run. */
  outcome: Outcome;
  findings: Finding[];
  /** Why the check did not run, when `outcome` is `skip`. */
  skipReason?: string;
}

export interface RunReport {
  runId: string;
  profile: Profile;
  target: { baseUrl: string; baseUrlAlt: string };
  startedAt: string;
  durationMs: number;
  operations: string[];
  results: CheckResult[];
  /** Every exchange the run recorded, in order (keys masked), for `--har`; the other reports do not show them. */
  exchanges?: Exchange[];
  /**
   * Why the run stopped before its end (the target stopped answering, the user interrupted it),
   * when it did: its results are what it had judged by then, every check it had not finished
   * skipped as not run (in full).
   */
  stopped?: string;
  /** Records the run created and could not delete, each as the request that deletes it (`DELETE URL`). */
  leftBehind?: string[];
  /** Per operation: how many answers, and their p50, p95 and slowest time in milliseconds (report/timings.ts). */
  timings?: Array<{ operationId: string; count: number; p50: number; p95: number; max: number }>;
}

export type ProgressEvent =
  | { kind: 'start'; operations: number }
  | { kind: 'check'; operationId: string; check: CheckName; outcome: Outcome }
  | { kind: 'done'; report: RunReport };

import { randomBytes } from 'node:crypto';
import { ContractValidator } from '../../lib/contract/ajv.js';
import { loadBundledContract, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { linkParameters, type ContractLink } from '../../lib/contract/links.js';
import { ContractView, type OperationView } from '../data/contract-view.js';
import { decisionOf } from '../data/decision.js';
import { send } from './http.js';
import { apiKeyHeaderOf } from './key-check.js';
import { Recorder } from './recorder.js';
import { seedView } from './seed-view.js';
import type { CheckName, ConformanceOptions, Exchange, KeyUsed, ProgressEvent, RunReport } from './types.js';

const MAX_RATE_LIMIT_RETRIES = 5;
const MAX_UNANSWERED_IN_A_ROW = 5;

/**
 * The run stopped before its end. Once the checks had begun, `report` holds what it had found by
 * then (RunReport.stopped says why), for the CLI to write as its --junit / --html / --har files.
 */
export class RunStoppedError extends Error {
  report?: RunReport;
}

/** The target does not answer (at the start, or stopped in the middle): a bad address, not a failing check (exit code 2). */
export class TargetUnreachableError extends RunStoppedError {
  override readonly name = 'TargetUnreachableError';
}

/** The user stopped the run (RunDeps.signal aborted): no further request is sent; clean-up still runs. */
export class RunInterruptedError extends RunStoppedError {
  override readonly name = 'RunInterruptedError';
}
const MAX_RETRY_AFTER_MS = 30_000;

/** RFC 9110 Retry-After in seconds (or an HTTP date), bounded so a run cannot stall. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number {
  if (value === undefined) return 1_000;
  const ms = /^\d+$/.test(value.trim()) ? Number(value.trim()) * 1_000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : 1_000;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RunDeps {
  /** How requests leave; tests pass one that calls an in-process app. */
  fetch?: typeof fetch;
  onProgress?: (event: ProgressEvent) => void;
  /** The bundled contract; the repository's by default. */
  contract?: JsonObject;
  /** Aborted when the user interrupts the run (Ctrl-C): the next request throws `RunInterruptedError`. */
  signal?: AbortSignal;
}

export interface RequestInit {
  /** Values of `{name}` path parameters. */
  pathParams?: Record<string, string>;
  /** Query parameters (URL-encoded, never checked: a value breaking its schema is sent as it is). */
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: unknown;
  /** The key to send: the run's key by default, `null` for none, or any other string. */
  apiKey?: string | null;
}

/** Records the run creates in the target, so later checks can refer to them. */
/** A record the run created for other requests to name: its id and the answer that created it (links read their values from it). */
export interface FixtureRecord {
  id: string;
  body: unknown;
}

/**
 * The records the run created for other requests to name, by fixture key
 * (conformance/data/relations.ts: the creating operation, and the values a link of the
 * contract asks it be created with).
 */
export interface Fixtures {
  own: Map<string, FixtureRecord>;
  /** The same records created with the second company's key, for tenant isolation. */
  other?: Map<string, FixtureRecord>;
}

/**
 * What every check works with: the options, both views of the contract (full and seed), the
 * run's reading of each operation (`view`), a request function that records every exchange, the
 * recorder of findings, and the fixtures the run created.
 */
export class RunContext {
  readonly contract: JsonObject;
  /** The contract as this run reads it: each operation's view, its links (data/contract-view.ts). */
  readonly contractView: ContractView;
  readonly seedContract: JsonObject;
  readonly full: ContractValidator;
  readonly seed: ContractValidator;
  /** The operations the run sends requests to: those it covers (`--only`) but the withheld ones. */
  readonly operations: ContractOperation[];
  /**
   * Operations it covers but never sends: those marked `x-resets-company` (D51's sandbox reset)
   * delete every record of the key's company, the run's own and its owner's. Reported as skipped.
   */
  readonly withheld: ContractOperation[];
  /** Both, in the contract's order: the operations of the report. */
  readonly reported: ContractOperation[];
  readonly exchanges: Exchange[] = [];
  readonly recorder: Recorder;
  readonly runId: string;
  readonly fixtures: Fixtures = { own: new Map() };
  /** The header that carries the API key, from the contract's `apiKey` security scheme (seed §5.1). */
  readonly apiKeyHeader: string;
  private readonly fetchFn: typeof fetch;
  private readonly signal: AbortSignal | undefined;
  private unansweredInARow = 0;
  /** Records the run created that can be deleted and are not yet: the delete and its path, by URL. */
  /** How many records the clean-up deleted (or found gone). */
  cleanedUp = 0;
  private readonly leftBehind = new Map<string, { link: ContractLink; params: Record<string, string>; apiKey: string | null | undefined }>();

  constructor(
    readonly options: ConformanceOptions,
    deps: RunDeps = {},
  ) {
    this.contract = deps.contract ?? loadBundledContract();
    ({ seedContract: this.seedContract, full: this.full, seed: this.seed, contractView: this.contractView } = contractViews(this.contract));
    const all = [...this.contractView.operations];
    const covered = options.only ? all.filter((op) => options.only!.includes(op.operationId)) : all;
    this.withheld = covered.filter((op) => op.operation['x-resets-company'] === true);
    this.operations = covered.filter((op) => !this.withheld.includes(op));
    this.reported = covered;
    this.runId = options.runId ?? `conf${randomBytes(4).toString('hex')}`;
    this.fetchFn = deps.fetch ?? fetch;
    this.signal = deps.signal;
    this.apiKeyHeader = apiKeyHeaderOf(this.contract);
    this.recorder = new Recorder(
      (operationId, check, outcome) => deps.onProgress?.({ kind: 'check', operationId, check, outcome }),
      options.profile === 'seed' ? (operationId, check, exchange) => this.extensionDecision(operationId, check, exchange) : undefined,
    );
  }

  operation(operationId: string): ContractOperation {
    return this.contractView.operation(operationId);
  }

  /** How the run reads one operation of the contract: read once, the first time it is asked for. */
  view(operation: ContractOperation | string): OperationView {
    return this.contractView.view(operation);
  }

  /** Whether the run covers this operation (`--only`). */
  covers(operationId: string): boolean {
    return this.operations.some((op) => op.operationId === operationId);
  }

  /** The absolute URL of an operation's path on its own base URL. */
  url(op: ContractOperation, pathParams: Record<string, string> = {}): string {
    const base = (op.server === 'base_url_alt' ? this.options.baseUrlAlt : this.options.baseUrl).replace(/\/+$/, '');
    const path = op.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(pathParams[name] ?? ''));
    return `${base}${path}`;
  }

  /** Sends a request to an operation and records the exchange. */
  async request(operation: ContractOperation | string, init: RequestInit = {}): Promise<Exchange> {
    const op = typeof operation === 'string' ? this.operation(operation) : operation;
    this.throwIfInterrupted();
    const input = this.input(op, init);
    const exchange = await this.sendWaitingOutRateLimit(input);
    this.exchanges.push(exchange);
    this.track(op, exchange, init.apiKey);
    // A target that stopped answering would otherwise cost one timeout per remaining request.
    this.unansweredInARow = exchange.error ? this.unansweredInARow + 1 : 0;
    if (this.unansweredInARow >= MAX_UNANSWERED_IN_A_ROW) {
      throw new TargetUnreachableError(
        `${input.url} and the ${MAX_UNANSWERED_IN_A_ROW - 1} requests before it got no answer (last: ${exchange.error}); the run stops`,
      );
    }
    return exchange;
  }

  /** Throws `RunInterruptedError` once the user has interrupted the run. */
  throwIfInterrupted(): void {
    if (this.signal?.aborted) throw new RunInterruptedError('interrupted: the run stopped before its end');
  }

  /**
   * Notes a deletable record a request created, with the key that created it (a record of the second
   * company is deleted with the second key), and forgets one a request deleted.
   */
  private track(op: ContractOperation, exchange: Exchange, apiKey: string | null | undefined): void {
    const status = exchange.response?.status ?? 0;
    if (status < 200 || status > 299) return;
    if (op.method === 'delete') {
      this.leftBehind.delete(exchange.request.url);
      return;
    }
    const link = this.view(op).deleteLink;
    const params = link ? linkParameters(link, parseJson(exchange.response!.body)) : undefined;
    if (link && params) this.leftBehind.set(this.url(link.target, params), { link, params, apiKey });
  }

  /** Whether the contract links a delete to what this operation creates. */
  canDelete(operationId: string): boolean {
    return this.view(operationId).deleteLink !== undefined;
  }

  /**
   * Deletes at once what a create answered with, when the contract links a delete to it (a
   * registration a check must not leave in place even until the run ends).
   */
  async deleteNow(create: ContractOperation, exchange: Exchange): Promise<void> {
    const link = this.view(create).deleteLink;
    const params = link && exchange.response ? linkParameters(link, parseJson(exchange.response.body)) : undefined;
    if (link && params) await this.request(link.target, { pathParams: params });
  }

  /**
   * Deletes every record the run created that the contract lets it delete and that is still
   * there (webhook registrations: left behind they would be retried for hours and count against
   * the company's limit, D49). Runs once the checks are done, also when one threw.
   */
  async cleanUp(): Promise<void> {
    for (const { link, params, apiKey } of [...this.leftBehind.values()]) {
      const input = this.input(link.target, { pathParams: params, ...(apiKey !== undefined ? { apiKey } : {}) });
      // A run that spent its quota (the flood check) must still delete what it made.
      const exchange = await this.sendWaitingOutRateLimit(input);
      if (exchange.response && (exchange.response.status < 300 || exchange.response.status === 404)) {
        this.leftBehind.delete(input.url);
        this.cleanedUp += 1;
      }
    }
  }

  /** The records the run created and could not delete (their delete URLs), for the report. */
  get notCleanedUp(): string[] {
    return [...this.leftBehind.keys()];
  }

  /**
   * The records left behind, each as the request that deletes it: `DELETE URL`, with
   * `(with the second key)` for one the second company's key made (it must be deleted with that key).
   */
  get leftBehindRequests(): string[] {
    return [...this.leftBehind].map(([url, { link, apiKey }]) => {
      const second = apiKey !== undefined && apiKey !== null && apiKey === this.options.secondApiKey && apiKey !== this.options.apiKey;
      return `${link.target.method.toUpperCase()} ${url}${second ? ' (with the second key)' : ''}`;
    });
  }

  /**
   * Sends a request; a rate-limited answer is the target protecting itself, not a verdict on the
   * request: like any well-behaved client, wait as long as Retry-After says and send it again
   * (at most `MAX_RATE_LIMIT_RETRIES` times).
   */
  private async sendWaitingOutRateLimit(input: ReturnType<RunContext['input']>): Promise<Exchange> {
    let exchange = await send(this.fetchFn, input, this.options.timeoutMs);
    for (let retry = 0; retry < MAX_RATE_LIMIT_RETRIES && exchange.response?.status === 429; retry++) {
      await sleep(retryAfterMs(exchange.response.headers['retry-after']));
      exchange = await send(this.fetchFn, input, this.options.timeoutMs);
    }
    return exchange;
  }

  /**
   * Sends a request once, as it is: a 429 is not waited out and sent again, and the exchange is
   * not recorded (a check that sends many records the one it judges by).
   */
  async sendOnce(operation: ContractOperation | string, init: RequestInit = {}): Promise<Exchange> {
    this.throwIfInterrupted();
    return send(this.fetchFn, this.input(operation, init), this.options.timeoutMs);
  }

  private input(operation: ContractOperation | string, init: RequestInit) {
    const op = typeof operation === 'string' ? this.operation(operation) : operation;
    const headers: Record<string, string> = { ...init.headers };
    const apiKey = init.apiKey === undefined ? this.options.apiKey : init.apiKey;
    if (apiKey !== null) headers[this.apiKeyHeader] = apiKey;
    const header = this.apiKeyHeader;
    const keyUsed: KeyUsed | undefined =
      apiKey === null
        ? undefined
        : apiKey === this.options.apiKey
          ? { header, of: 'first' }
          : apiKey === this.options.secondApiKey
            ? { header, of: 'second' }
            : { header, of: 'made-up', value: apiKey };
    return {
      operationId: op.operationId,
      method: op.method,
      url: init.query ? `${this.url(op, init.pathParams)}?${new URLSearchParams(init.query)}` : this.url(op, init.pathParams),
      headers,
      secretHeaders: [this.apiKeyHeader],
      ...(keyUsed ? { apiKey: keyUsed } : {}),
      ...(init.body !== undefined ? { body: init.body } : {}),
    };
  }

  /**
   * Records the verdict of one check on one finding: pass when `ok`; otherwise info when
   * the profile is `seed` and the expectation rests on a decision, else fail. `lostData`: a value
   * read back that differs from the one written, a failure whichever decision the field's presence
   * or the operation that shows it rests on (never information).
   */
  judge(
    operationId: string,
    check: CheckName,
    ok: boolean,
    message: string,
    options: {
      decision?: string | undefined;
      exchange?: Exchange;
      related?: Exchange[];
      detail?: string | undefined;
      lostData?: boolean;
      cause?: string;
    } = {},
  ): void {
    const { decision, exchange, related, detail, cause } = options;
    const rest = { ...(exchange ? { exchange } : {}), ...(related?.length ? { related } : {}), ...(detail ? { detail } : {}), ...(cause ? { cause } : {}) };
    if (ok) this.recorder.add(operationId, check, { outcome: 'pass', message, ...rest });
    else if (decision && this.options.profile === 'seed' && !options.lostData)
      this.recorder.add(operationId, check, { outcome: 'info', message, decision, ...rest });
    else this.recorder.add(operationId, check, { outcome: 'fail', message, ...rest }, options.lostData);
  }

  /**
   * The decision an operation the seed does not list rests on (its own `x-decision`: D37's reads by
   * id, D39's sandbox moves, D40's webhook registration, D41's deliveries), when a finding is about
   * one: recorded on it, or resting on an exchange with it (a record read back through it). The
   * seed holds a deployment to none of them, so under the `seed` profile such a would-be failure
   * is information (Recorder). Not for tenant_isolation: another company's record answered loses
   * that company's data whichever operation answers it.
   */
  extensionDecision(operationId: string, check: CheckName, exchange?: Exchange): string | undefined {
    if (check === 'tenant_isolation') return undefined;
    for (const id of [operationId, exchange?.operationId]) {
      const decision = id === undefined ? undefined : decisionOf(this.contractView.find(id)?.operation);
      if (decision) return decision;
    }
    return undefined;
  }

  /** The decision marked on an object (`x-decision`), or on one of its keywords (`x-decided`). */
  static readonly decisionOf = decisionOf;
}

/** A body as JSON, or undefined when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * What a run derives from its contract alone (the seed's view of it, their validators, the
 * contract view), made once per contract in a process: runs in one process (the tests', `npm run
 * test:operation`) share the compiled validators instead of compiling the contract's schemas again.
 */
const viewsByContract = new WeakMap<JsonObject, { seedContract: JsonObject; full: ContractValidator; seed: ContractValidator; contractView: ContractView }>();

function contractViews(contract: JsonObject) {
  let views = viewsByContract.get(contract);
  if (!views) {
    const seedContract = seedView(contract);
    const full = new ContractValidator(contract);
    // The seed's view of the bundled contract is kept on disk from source, as the contract's own validators are.
    const seed = new ContractValidator(seedContract, { onDisk: contract === loadBundledContract() });
    views = { seedContract, full, seed, contractView: new ContractView(contract, full) };
    viewsByContract.set(contract, views);
  }
  return views;
}

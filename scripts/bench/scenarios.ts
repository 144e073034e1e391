/**
 * The load scenarios of the benchmark and the request each one sends. The reference server and
 * Prism get the same requests; only the charge id differs, since Prism keeps no data: it gets
 * the id of the contract's own example. The client-list scenarios run once per size of the
 * company's history (`--client-scales`), each size a company of its own: the smallest in phase 1
 * with the charge and the writes, the larger ones in phase 2. Each scenario says whether it writes
 * and declares the targets (issue 38) its reference is judged on: CPU per request against its floors.
 */
import { deref, loadBundledContract, resolvePointer, type JsonObject } from '../../lib/contract/bundled.js';
import { orderBody, paymentLinkBody } from './bodies.js';
import { HarnessError } from './harness-error.js';
import type { LoadRequest } from './load.js';

export interface ScenarioData {
  apiKey: string;
  chargeId: string;
  productIds: readonly string[];
  /** Per number of stored clients: the key of the company that has them, and the path of its last page of 100. */
  clientCompanies: ReadonlyMap<number, { apiKey: string; lastPagePath: string }>;
}

/**
 * A ratio of CPU per request that issue 38 asks of one of the reference's floors over the
 * reference (floor µs ÷ reference µs): the median of the per-round ratios must be at least `atLeast`.
 */
export interface RatioTarget {
  atLeast: number;
  /** Judged only on a run of at least this many rounds: a median of fewer is too noisy (fewer: it fails, saying so). */
  minRounds?: number;
}

export interface Scenario {
  name: string;
  /**
   * The scenario creates a record with every request: its limit is then bare Hono answering once
   * the request is on disk (the durable write), and bare Hono reads the body it is sent.
   */
  write: boolean;
  /**
   * The phase of the run it is measured in. 1: everything that needs only the smallest history
   * (`--client-scales`' first), all rounds, before any larger history exists in the server (its
   * peak RSS is the server's own working set); 2: the larger histories, seeded after phase 1.
   */
  phase: 1 | 2;
  /** The number of stored clients a client-list scenario reads. */
  clients?: number;
  /** Prism keeps no data: it is measured where its answer is the same kind of work (one record, one create). */
  withPrism: boolean;
  /**
   * The mock through its front (`npm run mock`) and Prism alone are driven at full speed too,
   * each for `--duration` seconds: the front's cost is judged on throughput (req/s), the figure an
   * integrator's test suite feels, not on CPU (the mock is two processes, the script and Prism).
   */
  withMockFront: boolean;
  /**
   * Connections of its load runs when not the run's own: an unpaged list of 100,000 clients is
   * 20 MB, which one caller asks for now and then, not sixteen at once.
   */
  connections?: number;
  /** What the reference must reach against each of its floors (absent: informative only). */
  targets: {
    /** Bare Hono sending the same bytes from memory, µs ÷ the reference's µs. */
    sameBytes?: RatioTarget;
    /** Bare Hono sending them once the request is on disk (writes only), µs ÷ the reference's µs. */
    durableWrite?: RatioTarget;
    /** Prism (where Prism is measured), µs ÷ the reference's µs. */
    prism?: RatioTarget;
    /** The mock through its front, req/s at full speed ÷ Prism alone's (where `withMockFront`). */
    mockFront?: RatioTarget;
    /** The reference's p50 at the fixed rate, median of the rounds, at most this (ms). */
    p50CeilingMs?: number;
  };
  request(data: ScenarioData): LoadRequest;
}

/** The bare Hono app's small JSON array: an informative limit, the cost of HTTP alone. */
export const smallArrayRequest: LoadRequest = { method: 'GET', path: '/', headers: {} };

export const clientPageSize = 100;

const count = (n: number) => n.toLocaleString('en-US');
export const chargeScenario = 'GET /charge/{id}';
export const paymentLinkScenario = 'POST /charge/payment-link';
export const orderScenario = 'POST /order';
export const unpagedClientsScenario = (clients: number) => `GET /client (${count(clients)} clients)`;
export const pagedClientsScenario = (clients: number) => `GET /client?limit=${clientPageSize} last page (${count(clients)} clients)`;

function clientCompany(data: ScenarioData, clients: number) {
  const company = data.clientCompanies.get(clients);
  if (!company) throw new HarnessError(`no company with ${clients} clients was seeded`);
  return company;
}

/** Every scenario in the order of the run: phase 1's, then phase 2's. */
export function scenarios(clientScales: readonly number[]): Scenario[] {
  const key = (apiKey: string) => ({ 'X-API-KEY': apiKey });
  const json = (apiKey: string) => ({ ...key(apiKey), 'Content-Type': 'application/json' });
  const fewest = clientScales[0];
  const most = clientScales.at(-1);
  const phaseOf = (clients: number) => (clients === fewest ? 1 : 2);
  const plan: Scenario[] = [
    {
      name: chargeScenario,
      write: false,
      phase: 1,
      withPrism: true,
      withMockFront: false,
      targets: { sameBytes: { atLeast: 0.5, minRounds: 3 }, prism: { atLeast: 8 } },
      request: (data) => ({ method: 'GET', path: `/charge/${encodeURIComponent(data.chargeId)}`, headers: key(data.apiKey) }),
    },
    ...clientScales.map(
      (clients): Scenario => ({
        name: unpagedClientsScenario(clients),
        write: false,
        phase: phaseOf(clients),
        clients,
        withPrism: false,
        withMockFront: false,
        connections: 1,
        // Information with a ceiling (issue 38): the paged form is the one judged.
        targets: clients === most ? { p50CeilingMs: 350 } : {},
        request: (data) => ({ method: 'GET', path: '/client', headers: key(clientCompany(data, clients).apiKey) }),
      }),
    ),
    ...clientScales.map(
      (clients): Scenario => ({
        name: pagedClientsScenario(clients),
        write: false,
        phase: phaseOf(clients),
        clients,
        withPrism: false,
        withMockFront: false,
        targets: clients === most ? { sameBytes: { atLeast: 0.5 } } : {},
        request: (data) => {
          const company = clientCompany(data, clients);
          return { method: 'GET', path: company.lastPagePath, headers: key(company.apiKey) };
        },
      }),
    ),
    {
      name: paymentLinkScenario,
      write: true,
      phase: 1,
      withPrism: true,
      withMockFront: true,
      // Issue 38: the mock's front may cost integrators at most a fifth of Prism's throughput.
      targets: { durableWrite: { atLeast: 0.5 }, mockFront: { atLeast: 0.8 } },
      request: (data) => ({
        method: 'POST',
        path: '/charge/payment-link',
        headers: json(data.apiKey),
        body: JSON.stringify(paymentLinkBody(data.productIds)),
        freshIdempotencyKey: true,
      }),
    },
    {
      name: orderScenario,
      write: true,
      phase: 1,
      withPrism: true,
      withMockFront: false,
      targets: { durableWrite: { atLeast: 0.5 } },
      request: (data) => ({ method: 'POST', path: '/order', headers: json(data.apiKey), body: JSON.stringify(orderBody(data.productIds)) }),
    },
  ];
  // A stable sort: within a phase, the order above.
  return plan.sort((a, b) => a.phase - b.phase);
}

/** The example value of GET /charge/{id}'s `id` parameter in the bundled contract. */
export function contractExampleChargeId(): string {
  const contract = loadBundledContract();
  const operation = resolvePointer(contract, '/paths/~1charge~1{id}/get') as JsonObject | undefined;
  for (const raw of (operation?.parameters ?? []) as unknown[]) {
    const parameter = deref<JsonObject>(contract, raw);
    if (parameter.in === 'path' && parameter.name === 'id' && typeof parameter.example === 'string') return parameter.example;
  }
  throw new HarnessError('no example charge id for GET /charge/{id} in generated/openapi.yaml');
}

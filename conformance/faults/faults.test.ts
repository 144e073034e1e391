/**
 * Proof that the suite catches faults: a clean reference server passes every check in
 * both profiles, and each deliberately broken deployment fails the run on the check that
 * should catch it.
 *
 * @full-run-only: it runs conformance checks over every operation of the contract, but `npm run test:operation` leaves it to `npm test`: it runs the suite against deliberately broken deployments for most of a minute; the loop's own conformance step judges the operation in process.
 */
// long-running: about 85 s (the suite against a reference server and each fault deployment); test/support/sequencer.ts starts it early
import { afterEach, describe, expect, test } from 'vitest';
import { createTestServer, type TestServer } from '../../server/test-support/harness.js';
import { startWebhookWorker, type WebhookWorker } from '../../server/webhooks/worker.js';
import { checkNames, type Profile, type RunReport } from '../engine/types.js';
import { runInProcess } from '../test-support/in-process.js';
import { decisionDepartures, deliveryFaults, faults, type Fault, type FetchLike } from './deployments.js';
import { formatFindings } from '../report/failures.js';
import { groupFindings, groupTitle } from '../report/groups.js';
import { foreignDeployment, foreignSeedViolations, foreignWithoutExtensionReads } from './foreign.js';

let server: TestServer | undefined;
let worker: WebhookWorker | undefined;

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  await server?.close();
  server = undefined;
});

/**
 * The reference server with its delivery worker on a fast schedule (a retry within half a
 * second), its deliveries optionally sent through a fault's `deliveries`; the suite receives
 * them on a free port.
 */
async function run(
  profile: Profile,
  wrap: (inner: FetchLike) => FetchLike,
  only?: string[],
  deliveries?: Fault['deliveries'],
  options: Fault['options'] = {},
  config: Fault['config'] = undefined,
): Promise<RunReport> {
  server = await createTestServer(config ? { config } : {});
  const app = server.app;
  // The secret of each registration, as its answer carried it: what a re-signing fault needs.
  const secrets = new Map<string, string>();
  const registering = async (request: Request) => {
    const response = await app.fetch(request);
    if (request.method === 'POST' && new URL(request.url).pathname === '/webhook' && response.status === 201) {
      const { url, secret } = (await response.clone().json()) as { url: string; secret: string };
      secrets.set(url, secret);
    }
    return response;
  };
  worker = startWebhookWorker(server.deps, { pollMs: 50, scheduleSeconds: [0.3, 0.3, 0.3], fetch: deliveries ? deliveries(fetch, secrets) : fetch });
  return runInProcess(server, { profile, runId: 'faulttest', ...(only ? { only } : {}), ...options }, { wrap: () => wrap(registering) });
}

function failures(report: RunReport): string[] {
  return report.results
    .filter((r) => r.outcome === 'fail')
    .map(
      (r) =>
        `${r.operationId} › ${r.check}: ${r.findings
          .filter((f) => f.outcome === 'fail')
          .map((f) => f.message)
          .join('; ')}`,
    );
}

/** The checks that run only when asked for (--production, --flood, --max-response-time). */
const optIn = ['webhook_url_policy', 'auth_flood_limited', 'response_time'];

describe('the reference server conforms', () => {
  /** Every check ran somewhere: nothing is left unexercised against a stateful server with two keys, but the two a run asks for (--production, --flood; conformance/checks/hardening.test.ts). */
  const everyCheckRan = (report: RunReport) => {
    const ran = new Set(report.results.filter((r) => r.outcome !== 'skip').map((r) => r.check));
    expect(checkNames.filter((check) => !ran.has(check))).toEqual(optIn);
  };

  test('no check fails in the reference profile, with its rate limit on: every answer carries the RateLimit fields (D11)', async () => {
    let answers = 0;
    let limited = 0;
    const counting: (inner: FetchLike) => FetchLike = (inner) => async (request) => {
      const response = await inner(request);
      answers++;
      if (response.headers.has('RateLimit') && response.headers.has('RateLimit-Policy')) limited++;
      return response;
    };
    const report = await run('reference', counting, undefined, undefined, {}, { rateLimitRequests: 1_000_000, rateLimitAnonymousRequests: 1_000_000 });
    expect(failures(report)).toEqual([]);
    // The check had something to hold: the answers carried the fields.
    expect(limited).toBeGreaterThan(100);
    expect(limited).toBe(answers);
    everyCheckRan(report);
  });

  test('no check fails in the seed profile', async () => {
    const report = await run('seed', (inner) => inner);
    expect(failures(report)).toEqual([]);
    everyCheckRan(report);
  });
});

describe("a deployment that departs from the contract's decisions only (built from the seed alone)", () => {
  test('the seed profile fails nothing and reports each departure as info naming its decision', async () => {
    const report = await run('seed', decisionDepartures.wrap);
    expect(failures(report)).toEqual([]);
    const decisions = new Set(report.results.flatMap((r) => r.findings.filter((f) => f.outcome === 'info').map((f) => f.decision)));
    for (const decision of decisionDepartures.decisions) expect([...decisions], decision).toContain(decision);
  });

  test('the reference profile fails it', async () => {
    const expected = [
      'createPaymentLink › status_code_conformance',
      'createPaymentLink › idempotency_replay',
      'createClient › negative_data_rejection',
      'getCharge › brcode_well_formed',
    ];
    // The operations those failures are on: the seed profile's run above went through all of them.
    const report = await run('reference', decisionDepartures.wrap, [...new Set(expected.map((e) => e.split(' › ')[0]!))]);
    const failed = new Set(report.results.filter((r) => r.outcome === 'fail').map((r) => `${r.operationId} › ${r.check}`));
    for (const failure of expected) expect([...failed]).toContain(failure);
  });
});

describe('a fault-free foreign deployment: seed-legal shapes that differ from every decision (UUID ids, extra fields, punctuated tax numbers, decimal-string amounts)', () => {
  test('the seed profile fails nothing, every check that can run ran, and each departure is info naming its decision', async () => {
    const report = await run('seed', foreignDeployment.wrap);
    expect(failures(report)).toEqual([]);
    const ran = new Set(report.results.filter((r) => r.outcome !== 'skip').map((r) => r.check));
    // Every check ran but those a run asks for; the response headers (the payment link's Location on
    // a 201 this deployment never sends, answering 200 as the seed allows, D01; the pages' Link) are
    // checked where the deployment sends them.
    expect(checkNames.filter((check) => !ran.has(check) && !optIn.includes(check))).toEqual([]);
    // Bodies naming the target's own ids (a numeric productId) are sent, not dropped: the subscription checks run too.
    expect(report.results.filter((r) => r.operationId === 'createSubscription' && r.outcome === 'skip').map((r) => `${r.check}: ${r.skipReason}`)).toEqual([]);
    // An update names the subscription by the id the target gave it (not of the contract's `subs_` form): it is sent, and accepted.
    const update = report.results.find((r) => r.operationId === 'updateSubscription' && r.check === 'positive_data_acceptance');
    expect(update?.outcome, update?.skipReason).toBe('pass');
    expect(update?.findings.length).toBeGreaterThan(3);
    const decisions = new Set(report.results.flatMap((r) => r.findings.filter((f) => f.outcome === 'info').flatMap((f) => (f.decision ?? '').split(', '))));
    expect([...foreignDeployment.decisions].filter((d) => !decisions.has(d))).toEqual([]);
  });

  test('without the reads the contract adds (GET by id, D37; deliveries, D41) the seed profile still fails nothing: what they miss is info', async () => {
    const report = await run('seed', foreignWithoutExtensionReads);
    expect(failures(report)).toEqual([]);
    const readBack = report.results.find((r) => r.operationId === 'createProduct' && r.check === 'ensure_resource_availability');
    // A property, not a roster: the read by id it misses is info naming D37, and whatever other
    // read a new operation adds is info too, never a failure.
    const infos = readBack?.findings.filter((f) => f.outcome !== 'pass').map((f) => `${f.outcome} ${f.decision}: ${f.message}`) ?? [];
    expect(infos).toContainEqual(expect.stringMatching(/^info D37: GET \/product\/\S+ answered 404 for the record just created$/));
    for (const info of infos) expect(info).toMatch(/^info D\d+/);
    await worker?.stop();
    await server?.close();
    const reference = await run('reference', foreignWithoutExtensionReads, ['createProduct', 'getProduct']);
    expect(failures(reference).join('\n')).toMatch(/createProduct › ensure_resource_availability: GET \/product\/\S+ answered 404/);
  });

  test('the reference profile fails it: it really departs from the decisions', async () => {
    // The operations these failures are on: the seed profile's run above went through all of them.
    const report = await run('reference', foreignDeployment.wrap, ['createProduct', 'getCharge', 'createOrder']);
    const failed = failures(report).join('\n');
    for (const expected of [
      /createProduct › response_schema_conformance: .*\/id must match pattern "\^prod_/,
      /getCharge › response_schema_conformance: .*\/data\/id must match pattern "\^char_/,
      /createOrder › negative_data_rejection: .*\/subtotal: string instead of number/,
    ])
      expect(failed).toMatch(expected);
  });

  test.each(foreignSeedViolations.map((v) => [v.name, v] as const))(
    'with a real seed violation on top, the seed profile fails it: %s',
    async (_name, violation) => {
      const report = await run('seed', violation.wrap, violation.only);
      const result = report.results.find((r) => r.operationId === violation.expect.operationId && r.check === violation.expect.check);
      expect(result?.outcome, `${violation.expect.operationId} › ${violation.expect.check} should fail; failures were:\n${failures(report).join('\n')}`).toBe(
        'fail',
      );
    },
  );
});

describe('what the reports make of a fault, as a QA lead reads them (a whole run, not --only)', () => {
  const fault = (start: string) => faults.find((f) => f.name.startsWith(start))!;
  const wrapped = (f: Fault) => (inner: FetchLike) => f.wrap(inner, { apiKey: server!.apiKey, otherApiKey: server!.other.apiKey });

  test('phone dropped from every listed client: one group, however many clients each list held; which items in each finding', async () => {
    const report = await run('reference', wrapped(fault('a required field dropped')));
    const groups = groupFindings(report.results, 'fail', report.runId).filter((g) => g.check === 'response_schema_conformance');
    expect(groups.map((g) => `${groupTitle(g)}: ${g.message}`)).toEqual([
      expect.stringMatching(/^listClients › response_schema_conformance × \d+: GET \/client → 200: \/\* must have required property 'phone'$/),
    ]);
    const details = groups[0]!.members.map((m) => m.finding.detail);
    expect(details.length).toBeGreaterThanOrEqual(3);
    for (const detail of details) expect(detail).toMatch(/^\/\*: at \d+ items? \((0|0–\d+|0, 1)\)$/);
    // The lists grew as the run created clients: the findings differ in their detail only.
    expect(new Set(details).size).toBeGreaterThan(1);
  });

  test('successUrl and failedUrl swapped: each failure carries the create that wrote them, and the read is printed in full once', async () => {
    const report = await run('seed', wrapped(fault('successUrl and failedUrl')));
    const text = formatFindings(report);
    const failures = text.slice(0, text.indexOf('\n\nSkipped'));
    expect(failures.match(/^✗ /gm)).toHaveLength(2);
    // Both rest on the create (its curl line sends the same body again) and on the read.
    expect(failures.match(/^ {4}written by createPaymentLink:$/gm)).toHaveLength(2);
    expect(failures.match(/^ {4}curl -sS -i -g -X POST http:\/\/reference\.test\/charge\/payment-link .*--data-raw '.*"successUrl":/gm)).toHaveLength(2);
    expect(failures.match(/^ {4}→ GET http:\/\/reference\.test\/charge\/char_\w+$/gm)).toHaveLength(1);
    expect(failures.match(/^ {4}→ GET http:\/\/reference\.test\/charge\/char_\w+ ← 200: the exchange printed in full above$/gm)).toHaveLength(1);
  });

  test('externalId truncated, seed profile: a failure on the create answer and on the read alike, naming no decision (D21 decides its presence, not its value)', async () => {
    const report = await run('seed', wrapped(fault('externalId truncated')));
    const findings = report.results
      .filter((r) => r.check === 'ensure_resource_availability')
      .flatMap((r) => r.findings.filter((f) => f.outcome !== 'pass' && f.message.includes('`externalId`')));
    expect(findings.map((f) => `${f.outcome}${f.decision ? ` (${f.decision})` : ''}: ${f.message.split(':')[0]}`)).toEqual([
      'fail: POST /charge/payment-link',
      expect.stringMatching(/^fail: GET \/charge\/char_\w+$/),
    ]);
  });
});

describe('every fault is caught by its check', () => {
  test.each([...faults, ...deliveryFaults].map((fault) => [fault.name, fault] as const))('%s', async (_name, fault) => {
    const report = await run(
      'reference',
      (inner) => fault.wrap(inner, { apiKey: server!.apiKey, otherApiKey: server!.other.apiKey }),
      fault.only,
      fault.deliveries,
      fault.options,
      fault.config,
    );
    const result = report.results.find((r) => r.operationId === fault.expect.operationId && r.check === fault.expect.check);
    expect(result?.outcome, `${fault.expect.operationId} › ${fault.expect.check} should fail; failures were:\n${failures(report).join('\n')}`).toBe('fail');
    if (fault.expect.message)
      expect(
        result?.findings
          .filter((f) => f.outcome === 'fail')
          .map((f) => f.message)
          .join('\n'),
      ).toMatch(fault.expect.message);
  });

  test('the faults fail at least twelve different operation and check pairs; faults failing the same one differ in what the failure says', () => {
    expect(new Set(faults.map((f) => `${f.expect.operationId}/${f.expect.check}`)).size).toBeGreaterThanOrEqual(12);
    expect(new Set(faults.map((f) => `${f.expect.operationId}/${f.expect.check}/${f.expect.message?.source ?? ''}`)).size).toBe(faults.length);
  });

  test('every webhook check has a delivery fault that fails it', () => {
    expect(new Set(deliveryFaults.map((f) => f.expect.check))).toEqual(new Set(['webhook_signature', 'webhook_schema', 'webhook_delivery']));
  });
});

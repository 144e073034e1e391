/**
 * Hand-made RunReports for the tests of the renderers: every outcome, exchanges with and
 * without an answer, bodies that need escaping, a body longer than the print limit, and a
 * target that echoes the full API key.
 */
import type { CheckResult, Exchange, RunReport } from '../engine/types.js';

/** Keys as the reference server issues them; the reports below must never show them whole. */
export const API_KEY = 'sk_a1b2c3d4e5f6g7h8i9j0k1l2_SecretSecretSecretSecretSecretSecret12';
export const SECOND_API_KEY = 'sk_z9y8x7w6v5u4t3s2r1q0p9o8_OtherOtherOtherOtherOtherOtherOther98';

/** What the engine records for the X-API-KEY header (its maskKey). */
const MASKED = 'sk_a1b…****';

export const nasty = `<script>alert("x")</script> & 'quotes' ]]> \u0001 bell\u0007 emoji 🎉 lone \uD800 end`;

export function exchange(overrides: Partial<Exchange> = {}): Exchange {
  return {
    operationId: 'createPaymentLink',
    request: {
      method: 'POST',
      url: 'http://ref.test/charge/payment-link',
      headers: { Accept: 'application/json', 'X-API-KEY': MASKED, 'Content-Type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: 'prod_1', quantity: 2 }], externalId: 'conf-test-1' }),
      apiKey: { header: 'X-API-KEY', of: 'first' },
    },
    response: {
      status: 500,
      headers: { 'content-type': 'application/problem+json' },
      body: JSON.stringify({ type: 'about:blank', title: 'Internal error', status: 500, detail: nasty }),
    },
    ms: 12.4,
    ...overrides,
  };
}

/** One result of each outcome, spread over three operations, with one "not applicable" cell at least. */
export function sampleReport(): RunReport {
  const longBody = JSON.stringify({ data: Array.from({ length: 400 }, (_, i) => ({ id: `clnt_${i}`, name: `Cliente ${i}` })) });
  const results: CheckResult[] = [
    {
      operationId: 'createPaymentLink',
      check: 'not_a_server_error',
      outcome: 'fail',
      findings: [
        { outcome: 'fail', message: `answered 500 to a valid request ${nasty}`, exchange: exchange() },
        { outcome: 'pass', message: 'answered 201', exchange: exchange({ response: { status: 201, headers: {}, body: '{}' } }) },
      ],
    },
    {
      operationId: 'createPaymentLink',
      check: 'response_schema_conformance',
      outcome: 'info',
      findings: [
        {
          outcome: 'info',
          message: 'externalId is missing from the charge',
          decision: 'D21',
          exchange: exchange({ response: { status: 201, headers: { 'content-type': 'application/json' }, body: '{"id":"char_1"}' } }),
        },
      ],
    },
    { operationId: 'createPaymentLink', check: 'idempotency_replay', outcome: 'skip', findings: [], skipReason: 'the target keeps no state (--stateless)' },
    { operationId: 'getCharge', check: 'status_code_conformance', outcome: 'pass', findings: [{ outcome: 'pass', message: '200 is documented' }] },
    { operationId: 'getCharge', check: 'tenant_isolation', outcome: 'skip', findings: [], skipReason: 'no second API key (--second-api-key)' },
    {
      operationId: 'listClients',
      check: 'tenant_isolation',
      outcome: 'fail',
      findings: [
        {
          outcome: 'fail',
          message: "another company's client is listed",
          exchange: exchange({
            operationId: 'listClients',
            request: { method: 'GET', url: 'http://ref.test/client', headers: { 'X-API-KEY': MASKED }, apiKey: { header: 'X-API-KEY', of: 'first' } },
            // A target that echoes the key it was sent: the renderers must not pass it on.
            response: {
              status: 200,
              headers: { 'content-type': 'application/json', 'x-echo-key': API_KEY },
              body: longBody.replace('Cliente 0', `Cliente ${API_KEY}`),
            },
          }),
        },
      ],
    },
    {
      operationId: 'listClients',
      check: 'ignored_auth',
      outcome: 'fail',
      findings: [
        { outcome: 'fail', message: 'no answer', exchange: exchange({ operationId: 'listClients', response: undefined, error: 'no answer within 10000 ms' }) },
      ],
    },
  ];
  return {
    runId: 'conf1234abcd',
    profile: 'seed',
    target: { baseUrl: 'http://ref.test', baseUrlAlt: 'http://alt.ref.test' },
    startedAt: '2026-01-02T03:04:05.000Z',
    durationMs: 4321,
    operations: ['createPaymentLink', 'getCharge', 'listClients'],
    results,
  };
}

/** An exchange of `method url` answered `status`, made with the run's key (or the second company's). */
function answered(operationId: string, method: string, url: string, status: number, second = false, body?: string): Exchange {
  return {
    operationId,
    request: {
      method,
      url,
      headers: { 'X-API-KEY': second ? 'sk_z9y…****' : MASKED, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      ...(body === undefined ? {} : { body }),
      apiKey: { header: 'X-API-KEY', of: second ? 'second' : 'first' },
    },
    response: { status, headers: { 'content-type': 'application/json' }, body: '{"error":"x"}' },
    ms: 3,
    startedAt: '2026-01-02T03:04:06.000Z',
  };
}

const wrongType = 'Content-Type application/json, documented application/problem+json';

/**
 * A run whose findings repeat, as a foreign deployment's do: the same departure on several
 * operations and several times on one (paths and ids differ), the same 500 on two operations,
 * and one failure of its own with a record id and the run id in its message.
 */
export function groupedReport(): RunReport {
  const info = (operationId: string, method: string, url: string, status: number, decision: string, body?: string) => {
    const exchange = answered(operationId, method, url, status, false, body);
    return { outcome: 'info' as const, message: `${method} ${new URL(url).pathname} → ${status}: ${wrongType}`, decision, exchange };
  };
  const results: CheckResult[] = [
    {
      operationId: 'createPaymentLink',
      check: 'content_type_conformance',
      outcome: 'info',
      findings: [
        info('createPaymentLink', 'POST', 'http://ref.test/charge/payment-link', 400, 'D34', '{"items":[]}'),
        info('createPaymentLink', 'POST', 'http://ref.test/charge/payment-link', 400, 'D34', '{"items":"x"}'),
        info('createPaymentLink', 'POST', 'http://ref.test/charge/payment-link', 401, 'D02'),
      ],
    },
    {
      operationId: 'createOrder',
      check: 'content_type_conformance',
      outcome: 'info',
      findings: [info('createOrder', 'POST', 'http://ref.test/order', 400, 'D34'), info('createOrder', 'POST', 'http://ref.test/order', 401, 'D02')],
    },
    {
      operationId: 'getCharge',
      check: 'content_type_conformance',
      outcome: 'info',
      findings: [info('getCharge', 'GET', 'http://ref.test/charge/6c4cc9f9-04ec-4ce0-935f-6411cb1089af', 401, 'D02')],
    },
    {
      operationId: 'getCharge',
      check: 'not_a_server_error',
      outcome: 'fail',
      findings: [
        {
          outcome: 'fail',
          message: 'GET /charge/6c4cc9f9-04ec-4ce0-935f-6411cb1089af → 500: a server error',
          exchange: answered('getCharge', 'GET', 'http://ref.test/charge/6c4cc9f9-04ec-4ce0-935f-6411cb1089af', 500),
        },
      ],
    },
    {
      operationId: 'listClients',
      check: 'not_a_server_error',
      outcome: 'fail',
      findings: [
        { outcome: 'fail', message: 'GET /client → 500: a server error', exchange: answered('listClients', 'GET', 'http://ref.test/client?limit=2', 500) },
      ],
    },
    {
      operationId: 'listClients',
      check: 'tenant_isolation',
      outcome: 'fail',
      findings: [
        {
          outcome: 'fail',
          message: 'clnt_9x8y7z (conf1234abcd-B) of the other company is listed',
          exchange: answered('listClients', 'GET', 'http://ref.test/client', 200, true),
        },
      ],
    },
    { operationId: 'listClients', check: 'status_code_conformance', outcome: 'pass', findings: [{ outcome: 'pass', message: '200 is documented' }] },
  ];
  return {
    runId: 'conf1234abcd',
    profile: 'seed',
    target: { baseUrl: 'http://ref.test', baseUrlAlt: 'http://ref.test' },
    startedAt: '2026-01-02T03:04:05.000Z',
    durationMs: 1234,
    operations: ['createPaymentLink', 'createOrder', 'getCharge', 'listClients'],
    results,
    exchanges: results.flatMap((r) => r.findings.flatMap((f) => (f.exchange ? [f.exchange] : []))),
  };
}

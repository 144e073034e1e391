/**
 * The load scenarios of the benchmark and the request each one sends. The reference server and
 * Prism get the same requests; only the charge id differs, since Prism keeps no data: it gets
 * the id of the contract's own example.
 */
import { deref, loadBundledContract, resolvePointer, type JsonObject } from '../../lib/contract/bundled.js';
import { orderBody, paymentLinkBody } from './bodies.js';
import { HarnessError } from './harness-error.js';
import type { LoadRequest } from './load.js';

export const loadScenarios = ['GET /charge/{id}', 'GET /client', 'POST /charge/payment-link', 'POST /order'] as const;
export type LoadScenario = (typeof loadScenarios)[number];

/** The bare Hono app has one route; its figures are the limit every scenario is compared with. */
export const bareRequest: LoadRequest = { method: 'GET', path: '/', headers: {} };

export interface ScenarioData {
  apiKey: string;
  chargeId: string;
  productIds: readonly string[];
}

export function scenarioRequest(scenario: LoadScenario, data: ScenarioData): LoadRequest {
  const headers = { 'X-API-KEY': data.apiKey };
  const json = { ...headers, 'Content-Type': 'application/json' };
  switch (scenario) {
    case 'GET /charge/{id}':
      return { method: 'GET', path: `/charge/${encodeURIComponent(data.chargeId)}`, headers };
    case 'GET /client':
      return { method: 'GET', path: '/client', headers };
    case 'POST /charge/payment-link':
      return { method: 'POST', path: '/charge/payment-link', headers: json, body: JSON.stringify(paymentLinkBody(data.productIds)), freshIdempotencyKey: true };
    case 'POST /order':
      return { method: 'POST', path: '/order', headers: json, body: JSON.stringify(orderBody(data.productIds)) };
  }
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

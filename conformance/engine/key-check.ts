/**
 * Whether the target takes the run's keys at all. A refused key would otherwise turn every
 * check into a misleading finding (hundreds of lines about 401s); one authenticated read
 * answered 401 means the key is wrong, not the target, and the run ends there (exit 2).
 *
 * Only the run's own keys are judged here: `ignored_auth` sends wrong keys on purpose and
 * expects 401s, and those never end a run.
 */
import { listOperations, type ContractOperation, type JsonObject } from '../../lib/contract/bundled.js';
import { flagAndVariable } from '../options.js';
import { send } from './http.js';
import type { ConformanceOptions, Exchange } from './types.js';

/** The target answered 401 to a run's own key. The message is the one line the CLI prints. */
export class KeyRefusedError extends Error {
  override readonly name = 'KeyRefusedError';
}

/**
 * The read the keys are tried on: a `GET` on `{base_url}` without path parameters that the
 * contract secures and that is the seed's own (no `x-decision`), so every deployment has it.
 */
export function keyProbeOperation(contract: JsonObject): ContractOperation | undefined {
  const secured = (op: ContractOperation) => {
    const security = (op.operation.security ?? contract.security) as unknown[] | undefined;
    return Array.isArray(security) && security.length > 0 && !security.some((s) => s && typeof s === 'object' && Object.keys(s).length === 0);
  };
  return listOperations(contract).find(
    (op) => op.method === 'get' && op.server !== 'base_url_alt' && !op.path.includes('{') && op.operation['x-decision'] === undefined && secured(op),
  );
}

/**
 * Throws `KeyRefusedError` when the target answers 401 to the run's key or to the second key
 * on the probe read, naming both places the key may have come from (its flag and its variable). Any other answer, or none, passes: the probe with the run's key is returned
 * for the preflight to judge (preflight.ts: does the base URL serve this interface?).
 */
export async function checkKeysAccepted(options: ConformanceOptions, contract: JsonObject, fetchFn: typeof fetch = fetch): Promise<Exchange | undefined> {
  const op = keyProbeOperation(contract);
  if (!op) return undefined;
  let probe: Exchange | undefined;
  const apiKeyHeader = apiKeyHeaderOf(contract);
  const keys: Array<[string, string, string | undefined]> = [
    ['the API key', flagAndVariable('api-key'), options.apiKey],
    ['the second API key', flagAndVariable('second-api-key'), options.secondApiKey],
  ];
  for (const [what, flag, key] of keys) {
    if (key === undefined) continue;
    const exchange = await send(
      fetchFn,
      { operationId: op.operationId, method: op.method, url: `${options.baseUrl}${op.path}`, headers: { [apiKeyHeader]: key }, secretHeaders: [apiKeyHeader] },
      options.timeoutMs,
    );
    // No answer: the preflight says why; a second key is not tried on a target that does not answer.
    if (exchange.error) return exchange;
    if (exchange.response?.status === 401) {
      throw new KeyRefusedError(`the target refused ${what} (401 on ${op.method.toUpperCase()} ${op.path}); check ${flag}.`);
    }
    probe ??= exchange;
  }
  return probe;
}

/** The header named by the contract's first `apiKey` security scheme that is sent `in: header`. */
export function apiKeyHeaderOf(contract: JsonObject): string {
  const schemes = ((contract.components as JsonObject | undefined)?.securitySchemes ?? {}) as Record<string, JsonObject>;
  const scheme = Object.values(schemes).find((s) => s.type === 'apiKey' && s.in === 'header' && typeof s.name === 'string');
  if (!scheme) throw new Error('The contract has no apiKey security scheme sent in a header');
  return scheme.name as string;
}

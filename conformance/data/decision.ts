import type { JsonObject } from '../../lib/contract/bundled.js';

/**
 * The decision marked on an object of the contract (`x-decision`), or on one of its keywords
 * (`x-decided: {keyword: Dnn}`). Below every reader of the contract in conformance/, so the
 * run's view of it (contract-view.ts) and the run context share it without importing each other.
 */
export function decisionOf(object: unknown, keyword?: string): string | undefined {
  if (!object || typeof object !== 'object') return undefined;
  const o = object as JsonObject;
  if (typeof o['x-decision'] === 'string') return o['x-decision'];
  const decided = o['x-decided'] as Record<string, string> | undefined;
  return keyword && decided ? decided[keyword] : undefined;
}
